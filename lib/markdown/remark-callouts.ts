import type { Blockquote, Paragraph, Parent, PhrasingContent, Root, RootContent } from 'mdast';
import { element, setHastProperties, text, type LucidElement } from './nodes';

const CALLOUT_MARKER = /^\[!([A-Za-z0-9][\w-]{0,39})\]([+-]?)[ \t]*/;

/**
 * Obsidian callouts: a blockquote starting `[!type]`, `[!type]+` or `[!type]-`, then an optional title on the
 * same line, becomes
 * `<div class="callout" data-callout="type"><div class="callout-title" data-callout="type">…</div>
 * <div class="callout-content">…</div></div>`. A foldable callout (`+` open, `-` closed) puts the title and
 * content in `<details><summary class="callout-title">`. Without a title the type is the title (`Note`).
 */
export function remarkCallouts() {
  return (tree: Root): void => transformCallouts(tree);
}

export function transformCallouts(parent: Parent): void {
  for (const child of parent.children) {
    if (child.type === 'blockquote') toCallout(child);
    if ('children' in child) transformCallouts(child);
  }
}

function toCallout(quote: Blockquote): void {
  const first = quote.children[0];
  if (first?.type !== 'paragraph') return;
  const lead = first.children[0];
  if (lead?.type !== 'text') return;
  const marker = CALLOUT_MARKER.exec(lead.value);
  if (!marker) return;

  const type = marker[1].toLowerCase();
  const fold = marker[2];
  const { title, body } = splitFirstLine([text(lead.value.slice(marker[0].length)), ...first.children.slice(1)]);
  const titleNodes = title.length > 0 ? title : [text(type.charAt(0).toUpperCase() + type.slice(1))];

  const content: RootContent[] = [];
  if (body.length > 0) content.push({ type: 'paragraph', children: body } satisfies Paragraph);
  content.push(...quote.children.slice(1));

  const parts: LucidElement[] = [element(fold ? 'summary' : 'div', { className: ['callout-title'], dataCallout: type }, titleNodes)];
  if (content.length > 0) parts.push(element('div', { className: ['callout-content'] }, content));

  quote.children = fold ? [element('details', fold === '+' ? { open: true } : {}, parts)] : parts;
  setHastProperties(quote, { className: ['callout'], dataCallout: type });
  (quote.data as { hName?: string }).hName = 'div';
}

/** Splits phrasing content at its first line break: the title line, then the rest. */
function splitFirstLine(nodes: PhrasingContent[]): { title: PhrasingContent[]; body: PhrasingContent[] } {
  const title: PhrasingContent[] = [];
  const body: PhrasingContent[] = [];
  let inBody = false;
  for (const node of nodes) {
    if (inBody) {
      body.push(node);
    } else if (node.type === 'break') {
      inBody = true;
    } else if (node.type === 'text' && node.value.includes('\n')) {
      const newline = node.value.indexOf('\n');
      title.push(text(node.value.slice(0, newline)));
      body.push(text(node.value.slice(newline + 1)));
      inBody = true;
    } else {
      title.push(node);
    }
  }
  return { title: trimEdges(title), body: trimEdges(body) };
}

function trimEdges(nodes: PhrasingContent[]): PhrasingContent[] {
  const out = [...nodes];
  const first = out[0];
  if (first?.type === 'text') out[0] = text(first.value.trimStart());
  const last = out[out.length - 1];
  if (last?.type === 'text') out[out.length - 1] = text(last.value.trimEnd());
  return out.filter((node) => node.type !== 'text' || node.value !== '');
}
