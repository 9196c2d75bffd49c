import type { Element, Root, RootContent } from 'hast';
import { CLOBBER_PREFIX } from './slug';

/**
 * Points in-page links (`href="#fn-1"`, footnote back-references) at the ids rehype-sanitize will prefix,
 * as GitHub does in the browser. Runs before rehype-sanitize; hrefs already prefixed are left alone.
 */
export function rehypeFragmentPrefix() {
  return (tree: Root): void => {
    const visit = (node: Root | RootContent): void => {
      if (node.type === 'element') prefixHref(node);
      if ('children' in node) for (const child of node.children) visit(child);
    };
    visit(tree);
  };
}

function prefixHref(element: Element): void {
  const href = element.properties.href;
  if (typeof href !== 'string' || !href.startsWith('#') || href.length === 1) return;
  if (href.startsWith(`#${CLOBBER_PREFIX}`)) return;
  element.properties.href = `#${CLOBBER_PREFIX}${href.slice(1)}`;
}
