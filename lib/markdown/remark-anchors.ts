import type { Parent, Root, RootContent } from 'mdast';
import { plainText, setHastProperties, text } from './nodes';
import { createSlugger } from './slug';

const TRAILING_BLOCK_ID = /(^|\s)\^([A-Za-z0-9-]+)\s*$/;

export interface AnchorOptions {
  /** Give headings and blocks their ids; false inside an embed, whose ids would collide with the host note's. */
  ids?: boolean;
}

/**
 * Link targets inside a note: each heading gets `id="<slug>"` (unique in the note), and each block carrying an
 * Obsidian block id (`text ^abc`, or `^abc` on its own line after a list, table or quote) gets `id="^abc"`, with
 * the marker removed from the text. rehype-sanitize then prefixes the ids with `user-content-`, which is what
 * links built by fragmentHref/noteHref point to.
 */
export function remarkAnchors(options: AnchorOptions = {}) {
  return (tree: Root): void => {
    addAnchors(tree, options);
  };
}

/** Adds the anchors; returns the nodes carrying each block id (`^abc` → node), for `![[note#^abc]]`. */
export function addAnchors(tree: Root, { ids = true }: AnchorOptions = {}): Map<string, RootContent> {
  const slug = createSlugger();
  const blocks = new Map<string, RootContent>();
  const visit = (parent: Parent): void => {
    const next: RootContent[] = [];
    for (const child of parent.children) {
      if (child.type === 'heading') {
        if (ids) setHastProperties(child, { id: slug(plainText(child)) });
      } else if (child.type === 'paragraph') {
        const blockId = takeBlockId(child);
        if (blockId !== null) {
          const target = child.children.length === 0 ? next[next.length - 1] : child;
          if (target) {
            if (ids) setHastProperties(target, { id: `^${blockId}` });
            if (!blocks.has(blockId)) blocks.set(blockId, target);
          }
          if (child.children.length === 0) continue;
        }
      }
      if ('children' in child) visit(child);
      next.push(child);
    }
    parent.children = next;
  };
  visit(tree);
  return blocks;
}

/** Removes a trailing ` ^blockid` from a paragraph and returns the id; null when there is none. */
function takeBlockId(paragraph: Extract<RootContent, { type: 'paragraph' }>): string | null {
  const last = paragraph.children[paragraph.children.length - 1];
  if (last?.type !== 'text') return null;
  const match = TRAILING_BLOCK_ID.exec(last.value);
  if (!match) return null;
  const rest = last.value.slice(0, match.index).trimEnd();
  paragraph.children = rest === '' ? paragraph.children.slice(0, -1) : [...paragraph.children.slice(0, -1), text(rest)];
  if (paragraph.children.length === 1 && paragraph.children[0].type === 'break') paragraph.children = [];
  return match[2];
}
