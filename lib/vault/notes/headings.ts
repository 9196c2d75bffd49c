import { htmlCommentRanges, mergeRanges, obsidianCommentRanges, rangeContaining, type Range } from './comments';
import { markdownSkeleton } from './markdown-tree';

/** One ATX heading (`## Text`) of a note's body. */
export interface Heading {
  /** 1 for `#`, up to 6 for `######`. */
  level: number;
  /** The heading's text, trimmed, without a closing run of `#`. */
  text: string;
  /** Where the heading's line starts in the body (a character offset). */
  offset: number;
  /** Where the heading's line ends, before its line break (a character offset). */
  end: number;
  /** The heading's line in the body, counted from 0. */
  line: number;
}

/** A fence that opens or closes a code block: up to three spaces, then three or more backticks or tildes. */
function fenceOf(line: string): { char: string; length: number; rest: string } | null {
  let i = 0;
  while (i < 3 && line[i] === ' ') i += 1;
  const char = line[i];
  if (char !== '`' && char !== '~') return null;
  let end = i;
  while (line[end] === char) end += 1;
  if (end - i < 3) return null;
  return { char, length: end - i, rest: line.slice(end) };
}

/**
 * The ATX heading a line is (`## Status`, `### Next steps ##`), or null: up to three spaces, one to
 * six `#`, then a space, a tab or the line's end; the text trimmed, without a closing run of `#`.
 */
export function headingOf(line: string): { level: number; text: string } | null {
  let i = 0;
  while (i < 3 && line[i] === ' ') i += 1;
  let level = 0;
  while (line[i + level] === '#') level += 1;
  if (level === 0 || level > 6) return null;
  const after = line[i + level];
  if (after !== undefined && after !== ' ' && after !== '\t') return null;
  let text = line.slice(i + level).trim();
  // A closing sequence is a run of `#` after a space (`## Title ##`); a `#` inside a word stays (`# C#`).
  let cut = text.length;
  while (cut > 0 && text[cut - 1] === '#') cut -= 1;
  if (cut === 0) text = '';
  else if (cut < text.length && (text[cut - 1] === ' ' || text[cut - 1] === '\t')) text = text.slice(0, cut).trimEnd();
  return { level, text };
}

/**
 * Calls `visit` with each ATX heading of `body` in order, until it returns true. Lines in fenced code
 * blocks or comments are not headings; neither is `#tag` (no space after the `#`). Linear in the body's length:
 * only lines that start (after up to three spaces) with `#`, a backtick or a tilde are looked at.
 */
function scanHeadings(body: string, visit: (heading: Heading) => boolean): void {
  const hidden = commentRanges(body);
  let fence: { char: string; length: number } | null = null;
  let start = 0;
  let lineIndex = 0;
  while (start <= body.length) {
    let end = body.indexOf('\n', start);
    if (end < 0) end = body.length;
    let first = start;
    while (first < end && first - start < 3 && body[first] === ' ') first += 1;
    const c = body[first];
    if (c === '#' || c === '`' || c === '~') {
      const line = body.slice(start, end).replace(/\r$/, '');
      const fenceLine = fenceOf(line);
      if (fence) {
        if (fenceLine && fenceLine.char === fence.char && fenceLine.length >= fence.length && fenceLine.rest.trim() === '') fence = null;
      } else if (fenceLine && !(fenceLine.char === '`' && fenceLine.rest.includes('`'))) {
        fence = { char: fenceLine.char, length: fenceLine.length };
      } else {
        const heading = headingOf(line);
        const lineEnd = end > start && body[end - 1] === '\r' ? end - 1 : end;
        if (
          heading &&
          rangeContaining(start, hidden) === undefined &&
          visit({ level: heading.level, text: heading.text, offset: start, end: lineEnd, line: lineIndex })
        )
          return;
      }
    }
    start = end + 1;
    lineIndex += 1;
  }
}

interface MdNode {
  type: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  children?: MdNode[];
}

/**
 * The body's comments, sorted and merged: Obsidian `%%...%%` by the one rule links and rendering use
 * (obsidianCommentRanges, outside code) and HTML `<!-- ... -->`, which links ignore too. A `## line`
 * inside either is hidden text, not a heading: treating it as one would end a section inside a comment
 * and cut the comment in two. Parses the body only when it holds `%%` or `<!--`.
 */
function commentRanges(body: string): Range[] {
  if (!body.includes('%%') && !body.includes('<!--')) return [];
  const tree = markdownSkeleton<MdNode>(body);
  const code: Range[] = [];
  const html: Range[] = [];
  const walk = (node: MdNode): void => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (node.type === 'code' || node.type === 'inlineCode' || node.type === 'html') {
      if (start === undefined || end === undefined) return;
      if (node.type === 'html') html.push(...htmlCommentRanges(body, [start, end]));
      else code.push([start, end]);
      return;
    }
    for (const child of node.children ?? []) walk(child);
  };
  walk(tree);
  code.sort((a, b) => a[0] - b[0]);
  return mergeRanges([...html, ...obsidianCommentRanges(body, code)]);
}

/**
 * The ATX headings of a markdown body, in order, with where each heading's line starts and ends
 * and its line number. Lines in fenced code blocks and in `%%` or `<!-- -->` comments are not headings;
 * neither is `#tag` (no space after the `#`).
 */
export function parseHeadings(body: string): Heading[] {
  const out: Heading[] = [];
  scanHeadings(body, (heading) => {
    out.push(heading);
    return false;
  });
  return out;
}

/** The text of a body's first `# ` heading (level 1, not empty), or null. */
export function firstTitleHeading(body: string): string | null {
  let title: string | null = null;
  scanHeadings(body, (heading) => {
    if (heading.level !== 1 || heading.text === '') return false;
    title = heading.text;
    return true;
  });
  return title;
}
