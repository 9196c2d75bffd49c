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
 * The wikilinks in one mdast text node's value, with the rules of lib/vault/links.ts: no link across lines,
 * in `[[a [[b]]` the link is `[[b]]`, an empty `[[]]` is text. In a GFM table the parser has already turned the
 * alias separator `\|` into `|`; a `\` left before `|` is dropped all the same.
 */
export function findWikilinks(text: string): WikilinkToken[] {
  const tokens: WikilinkToken[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf('[[', from);
    if (open < 0) break;
    const close = text.indexOf(']]', open + 2);
    if (close < 0) break;
    const start = text.lastIndexOf('[[', close - 2);
    const inner = text.slice(start + 2, close);
    if (inner.includes('\n')) {
      from = start + 2;
      continue;
    }
    from = close + 2;
    const parts = splitInner(inner);
    if (!parts) continue;
    const embed = start > 0 && text[start - 1] === '!';
    tokens.push({ start: embed ? start - 1 : start, end: close + 2, embed, ...parts });
  }
  return tokens;
}

function splitInner(inner: string): Pick<WikilinkToken, 'target' | 'subpath' | 'alias'> | null {
  let pathPart = inner;
  let alias: string | undefined;
  const pipe = inner.indexOf('|');
  if (pipe >= 0) {
    pathPart = inner.slice(0, pipe);
    alias = inner.slice(pipe + 1).trim();
    if (pathPart.endsWith('\\')) pathPart = pathPart.slice(0, -1);
  }
  const hash = pathPart.indexOf('#');
  const target = (hash >= 0 ? pathPart.slice(0, hash) : pathPart).trim();
  const subpath = hash >= 0 ? pathPart.slice(hash + 1).trim() : '';
  if (target === '' && subpath === '') return null;
  return {
    target,
    ...(subpath !== '' ? { subpath } : {}),
    ...(alias ? { alias } : {}),
  };
}

/** `300` or `300x200` after the `|` of an image embed (or at the end of a markdown image's alt text). */
export function parseImageSize(value: string): { width: number; height?: number } | null {
  const match = /^(\d{1,5})(?:x(\d{1,5}))?$/.exec(value.trim());
  if (!match) return null;
  return { width: Number(match[1]), ...(match[2] ? { height: Number(match[2]) } : {}) };
}
