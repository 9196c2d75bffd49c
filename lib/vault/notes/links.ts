import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

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

type Range = readonly [start: number, end: number];

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
  if (body.length === 0) return links;

  const codeRanges: Range[] = [];
  const htmlComments: Range[] = [];
  const mdNodes: MdNode[] = [];
  const tree = needsMarkdownParse(body)
    ? (fromMarkdown(body, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as unknown as MdNode)
    : { type: 'root' };
  walk(tree, (node) => {
    if (CODE_NODE_TYPES.has(node.type)) {
      const range = rangeOf(node);
      if (range) codeRanges.push(range);
      return false;
    }
    if (node.type === 'html') {
      const range = rangeOf(node);
      if (range) htmlComments.push(...findHtmlComments(body, range));
      return false;
    }
    if (node.type === 'link' || node.type === 'image') mdNodes.push(node);
    return true;
  });
  codeRanges.sort((a, b) => a[0] - b[0]);

  const hidden = mergeRanges([...codeRanges, ...htmlComments, ...findCommentRanges(body, codeRanges)]);
  const lineOf = lineLocator(body);

  const found: { offset: number; link: ParsedLink }[] = [];
  const wikiRanges: Range[] = [];
  for (const match of findWikilinks(body, hidden)) {
    wikiRanges.push([match.start, match.end]);
    found.push({
      offset: match.start,
      link: wikiToParsed(match, 'wikilink', body.slice(match.start, match.end), lineOf(match.start)),
    });
  }

  for (const node of mdNodes) {
    const range = rangeOf(node);
    if (!range || isInside(range[0], hidden) || overlapsAny(range, wikiRanges)) continue;
    const link = markdownToParsed(node, body.slice(range[0], range[1]), lineOf(range[0]));
    if (link) found.push({ offset: range[0], link });
  }

  found.sort((a, b) => a.offset - b.offset);
  for (const { link } of found) links.push(link);
  return links;
}

/** Leading markers then four spaces or a tab: the only way to start an indented code block. */
const MAYBE_INDENTED_CODE = /(?:^|\n)[ >*+\-0-9.)]*(?: {4}|\t)/;

/**
 * False when the body cannot hold code, HTML comments or markdown links, so a wikilink scan alone is exact.
 * Parsing markdown is by far the slowest step (about 250 kB/s with GFM), and many notes are plain text.
 */
function needsMarkdownParse(body: string): boolean {
  return (
    body.includes('`') ||
    body.includes('~~~') ||
    body.includes('](') ||
    body.includes('<!--') ||
    MAYBE_INDENTED_CODE.test(body)
  );
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
    if (close < 0 || close + 2 > limit) {
      from = open + 2;
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

/** `<!-- ... -->` inside the html node at `[start, end)`; an unclosed comment runs to the node's end. */
function findHtmlComments(text: string, [start, end]: Range): Range[] {
  const ranges: Range[] = [];
  let from = start;
  for (;;) {
    const open = text.indexOf('<!--', from);
    if (open < 0 || open >= end) break;
    const close = text.indexOf('-->', open + 4);
    const stop = close < 0 || close + 3 > end ? end : close + 3;
    ranges.push([open, stop]);
    from = stop;
  }
  return ranges;
}

/** `%%...%%` outside code; an unclosed `%%` runs to the end of the text. */
function findCommentRanges(text: string, code: readonly Range[]): Range[] {
  const ranges: Range[] = [];
  let from = 0;
  let openAt = -1;
  for (;;) {
    const at = text.indexOf('%%', from);
    if (at < 0) break;
    const inCode = rangeContaining(at, code);
    if (inCode) {
      from = inCode[1];
      continue;
    }
    if (openAt < 0) {
      openAt = at;
    } else {
      ranges.push([openAt, at + 2]);
      openAt = -1;
    }
    from = at + 2;
  }
  if (openAt >= 0) ranges.push([openAt, text.length]);
  return ranges;
}

function mergeRanges(ranges: Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** The index of the last range starting at or before `offset` in sorted, non-overlapping ranges; -1 if none. */
function lastStartingBefore(offset: number, sorted: readonly Range[]): number {
  let low = 0;
  let high = sorted.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if (sorted[mid][0] <= offset) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

function rangeContaining(offset: number, sorted: readonly Range[]): Range | undefined {
  const range = sorted[lastStartingBefore(offset, sorted)];
  return range && offset < range[1] ? range : undefined;
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

/**
 * A resolver over every file in the vault (`allPaths`: vault-relative, `/`-separated, notes `*.md` and
 * attachments alike; `.obsidian/` should be left out). Lookup maps are built once here, so each resolve()
 * is a few map reads, whatever the vault's size.
 *
 * Obsidian's rules, in order:
 * 1. wikilinks and front-matter links: the exact vault path, exact case (`[[folder/name]]` → `folder/name.md`);
 *    markdown links: the path relative to the linking note's folder (`./`, `../` understood);
 * 2. wikilinks: a file of that name in the linking note's own folder (an ancestor folder does not count);
 *    markdown links: the vault path (a leading `/` is the vault root);
 * 3. the file of that name with the shortest path string anywhere in the vault (ties: exact case, then
 *    alphabetical); a target with folders (`folder/name`) only matches that path or paths ending in
 *    `/folder/name.md`.
 * Names match case-insensitively, as in Obsidian; within steps 2 and 3 (and both markdown path steps) an
 * exact-case spelling wins over another spelling of the same path. So a case-mismatched exact path
 * (`[[PEOPLE/ana]]` for `people/ana.md`) is found in step 3, after a same-folder match.
 *
 * A target with no extension gets `.md` (`[[note]]` → `note.md`). A target whose name has an extension
 * (`x.png`, `Books.base`, `Release 1.2`) is looked up as written first, then with `.md`. A wikilink starting
 * with `./` or `../` is resolved relative to the linking note, like a markdown link. An empty target resolves
 * to `fromPath`; an external URL (isExternalTarget) in a markdown link resolves to null.
 */
export function createLinkResolver(allPaths: readonly string[]): LinkResolver {
  const exact = new Set<string>();
  const byLowerPath = new Map<string, string[]>();
  const byLowerName = new Map<string, string[]>();

  for (const raw of allPaths) {
    const path = normalizeVaultPath(raw);
    if (path === '' || exact.has(path)) continue;
    exact.add(path);
    pushTo(byLowerPath, path.toLowerCase(), path);
    pushTo(byLowerName, baseName(path).toLowerCase(), path);
  }
  for (const list of byLowerPath.values()) list.sort(compareStrings);
  for (const list of byLowerName.values()) list.sort((a, b) => a.length - b.length || compareStrings(a, b));

  const lookupPath = (path: string | null): string | null => {
    if (path === null || path === '') return null;
    if (exact.has(path)) return path;
    return byLowerPath.get(path.toLowerCase())?.[0] ?? null;
  };

  const lookupByName = (name: string): string | null => {
    const clean = stripDotSegments(name);
    if (clean === '') return null;
    const candidates = byLowerName.get(baseName(clean).toLowerCase());
    if (!candidates) return null;
    const lower = clean.toLowerCase();
    const suffix = `/${clean}`;
    const lowerSuffix = suffix.toLowerCase();
    const hasFolder = clean.includes('/');
    let best: string | null = null;
    for (const path of candidates) {
      if (best !== null && path.length > best.length) break;
      const lowerPath = path.toLowerCase();
      if (hasFolder && lowerPath !== lower && !lowerPath.endsWith(lowerSuffix)) continue;
      if (path === clean || path.endsWith(suffix)) return path;
      best ??= path;
    }
    return best;
  };

  const resolveName = (name: string, fromDir: string, kind: LinkKind): string | null => {
    const relativeSyntax = name.startsWith('./') || name.startsWith('../');
    const absolute = name.startsWith('/');
    if (kind === 'markdown' || relativeSyntax) {
      const relative = absolute ? null : lookupPath(joinPath(fromDir, name));
      return relative ?? lookupPath(normalizeSegments(name.replace(/^\/+/, ''))) ?? lookupByName(name);
    }
    const vaultPath = normalizeSegments(name.replace(/^\/+/, ''));
    if (vaultPath !== null && exact.has(vaultPath)) return vaultPath;
    const sameFolder = absolute || fromDir === '' ? null : lookupPath(joinPath(fromDir, name));
    return sameFolder ?? lookupByName(name);
  };

  return {
    resolve(target, fromPath, kind = 'wikilink') {
      const from = normalizeVaultPath(fromPath);
      const name = target.trim();
      if (name === '') return lookupPath(from) ?? (from === '' ? null : from);
      if (kind === 'markdown' && isExternalTarget(name)) return null;
      const fromDir = dirName(from);
      for (const candidate of candidateFileNames(name)) {
        const hit = resolveName(candidate, fromDir, kind);
        if (hit !== null) return hit;
      }
      return null;
    },
  };
}

/**
 * Backlinks for every linked note: target path → the notes linking to it, with the line of each link
 * (0 for a front-matter link), sorted by source path then line. A note's links to itself (`[[#Heading]]`)
 * are left out, and so are unresolved links and external URLs.
 */
export function computeBacklinks(
  linksByPath: ReadonlyMap<string, readonly ParsedLink[]>,
  resolver: LinkResolver,
): Map<string, { from: string; line: number }[]> {
  const backlinks = new Map<string, { from: string; line: number }[]>();
  for (const [from, links] of linksByPath) {
    for (const link of links) {
      if (link.kind === 'markdown' && isExternalTarget(link.target)) continue;
      const to = resolver.resolve(link.target, from, link.kind);
      if (to === null || to === from) continue;
      pushTo(backlinks, to, { from, line: link.line });
    }
  }
  for (const list of backlinks.values()) {
    list.sort((a, b) => compareStrings(a.from, b.from) || a.line - b.line);
  }
  return backlinks;
}

function candidateFileNames(name: string): string[] {
  if (name.toLowerCase().endsWith('.md')) return [name];
  return /\.[^.\s/]+$/.test(baseName(name)) ? [name, `${name}.md`] : [`${name}.md`];
}

function normalizeVaultPath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/^\/+/, '').replace(/\/{2,}/g, '/');
}

/** Resolves `.` and `..`; null when the path climbs above the vault root. */
function normalizeSegments(path: string): string | null {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else {
      out.push(segment);
    }
  }
  return out.join('/');
}

function joinPath(dir: string, relative: string): string | null {
  return normalizeSegments(dir === '' ? relative : `${dir}/${relative}`);
}

/** `../../a/b.md` → `a/b.md`: the part of a relative path a by-name lookup can use. */
function stripDotSegments(path: string): string {
  return path
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..')
    .join('/');
}

function dirName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
