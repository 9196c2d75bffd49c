import { createHash } from 'node:crypto';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/**
 * Parsing markdown is the dearest step of reading a note (micromark reads about 250 kB a second), and
 * one process reads the same bodies again and again: `lucid init` checks links, then the search index
 * is built, then lint and the Health page read every note, and each note's links, headings and comments
 * need the same body's markdown. Of the tree, Lucid reads only the nodes that hide text or link: code,
 * inline code, HTML, and links and images. So a body is parsed once per process: its skeleton (those
 * nodes, in document order, links and images with their subtrees) is kept by a hash of the body, in a
 * bounded cache. Callers only read the skeleton; it must never be changed.
 */
const KEPT_TYPES = new Set(['code', 'inlineCode', 'html', 'link', 'image']);
/** Skeletons kept (by hash of the body, most recently used last): a vault of this many notes parses once. */
const KEPT_ENTRIES = 20_000;
/** Skeletons with more nodes than this are not kept (a generated table of thousands of links). */
const KEPT_MAX_NODES = 5_000;

interface TreeNode {
  type: string;
  children?: TreeNode[];
}

const kept = new Map<string, TreeNode>();

/**
 * The skeleton of `text`'s mdast (with GFM and node positions): a root whose children are the body's
 * code, inline code, HTML, link and image nodes in document order, as the full tree holds them. A
 * walker that stops at code and HTML and collects links and images sees what it would in the full tree.
 */
export function markdownSkeleton<T>(text: string): T {
  const key = createHash('sha1').update(text).digest('base64');
  const found = kept.get(key);
  if (found) {
    kept.delete(key);
    kept.set(key, found);
    return found as T;
  }
  const tree = fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as TreeNode;
  const children: TreeNode[] = [];
  const visit = (node: TreeNode): void => {
    if (KEPT_TYPES.has(node.type)) {
      children.push(node);
      return;
    }
    for (const child of node.children ?? []) visit(child);
  };
  visit(tree);
  const skeleton: TreeNode = { type: 'root', children };
  if (children.length > KEPT_MAX_NODES) return skeleton as T;
  kept.set(key, skeleton);
  if (kept.size > KEPT_ENTRIES) kept.delete(kept.keys().next().value as string);
  return skeleton as T;
}
