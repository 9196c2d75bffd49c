import { markdownSkeleton } from './markdown-tree';

/** `[start, end)` offsets into a text. */
export type Range = readonly [start: number, end: number];

interface PositionedNode {
  type: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  children?: PositionedNode[];
}

/**
 * Lucid's one rule for Obsidian comments, shared by links and rendering: `%%...%%` outside the sorted `code`
 * ranges (code spans and blocks, where `%%` is text); an unclosed `%%` runs to the end of the text.
 */
export function obsidianCommentRanges(text: string, code: readonly Range[]): Range[] {
  const ranges: Range[] = [];
  let from = 0;
  let openAt = -1;
  for (;;) {
    const at = text.indexOf('%%', from);
    if (at < 0) break;
    const inCode = rangeContaining(at, code);
    if (inCode) {
      from = inCode[1];
      continue;
    }
    if (openAt < 0) {
      openAt = at;
    } else {
      ranges.push([openAt, at + 2]);
      openAt = -1;
    }
    from = at + 2;
  }
  if (openAt >= 0) ranges.push([openAt, text.length]);
  return ranges;
}

/**
 * The note with Obsidian comments removed (see {@link obsidianCommentRanges}): `%%inline%%` and `%%` blocks
 * across lines, which may span paragraphs, so this works on the source, not on the tree. The renderer hides
 * exactly what links ignore.
 */
export function stripComments(markdown: string): string {
  if (!markdown.includes('%%')) return markdown;
  let out = '';
  let from = 0;
  for (const [start, end] of obsidianCommentRanges(markdown, codeRanges(markdown))) {
    out += markdown.slice(from, start);
    from = end;
  }
  return out + markdown.slice(from);
}

/** Code spans and code blocks, sorted: where `%%` and `[[` are text. */
function codeRanges(markdown: string): Range[] {
  const tree = markdownSkeleton<PositionedNode>(markdown);
  const ranges: Range[] = [];
  const walk = (node: PositionedNode): void => {
    if (node.type === 'code' || node.type === 'inlineCode') {
      const start = node.position?.start.offset;
      const end = node.position?.end.offset;
      if (start !== undefined && end !== undefined) ranges.push([start, end]);
      return;
    }
    for (const child of node.children ?? []) walk(child);
  };
  walk(tree);
  return ranges.sort((a, b) => a[0] - b[0]);
}

/** The index of the last range starting at or before `offset` in sorted, non-overlapping ranges; -1 if none. */
export function lastStartingBefore(offset: number, sorted: readonly Range[]): number {
  let low = 0;
  let high = sorted.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (sorted[mid][0] <= offset) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

export function rangeContaining(offset: number, sorted: readonly Range[]): Range | undefined {
  const range = sorted[lastStartingBefore(offset, sorted)];
  return range && offset < range[1] ? range : undefined;
}

/** `<!-- ... -->` comments inside the HTML node at `[start, end)` of `text`; an unclosed one runs to the node's end. */
export function htmlCommentRanges(text: string, [start, end]: Range): Range[] {
  const ranges: Range[] = [];
  let from = start;
  for (;;) {
    const open = text.indexOf('<!--', from);
    if (open < 0 || open >= end) break;
    const close = text.indexOf('-->', open + 4);
    const stop = close < 0 || close + 3 > end ? end : close + 3;
    ranges.push([open, stop]);
    from = stop;
  }
  return ranges;
}

/** `ranges` sorted by start, with overlapping or touching ones merged. */
export function mergeRanges(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}
