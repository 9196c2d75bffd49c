import type { Properties } from 'hast';
import type { Data, Node, Parent, PhrasingContent, RootContent, Text } from 'mdast';

/**
 * An mdast node that exists only to become one HTML element: remark-rehype's default handler turns it into
 * `<hName ...hProperties>` around its converted children. Used for callout parts, broken links and embed boxes.
 */
export interface LucidElement extends Parent {
  type: 'lucidElement';
  children: RootContent[];
  data: LucidElementData;
}

export interface LucidElementData extends Data {
  hName: string;
  hProperties?: Properties;
  /** Flow content (an embed box): lifted out of the paragraph it was written in. */
  block?: boolean;
}

declare module 'mdast' {
  interface RootContentMap {
    lucidElement: LucidElement;
  }
  interface BlockContentMap {
    lucidElement: LucidElement;
  }
  interface PhrasingContentMap {
    lucidElement: LucidElement;
  }
}

/** The `data` fields remark-rehype reads, without depending on its module augmentation. */
interface HastData {
  hName?: string;
  hProperties?: Properties;
}

export function element(hName: string, hProperties: Properties, children: RootContent[], block = false): LucidElement {
  return { type: 'lucidElement', data: { hName, hProperties, ...(block ? { block } : {}) }, children };
}

export function text(value: string): Text {
  return { type: 'text', value };
}

/** Adds HTML properties to what a standard mdast node becomes (`id` on a heading, `target` on a link). */
export function setHastProperties(node: Node, properties: Properties): void {
  const data = (node.data ??= {}) as HastData;
  data.hProperties = { ...data.hProperties, ...properties };
}

export function isBlockElement(node: RootContent): node is LucidElement {
  return node.type === 'lucidElement' && node.data.block === true;
}

/** The text of a node and its descendants, as a reader sees it. */
export function plainText(node: RootContent | PhrasingContent | Parent): string {
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('alt' in node) return node.alt ?? '';
  if ('children' in node) return (node.children as RootContent[]).map(plainText).join('');
  return '';
}

/** Parents whose children are flow content (blocks), as opposed to phrasing content. */
export const FLOW_PARENTS = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition', 'lucidElement']);
