import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/**
 * Parsing markdown is the dearest step of reading a note (micromark reads some long notes at tens of
 * KB a second), and a note's links, headings and comments each need the tree of the same body, one
 * after the other: the last few bodies' trees are kept, so each body is parsed once. Callers only
 * read the tree; it must never be changed.
 */
const KEPT = 2;
/** Longer bodies are not kept: their trees are large, and the time to parse them twice is small beside the rest. */
const KEPT_MAX_CHARS = 1_000_000;
const recent: { text: string; tree: unknown }[] = [];

/** The mdast (with GFM) of `text`, with node positions, parsed once for consecutive callers. */
export function markdownTree<T>(text: string): T {
  for (const entry of recent) if (entry.text === text) return entry.tree as T;
  const tree = fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  if (text.length > KEPT_MAX_CHARS) return tree as T;
  recent.unshift({ text, tree });
  if (recent.length > KEPT) recent.pop();
  return tree as T;
}
