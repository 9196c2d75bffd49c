import { htmlCommentRanges, lastStartingBefore, mergeRanges, obsidianCommentRanges, rangeContaining, type Range } from './comments';
import { markdownSkeleton } from './markdown-tree';

/** Where a link was written: a `[[wikilink]]`, a `[markdown](link)`, or a `[[link]]` in a front-matter value. */
export type LinkKind = 'wikilink' | 'markdown' | 'frontmatter';

/** One link as written in a note. */
export interface ParsedLink {
  kind: LinkKind;
  /** True for `![[...]]` and `![](...)`. */
  embed: boolean;
  /** The link exactly as written, `!` of an embed included: `[[a#b|c]]`, `![](x.png)`. */
  raw: string;
  /**
   * The path or name as written, without the `#subpath`; URL-decoded for markdown links
   * (`My%20Note.md` → `My Note.md`). `''` for a same-note link such as `[[#Heading]]` or `[x](#Heading)`.
   */
  target: string;
  /** `Heading`, `Heading#Sub` or `^blockid`, without the leading `#`. */
  subpath?: string;
  /** The alias of a wikilink (`[[a|shown]]`), the text of a markdown link, the alt text of an image. */
  display?: string;
  /** 1-based line in the body; 0 for front-matter links. */
  line: number;
  /** For front-matter links only: the property the link was found in. */
  key?: string;
}

/** Resolves a link target to a vault path, with Obsidian's rules. */
export interface LinkResolver {
  /**
   * The vault path (as spelled in the listing given to createLinkResolver) that `target`, written in the note
   * at `fromPath`, points to; null when nothing matches or the target is an external URL. An empty target
   * (`[[#Heading]]`) resolves to `fromPath` itself. `kind` defaults to `'wikilink'`.
   */
  resolve(target: string, fromPath: string, kind?: LinkKind): string | null;
}

/** One `[[...]]` or `![[...]]` found in a run of text, with its offsets. */
export interface WikiMatch {
  start: number;
  end: number;
  embed: boolean;
  target: string;
  subpath?: string;
  display?: string;
}

/** The parts of an mdast node this module reads; structural, so no dependency on `@types/mdast`. */
interface MdNode {
  type: string;
  position?: { start: { line: number; offset?: number }; end: { offset?: number } };
  children?: MdNode[];
  url?: string;
  alt?: string | null;
  value?: string;
}

const CODE_NODE_TYPES = new Set(['code', 'inlineCode']);

/**
 * The links in a note: the body's wikilinks, embeds, markdown links and images, then the wikilinks in
 * front-matter values (string values and lists of strings, top level only, as Obsidian reads properties).
 *
 * Front-matter links come first (line 0), then body links in the order they appear.
 *
 * Not links, and so not returned:
 * - anything inside inline code spans and fenced or indented code blocks;
 * - anything inside Obsidian comments `%%...%%` (inline or across lines; an unclosed `%%` hides the rest
 *   of the note), which Obsidian does not render. Note: Obsidian's own metadata cache (its backlinks and graph)
 *   does still index links inside `%%` comments; Lucid deliberately does not;
 * - anything inside HTML comments `<!-- ... -->`, which Obsidian's metadata cache ignores too;
 * - external markdown links and images (`https:`, `mailto:`, `obsidian:`, any URL scheme; see
 *   isExternalTarget), autolinks `<https://...>` and bare URLs: only vault links are returned;
 * - reference-style markdown links (`[text][ref]`), which Obsidian does not index;
 * - a wikilink spanning lines, an empty `[[]]`, and a `[[` escaped as `\[[`.
 *
 * In a GFM table a wikilink alias is written `[[name\|shown]]`; the backslash is dropped from the target.
 * `body` is the note without its front matter; lines are counted in it.
 */
export function parseLinks(body: string, frontmatter?: Record<string, unknown>): ParsedLink[] {
  const links: ParsedLink[] = [];
  if (frontmatter) links.push(...parseFrontmatterLinks(frontmatter));
  for (const located of locateBodyLinks(body)) links.push(located.link);
  return links;
}

/** A link of a note's body and where it is written: `raw` is `body.slice(start, end)`. */
export interface LocatedLink {
  start: number;
  end: number;
  link: ParsedLink;
  /** For a markdown link, its destination as written (`My%20Note.md#Part`), before URL-decoding. */
  url?: string;
}

/**
 * The links of a note's body, as {@link parseLinks} finds them and in the same order, each with its
 * offsets in `body`, so a link can be rewritten in place (lib/vault/notes/link-rewrite.ts).
 */
export function locateBodyLinks(body: string): LocatedLink[] {
  if (body.length === 0) return [];

  const codeRanges: Range[] = [];
  const htmlComments: Range[] = [];
  const mdNodes: MdNode[] = [];
  const tree = needsMarkdownParse(body) ? markdownSkeleton<MdNode>(body) : { type: 'root' };
  walk(tree, (node) => {
    if (CODE_NODE_TYPES.has(node.type)) {
      const range = rangeOf(node);
      if (range) codeRanges.push(range);
      return false;
    }
    if (node.type === 'html') {
      const range = rangeOf(node);
      if (range) htmlComments.push(...htmlCommentRanges(body, range));
      return false;
    }
    if (node.type === 'link' || node.type === 'image') mdNodes.push(node);
    return true;
  });
  codeRanges.sort((a, b) => a[0] - b[0]);

  const hidden = mergeRanges([...codeRanges, ...htmlComments, ...obsidianCommentRanges(body, codeRanges)]);
  const lineOf = lineLocator(body);

  const found: LocatedLink[] = [];
  const wikiRanges: Range[] = [];
  for (const match of findWikilinks(body, hidden)) {
    wikiRanges.push([match.start, match.end]);
    found.push({
      start: match.start,
      end: match.end,
      link: wikiToParsed(match, 'wikilink', body.slice(match.start, match.end), lineOf(match.start)),
    });
  }

  for (const node of mdNodes) {
    const range = rangeOf(node);
    if (!range || isInside(range[0], hidden) || overlapsAny(range, wikiRanges)) continue;
    const link = markdownToParsed(node, body.slice(range[0], range[1]), lineOf(range[0]));
    if (link) found.push({ start: range[0], end: range[1], link, url: node.url ?? '' });
  }

  found.sort((a, b) => a.start - b.start);
  return found;
}

/** Leading markers then four spaces or a tab: the only way to start an indented code block. */
const MAYBE_INDENTED_CODE = /(?:^|\n)[ >*+\-0-9.)]*(?: {4}|\t)/;

/**
 * False when the body cannot hold code, HTML comments or markdown links, so a wikilink scan alone is exact.
 * Parsing markdown is by far the slowest step (about 250 kB/s with GFM), and many notes are plain text.
 */
function needsMarkdownParse(body: string): boolean {
  return body.includes('`') || body.includes('~~~') || body.includes('](') || body.includes('<!--') || MAYBE_INDENTED_CODE.test(body);
}

function parseFrontmatterLinks(frontmatter: Record<string, unknown>): ParsedLink[] {
  const links: ParsedLink[] = [];
  for (const [key, value] of Object.entries(frontmatter)) {
    const strings = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
    for (const item of strings) {
      if (typeof item !== 'string') continue;
      for (const match of findWikilinks(item, [])) {
        const link = wikiToParsed(match, 'frontmatter', item.slice(match.start, match.end), 0);
        links.push({ ...link, key });
      }
    }
  }
  return links;
}

function wikiToParsed(match: WikiMatch, kind: LinkKind, raw: string, line: number): ParsedLink {
  const link: ParsedLink = { kind, embed: match.embed, raw, target: match.target, line };
  if (match.subpath !== undefined) link.subpath = match.subpath;
  if (match.display !== undefined) link.display = match.display;
  return link;
}

function markdownToParsed(node: MdNode, raw: string, line: number): ParsedLink | null {
  const embed = node.type === 'image';
  // Autolinks (`<https://x>`) and GFM bare URLs are link nodes too; only `[text](dest)` and `![alt](dest)` count.
  if (!raw.startsWith(embed ? '![' : '[')) return null;
  const url = (node.url ?? '').trim();
  if (url === '' || isExternalTarget(url)) return null;

  const hash = url.indexOf('#');
  const target = safeDecode(hash >= 0 ? url.slice(0, hash) : url).trim();
  const subpath = hash >= 0 ? safeDecode(url.slice(hash + 1)).trim() : '';
  if (target === '' && subpath === '') return null;

  const link: ParsedLink = { kind: 'markdown', embed, raw, target, line };
  if (subpath !== '') link.subpath = subpath;
  const display = embed ? (node.alt ?? '') : plainText(node);
  if (display !== '') link.display = display;
  return link;
}

/**
 * Wikilinks in `text` outside the sorted, non-overlapping `hidden` ranges. A link never crosses into a hidden
 * range and never spans lines; in `[[a [[b]]` and `[[[b]]]` the link is `[[b]]`; an empty `[[]]` is text; a `\`
 * before the `|` of a table alias is dropped. The renderer scans text nodes with the same function.
 */
export function findWikilinks(text: string, hidden: readonly (readonly [number, number])[] = []): WikiMatch[] {
  const matches: WikiMatch[] = [];
  let hiddenIndex = 0;
  let from = 0;
  for (;;) {
    const open = text.indexOf('[[', from);
    if (open < 0) break;
    while (hiddenIndex < hidden.length && hidden[hiddenIndex][1] <= open) hiddenIndex++;
    const next = hidden[hiddenIndex];
    if (next && next[0] <= open) {
      from = next[1];
      continue;
    }
    const close = text.indexOf(']]', open + 2);
    const limit = next ? next[0] : text.length;
    // No `]]` after this `[[`: none after a later one either.
    if (close < 0) break;
    if (close + 2 > limit) {
      // Every `[[` before the hidden range meets the same `]]`: jump to the range instead of
      // scanning to that `]]` again from each one (quadratic on a long run of `[[`).
      from = Math.max(open + 2, Math.min(close - 1, limit));
      continue;
    }
    const start = text.lastIndexOf('[[', close - 2);
    const inner = text.slice(start + 2, close);
    from = close + 2;
    if (inner.includes('\n') || isEscaped(text, start)) {
      from = start + 2;
      continue;
    }
    const parsed = splitWikiInner(inner);
    if (!parsed) continue;
    const embed = start > 0 && text[start - 1] === '!' && !isEscaped(text, start - 1);
    matches.push({ start: embed ? start - 1 : start, end: close + 2, embed, ...parsed });
  }
  return matches;
}

function splitWikiInner(inner: string): Pick<WikiMatch, 'target' | 'subpath' | 'display'> | null {
  let pathPart = inner;
  let display: string | undefined;
  const pipe = inner.indexOf('|');
  if (pipe >= 0) {
    pathPart = inner.slice(0, pipe);
    display = inner.slice(pipe + 1);
    if (pathPart.endsWith('\\')) pathPart = pathPart.slice(0, -1);
  }
  const hash = pathPart.indexOf('#');
  const target = (hash >= 0 ? pathPart.slice(0, hash) : pathPart).trim();
  const subpath = hash >= 0 ? pathPart.slice(hash + 1).trim() : '';
  if (target === '' && subpath === '') return null;
  const result: Pick<WikiMatch, 'target' | 'subpath' | 'display'> = { target };
  if (subpath !== '') result.subpath = subpath;
  if (display !== undefined && display !== '') result.display = display;
  return result;
}

function isInside(offset: number, sorted: readonly Range[]): boolean {
  return rangeContaining(offset, sorted) !== undefined;
}

function overlapsAny([start, end]: Range, sorted: readonly Range[]): boolean {
  const range = sorted[lastStartingBefore(end - 1, sorted)];
  return range !== undefined && range[1] > start;
}

function isEscaped(text: string, index: number): boolean {
  let slashes = 0;
  for (let i = index - 1; i >= 0 && text[i] === '\\'; i--) slashes++;
  return slashes % 2 === 1;
}

function walk(node: MdNode, visit: (node: MdNode) => boolean): void {
  if (!visit(node)) return;
  for (const child of node.children ?? []) walk(child, visit);
}

function rangeOf(node: MdNode): Range | null {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return start === undefined || end === undefined ? null : [start, end];
}

function plainText(node: MdNode): string {
  if (typeof node.value === 'string') return node.value;
  if (node.type === 'image') return node.alt ?? '';
  return (node.children ?? []).map(plainText).join('');
}

function lineLocator(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * True when a markdown link destination is a URL rather than a vault path: it starts with a scheme
 * (`http:`, `https:`, `mailto:`, `obsidian:`, `file:`, `zotero:` ...) or with `//`. A one-letter scheme is taken
 * for a Windows drive (`C:/x`), and `name: text` (a colon followed by a space) is not a scheme.
 * Callers must not count such links as broken.
 */
export function isExternalTarget(target: string): boolean {
  const value = target.trim();
  return /^[a-z][a-z0-9+.-]+:(?!\s)/i.test(value) || value.startsWith('//');
}
