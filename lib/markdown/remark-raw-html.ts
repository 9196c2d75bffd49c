import type { Parent, Root, RootContent } from 'mdast';
import { FLOW_PARENTS, text } from './nodes';

/**
 * Raw HTML in a note is shown as the text it is, never parsed (SECURITY-TESTS #29): `<script>`, `<iframe>`,
 * `<img onerror>` appear escaped. HTML comments `<!-- -->` are hidden, as in Obsidian.
 */
export function remarkRawHtmlAsText() {
  return (tree: Root): void => transformRawHtml(tree);
}

export function transformRawHtml(parent: Parent): void {
  const flow = FLOW_PARENTS.has(parent.type);
  const next: RootContent[] = [];
  for (const child of parent.children) {
    if (child.type === 'html') {
      const value = child.value.replace(/<!--[\s\S]*?(?:-->|$)/g, '');
      if (value.trim() === '') continue;
      next.push(flow ? { type: 'paragraph', children: [text(value)] } : text(value));
      continue;
    }
    if ('children' in child) transformRawHtml(child);
    next.push(child);
  }
  parent.children = mergeTexts(next);
}

/** Joins neighbouring text nodes, so a wikilink around inline HTML (`[[a <b>]]`) is one run of text again. */
function mergeTexts(nodes: RootContent[]): RootContent[] {
  const out: RootContent[] = [];
  for (const node of nodes) {
    const last = out[out.length - 1];
    if (node.type === 'text' && last?.type === 'text') out[out.length - 1] = text(last.value + node.value);
    else out.push(node);
  }
  return out;
}
