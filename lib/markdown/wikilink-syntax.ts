import { findWikilinks as scanWikilinks } from '../vault/notes/links';

/** One `[[...]]` or `![[...]]` in a run of text. */
export interface WikilinkToken {
  start: number;
  end: number;
  embed: boolean;
  /** The name or path as written, without `#subpath`; `''` for `[[#Heading]]`. */
  target: string;
  /** `Heading`, `Parent#Child` or `^blockid`, without the leading `#`. */
  subpath?: string;
  /** The text after `|`: an alias for links, a size (`300`, `300x200`) or alt text for image embeds. */
  alias?: string;
}

/**
 * The wikilinks in one mdast text node's value, found by the same scanner as the vault's link index
 * (lib/vault/links.ts), so a link the dashboard draws is a link backlinks and lint count. In a GFM table
 * the parser has already turned the alias separator `\|` into `|`.
 */
export function findWikilinks(text: string): WikilinkToken[] {
  return scanWikilinks(text).map(({ start, end, embed, target, subpath, display }) => {
    const alias = display?.trim();
    return { start, end, embed, target, ...(subpath ? { subpath } : {}), ...(alias ? { alias } : {}) };
  });
}

/** `300` or `300x200` after the `|` of an image embed (or at the end of a markdown image's alt text). */
export function parseImageSize(value: string): { width: number; height?: number } | null {
  const match = /^(\d{1,5})(?:x(\d{1,5}))?$/.exec(value.trim());
  if (!match) return null;
  return { width: Number(match[1]), ...(match[2] ? { height: Number(match[2]) } : {}) };
}
