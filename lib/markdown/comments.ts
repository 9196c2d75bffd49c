import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

type Range = readonly [start: number, end: number];

interface PositionedNode {
  type: string;
  position?: { start: { offset?: number }; end: { offset?: number } };
  children?: PositionedNode[];
}

/**
 * The note with Obsidian comments removed: `%%inline%%` and `%%` blocks across lines (which may span paragraphs,
 * so this works on the source, not on the tree). An unclosed `%%` hides the rest of the note, as in Obsidian.
 * `%%` inside code spans and code blocks is text and stays.
 */
export function stripComments(markdown: string): string {
  if (!markdown.includes('%%')) return markdown;
  const code = codeRanges(markdown);
  let out = '';
  let from = 0;
  let openAt = -1;
  let scan = 0;
  for (;;) {
    const at = markdown.indexOf('%%', scan);
    if (at < 0) break;
    const inCode = code.find(([start, end]) => start <= at && at < end);
    if (inCode) {
      scan = inCode[1];
      continue;
    }
    if (openAt < 0) {
      openAt = at;
    } else {
      out += markdown.slice(from, openAt);
      from = at + 2;
      openAt = -1;
    }
    scan = at + 2;
  }
  return out + markdown.slice(from, openAt < 0 ? markdown.length : openAt);
}

function codeRanges(markdown: string): Range[] {
  const tree = fromMarkdown(markdown, {
    extensions: [gfm()],
    mdastExtensions: [gfmFromMarkdown()],
  }) as unknown as PositionedNode;
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
  return ranges;
}
