import { editFrontmatter, parseFrontmatter, type FrontmatterData, type ParsedFrontmatter } from './frontmatter';
import { findWikilinks } from './links';

/**
 * Writing a link again with another target, in place and in its own style: the pure text edits a
 * move makes (notes/move-plan.ts decides which links and which targets).
 */

/** Replace `text.slice(start, end)` with `text`. */
export interface TextEdit {
  start: number;
  end: number;
  text: string;
}

/** The path from the folder `fromDir` to `path`, with `..` where it climbs: `relativeLinkPath('a/b', 'a/c/d.md')` is `../c/d.md`. */
export function relativeLinkPath(fromDir: string, path: string): string {
  const from = fromDir === '' ? [] : fromDir.split('/');
  const to = path.split('/');
  let common = 0;
  while (common < from.length && common < to.length - 1 && from[common] === to[common]) common += 1;
  return [...from.slice(common).map(() => '..'), ...to.slice(common)].join('/');
}

// ---------------------------------------------------------------------------------------------
// Rewriting one link's text

/**
 * The wikilink `raw` (`[[old#Part|shown]]`, `![[old]]`, `[[old\|shown]]` in a table) with its target
 * replaced by `target`: the embed mark, subpath, alias and table escape stay as written.
 */
export function rewriteWikilink(raw: string, target: string): string {
  const open = raw.startsWith('!') ? 3 : 2;
  const inner = raw.slice(open, -2);
  const pipe = inner.indexOf('|');
  let pathPart = pipe >= 0 ? inner.slice(0, pipe) : inner;
  const escaped = pipe >= 0 && pathPart.endsWith('\\');
  if (escaped) pathPart = pathPart.slice(0, -1);
  const hash = pathPart.indexOf('#');
  const subpath = hash >= 0 ? pathPart.slice(hash) : '';
  return `${raw.slice(0, open)}${target}${subpath}${escaped ? '\\' : ''}${pipe >= 0 ? inner.slice(pipe) : ''}]]`;
}

/**
 * The markdown link or image `raw` whose destination is written `url` (`My%20Note.md#Part`), with
 * its path replaced by `path` (decoded): the `#subpath`, a title and the link text stay as written;
 * the new path is URL-encoded as the old one was (a `<...>` destination stays raw). Null when the
 * destination cannot be found in `raw` as written (an escaped character in it).
 */
export function rewriteMarkdownLink(raw: string, url: string, path: string): string | null {
  if (url === '') return null;
  for (let at = raw.lastIndexOf(url); at > 0; at = raw.lastIndexOf(url, at - 1)) {
    let before = at - 1;
    const angle = raw[before] === '<';
    if (angle) before -= 1;
    while (before > 0 && /\s/.test(raw[before])) before -= 1;
    if (raw[before] !== '(' || raw[before - 1] !== ']') continue;
    const hash = url.indexOf('#');
    const written = hash >= 0 ? url.slice(0, hash) : url;
    const encoded = angle && !/[<>\n]/.test(path) ? path : encodeLinkPath(path, written);
    return `${raw.slice(0, at)}${encoded}${url.slice(written.length)}${raw.slice(at + url.length)}`;
  }
  return null;
}

/**
 * A path for a markdown link destination, encoded as the link it replaces was: when `written` held
 * `%XX` escapes, every character but letters, digits, `-._~!$&'*+,;=:@` and `/` is escaped
 * (letters outside ASCII only if `written` escaped them too); otherwise only what would end or
 * change the destination (spaces, `%`, `()<>`, `\`, `#`, `?`) is.
 */
function encodeLinkPath(path: string, written: string): string {
  const encoded = /%[0-9a-f]{2}/i.test(written);
  const rawUnicode = /[^\u0000-\u007f]/.test(written);
  let out = '';
  for (const char of path) {
    const keep = encoded ? /[A-Za-z0-9\-._~!$&'*+,;=:@/]/.test(char) || (rawUnicode && char > '\u007f') : !/[\s%()<>\\#?]/.test(char);
    out += keep ? char : percentEncode(char);
  }
  return out;
}

function percentEncode(char: string): string {
  return [...Buffer.from(char, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

/** Applies non-overlapping edits to `text`. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let out = text;
  for (const edit of [...edits].sort((a, b) => b.start - a.start)) out = `${out.slice(0, edit.start)}${edit.text}${out.slice(edit.end)}`;
  return out;
}

// ---------------------------------------------------------------------------------------------
// Front matter

/** The top-level text values of front matter, list items included: where Obsidian reads property links. */
export function frontmatterStrings(data: FrontmatterData): string[] {
  const out: string[] = [];
  for (const value of Object.values(data)) {
    if (typeof value === 'string') out.push(value);
    else if (Array.isArray(value)) for (const item of value) if (typeof item === 'string') out.push(item);
  }
  return out;
}

/** `value` with each wikilink whose target `decisions` names written with the new target. */
function rewriteLinksIn(value: string, decisions: ReadonlyMap<string, string>): string {
  const edits: TextEdit[] = [];
  for (const match of findWikilinks(value)) {
    const target = decisions.get(match.target);
    if (target !== undefined) edits.push({ start: match.start, end: match.end, text: rewriteWikilink(value.slice(match.start, match.end), target) });
  }
  return applyEdits(value, edits);
}

/**
 * `text` with the front-matter links whose targets `decisions` names written again, in place and in
 * their quoting (`"..."` escaped, `'...'` doubled), so only those characters change; when that does
 * not give exactly the expected properties (a link split over lines, an escape inside it), each
 * changed property is written again whole (Obsidian style). Null when neither gives them.
 */
export function rewriteFrontmatterLinks(text: string, parsed: ParsedFrontmatter & { ok: true }, decisions: ReadonlyMap<string, string>): string | null {
  const expected: FrontmatterData = {};
  const changed: FrontmatterData = {};
  for (const [key, value] of Object.entries(parsed.data)) {
    let next = value;
    if (typeof value === 'string') next = rewriteLinksIn(value, decisions);
    else if (Array.isArray(value)) next = value.map((item) => (typeof item === 'string' ? rewriteLinksIn(item, decisions) : item));
    Object.defineProperty(expected, key, { value: next, enumerable: true, writable: true, configurable: true });
    if (JSON.stringify(next) !== JSON.stringify(value))
      Object.defineProperty(changed, key, { value: next, enumerable: true, writable: true, configurable: true });
  }
  if (Object.keys(changed).length === 0) return text;
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const parts = parseFrontmatter(text.slice(bom)).parts;
  const body = parts.body;
  const gives = (candidate: string): boolean => {
    const reparsed = parseFrontmatter(candidate.slice(bom));
    return reparsed.ok && reparsed.parts.body === body && JSON.stringify(reparsed.data) === JSON.stringify(expected);
  };

  const source = parts.frontmatter;
  const edits: TextEdit[] = [];
  for (const match of findWikilinks(source, commentLines(source))) {
    const target = decisions.get(match.target);
    if (target === undefined) continue;
    const link = rewriteWikilink(source.slice(match.start, match.end), target);
    const quote = quoteAt(source, match.start);
    const escaped = quote === '"' ? link.replace(/[\\"]/g, '\\$&') : quote === "'" ? link.replace(/'/g, "''") : link;
    edits.push({ start: bom + parts.frontmatterStart + match.start, end: bom + parts.frontmatterStart + match.end, text: escaped });
  }
  const inPlace = applyEdits(text, edits);
  if (gives(inPlace)) return inPlace;
  try {
    const whole = editFrontmatter(text, changed).text;
    if (gives(whole)) return whole;
  } catch {
    // the front matter cannot be edited line by line either
  }
  return null;
}

/** The YAML comment lines of a front-matter block, as ranges a link scan skips. */
function commentLines(source: string): [number, number][] {
  const ranges: [number, number][] = [];
  let start = 0;
  for (const line of source.split('\n')) {
    if (/^\s*#/.test(line)) ranges.push([start, start + line.length]);
    start += line.length + 1;
  }
  return ranges;
}

/** The quote (`"`, `'`, or `''` for none) of the YAML scalar open at `offset`, read from the start of its line. */
function quoteAt(source: string, offset: number): string {
  let quote = '';
  for (let i = source.lastIndexOf('\n', offset - 1) + 1; i < offset; i += 1) {
    const char = source[i];
    if (quote === '') {
      if (char === '"' || char === "'") quote = char;
    } else if (quote === '"') {
      if (char === '\\') i += 1;
      else if (char === '"') quote = '';
    } else if (char === "'") {
      if (source[i + 1] === "'") i += 1;
      else quote = '';
    }
  }
  return quote;
}
