import { createHash } from 'node:crypto';
import matter from 'gray-matter';
import YAML, { isCollection, isMap, isScalar, type Document, type Pair } from 'yaml';
import { isVaultError, VaultError } from '../errors';
import { frontmatterParses } from './parse-count';

/** Front matter larger than this is refused (a note's properties, not a data dump). */
const MAX_FRONTMATTER_BYTES = 64 * 1024;
const MAX_ALIASES = 100;
const MAX_NESTING = 64;

/** Front-matter values as Lucid hands them out: fresh plain objects, YAML dates kept as strings. */
export type FrontmatterData = Record<string, unknown>;

/** The bytes of a file decoded as a note, or why they cannot be. */
export type DecodedText = { ok: true; text: string; bom: boolean } | { ok: false; reason: 'binary' | 'invalid_utf8'; message: string };

/** sha256 of the bytes, hex: the `expected_hash` every write names. */
export function hashBytes(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Decodes a file as strict UTF-8. NUL bytes mean binary; invalid sequences are reported, never
 * replaced by U+FFFD, so nothing undecodable is ever written back.
 */
export function decodeNoteBytes(bytes: Uint8Array): DecodedText {
  const head = bytes.subarray(0, 8192);
  if (head.includes(0)) {
    return { ok: false, reason: 'binary', message: 'The file holds binary data (NUL bytes), not text.' };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { ok: false, reason: 'invalid_utf8', message: 'The file is not valid UTF-8 text.' };
  }
  const bom = text.charCodeAt(0) === 0xfeff;
  return { ok: true, text: bom ? text.slice(1) : text, bom };
}

/** Where the front matter sits in a note's text (BOM already removed). */
export interface NoteParts {
  /** Whether the note opens with a `---` line that a later `---` line closes. */
  hasFrontmatter: boolean;
  /** The language after the opening `---` (`''` for plain YAML), lowercased. */
  language: string;
  /** The raw text between the delimiters, without its final line break. */
  frontmatter: string;
  /** Offset where the raw front matter starts and ends in the text. */
  frontmatterStart: number;
  frontmatterEnd: number;
  /** Everything after the closing delimiter line. */
  body: string;
  bodyStart: number;
  /** The note's line break, kept on every line Lucid writes. */
  eol: '\n' | '\r\n';
}

const OPEN = /^---([^\r\n-][^\r\n]*)?\r?\n|^---\r?\n/;

/**
 * Splits a note into front matter and body the way Obsidian does: only a first line of exactly
 * `---` (optionally with a language) closed by a later line of exactly `---`. A `---` thematic
 * break with no closing line, or a `----` line, is body text and is never swallowed.
 */
export function splitNote(text: string): NoteParts {
  const eol: '\n' | '\r\n' = /\r\n/.test(text.slice(0, text.indexOf('\n') + 1)) ? '\r\n' : '\n';
  const none: NoteParts = {
    hasFrontmatter: false,
    language: '',
    frontmatter: '',
    frontmatterStart: 0,
    frontmatterEnd: 0,
    body: text,
    bodyStart: 0,
    eol,
  };
  const open = OPEN.exec(text);
  if (!open) return none;
  const language = (open[1] ?? '').trim().toLowerCase();
  const start = open[0].length;
  const close = /^---[ \t]*(\r?\n|$)/gm;
  close.lastIndex = start;
  let match: RegExpExecArray | null;
  while ((match = close.exec(text))) {
    if (match.index < start) continue;
    if (match.index !== 0 && text[match.index - 1] !== '\n') continue;
    let end = match.index;
    if (end > start) end -= text[end - 2] === '\r' ? 2 : 1;
    if (end < start) end = start;
    return {
      hasFrontmatter: true,
      language,
      frontmatter: text.slice(start, end),
      frontmatterStart: start,
      frontmatterEnd: end,
      body: text.slice(match.index + match[0].length),
      bodyStart: match.index + match[0].length,
      eol,
    };
  }
  return none;
}

function refuseEngine(name: string) {
  return () => {
    throw new VaultError('invalid_frontmatter', `Front matter in ${name} is not supported; only YAML is read, and nothing in it is ever run.`);
  };
}

/** The only YAML parser Lucid uses: YAML 1.2 core schema, unique keys, alias and size limits. */
function parseYamlDocument(source: string): { data: FrontmatterData; doc: Document } {
  if (Buffer.byteLength(source) > MAX_FRONTMATTER_BYTES) {
    throw new VaultError('invalid_frontmatter', `Front matter is larger than ${MAX_FRONTMATTER_BYTES / 1024} KiB.`);
  }
  let depth = 0;
  for (const char of source) {
    if (char === '[' || char === '{') depth += 1;
    else if (char === ']' || char === '}') depth = Math.max(0, depth - 1);
    if (depth > MAX_NESTING) {
      throw new VaultError('invalid_frontmatter', `Front matter is nested more than ${MAX_NESTING} levels deep.`);
    }
  }
  frontmatterParses.count += 1;
  const doc = YAML.parseDocument(source, {
    version: '1.2',
    schema: 'core',
    uniqueKeys: true,
    merge: false,
    prettyErrors: true,
    strict: true,
    logLevel: 'error',
  });
  let complexKey: number | null = null;
  YAML.visit(doc, {
    Pair(_, pair) {
      if (isCollection(pair.key)) {
        complexKey = (pair.key as { range?: [number, number, number] }).range?.[0] ?? 0;
        return YAML.visit.BREAK;
      }
      return undefined;
    },
  });
  if (complexKey !== null) {
    const line = source.slice(0, complexKey).split('\n').length;
    const braces = hasPlaceholder(source) ? ' (an unfilled {{placeholder}} from a template?)' : '';
    throw new VaultError('invalid_frontmatter', `Invalid YAML on line ${line}: a property name cannot be a list or a mapping${braces}.`, { line });
  }
  if (doc.errors.length > 0) {
    const first = doc.errors[0];
    const line = first.linePos?.[0]?.line;
    const reason = first.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    throw new VaultError('invalid_frontmatter', line ? `Invalid YAML on line ${line}: ${reason}` : `Invalid YAML: ${reason}`, { line });
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIASES });
  } catch (error) {
    throw new VaultError('invalid_frontmatter', `Invalid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (value === null || value === undefined) return { data: {}, doc };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new VaultError('invalid_frontmatter', 'Front matter must be a list of `key: value` properties.');
  }
  return { data: plainCopy(value) as FrontmatterData, doc };
}

/**
 * The YAML document behind a successful {@link parseFrontmatter} result, and how many characters
 * gray-matter put in front of the raw front matter, so that {@link editFrontmatter} edits lines
 * without parsing the same YAML a second time.
 */
const documents = new WeakMap<ParsedFrontmatter, { doc: Document; shift: number }>();

/** A deep copy made of fresh plain objects, where `__proto__` can only ever be an own key. */
function plainCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plainCopy);
  if (value instanceof Date) return value.toISOString();
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      Object.defineProperty(out, key, {
        value: plainCopy((value as Record<string, unknown>)[key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/** The result of reading a note's front matter. */
export type ParsedFrontmatter = { ok: true; data: FrontmatterData; parts: NoteParts } | { ok: false; error: string; line?: number; parts: NoteParts };

/**
 * Reads a note's front matter through gray-matter, with the `js` and `javascript` engines
 * replaced by ones that refuse (gray-matter evaluates them otherwise), the YAML engine replaced by
 * {@link parseYamlDocument}, an options object every time (so nothing is cached) and a fresh object
 * out. Never throws for bad input: the failure is returned so listings can report it per note.
 */
export function parseFrontmatter(text: string): ParsedFrontmatter {
  const parts = splitNote(text);
  if (!parts.hasFrontmatter) return { ok: true, data: {}, parts };
  if (parts.language !== '' && parts.language !== 'yaml' && parts.language !== 'yml') {
    return { ok: false, error: `Front matter in "${parts.language}" is not supported; only YAML is read.`, parts };
  }
  let parsedDoc: { doc: Document; shift: number } | null = null;
  const parseYaml = (source: string) => {
    const { data, doc } = parseYamlDocument(source);
    const shift = source.length - parts.frontmatter.length;
    if (shift >= 0 && source.endsWith(parts.frontmatter)) parsedDoc = { doc, shift };
    return data;
  };
  try {
    const file = matter(`---\n${parts.frontmatter}\n---\n`, {
      language: 'yaml',
      delimiters: '---',
      engines: {
        yaml: { parse: parseYaml, stringify: () => '' },
        js: { parse: refuseEngine('JavaScript'), stringify: () => '' },
        javascript: { parse: refuseEngine('JavaScript'), stringify: () => '' },
      },
    } as unknown as Parameters<typeof matter>[1]);
    const result: ParsedFrontmatter = { ok: true, data: plainCopy(file.data ?? {}) as FrontmatterData, parts };
    if (parsedDoc) documents.set(result, parsedDoc);
    return result;
  } catch (error) {
    const message = isVaultError(error) ? error.message : `Invalid front matter: ${(error as Error).message.split('\n')[0]}`;
    const line = isVaultError(error) ? (error.details?.line as number | undefined) : undefined;
    return { ok: false, error: message, line, parts };
  }
}

/** The YAML for one property, Obsidian style (block lists, links quoted), without a final break. */
function stringifyField(key: string, value: unknown): string {
  return YAML.stringify({ [key]: value }, { version: '1.2', lineWidth: 0, indentSeq: true }).replace(/\n$/, '');
}

/** Serializes properties for a new note: `---`, one property after another, `---`. */
export function composeNote(data: FrontmatterData, body: string, eol: '\n' | '\r\n' = '\n'): string {
  const lines = Object.entries(data)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => stringifyField(key, value));
  const block = lines.length > 0 ? `${lines.join('\n')}\n` : '';
  const text = `---\n${block}---\n${body.startsWith('\n') || body === '' ? body : `\n${body}`}`;
  return eol === '\n' ? text : text.replace(/\r?\n/g, '\r\n');
}

function deepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Changes properties of a note and nothing else: each changed property's lines are replaced,
 * new ones are appended at the end of the block, `undefined` removes one, and every untouched
 * byte (comments, quoting, key order, a leading BOM, CRLF) stays as it was. Refuses notes whose
 * front matter does not parse: those are never rewritten.
 */
export function setFrontmatterFields(text: string, changes: Record<string, unknown>): string {
  return editFrontmatter(text, changes).text;
}

/**
 * {@link setFrontmatterFields}, also returning the properties the new text has. `parsed` is
 * `parseFrontmatter(text)` when the caller already has it (the write path): the text is then
 * edited without parsing its YAML again, and the returned properties are the parsed ones with
 * the changes applied, so validating the result needs no parse either.
 */
export function editFrontmatter(text: string, changes: Record<string, unknown>, known?: ParsedFrontmatter): { text: string; data: FrontmatterData } {
  // A BOM would hide the opening `---` and a second block would be put above the real one.
  if (text.charCodeAt(0) === 0xfeff) {
    const inner = editFrontmatter(text.slice(1), changes, known);
    return { text: `\uFEFF${inner.text}`, data: inner.data };
  }
  const fits =
    known !== undefined &&
    text.slice(known.parts.frontmatterStart, known.parts.frontmatterEnd) === known.parts.frontmatter &&
    text.slice(known.parts.bodyStart) === known.parts.body;
  const parsed = fits ? known : parseFrontmatter(text);
  if (!parsed.ok) {
    throw new VaultError('invalid_frontmatter', `${parsed.error} Fix the front matter before Lucid changes this note.`);
  }
  const { parts, data } = parsed;
  const result: FrontmatterData = { ...data };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete result[key];
    else Object.defineProperty(result, key, { value, enumerable: true, writable: true, configurable: true });
  }
  const eol = parts.eol;
  const toEol = (s: string) => (eol === '\n' ? s : s.replace(/\n/g, '\r\n'));
  if (!parts.hasFrontmatter) {
    const fresh = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    if (Object.keys(fresh).length === 0) return { text, data: result };
    const block = Object.entries(fresh)
      .map(([k, v]) => stringifyField(k, v))
      .join('\n');
    const separator = text === '' || text.startsWith('\n') || text.startsWith('\r\n') ? '' : eol;
    return { text: toEol(`---\n${block}\n---\n`) + separator + text, data: result };
  }

  const reused = documents.get(parsed);
  if (!reused) frontmatterParses.count += 1;
  const doc = reused?.doc ?? YAML.parseDocument(parts.frontmatter, { version: '1.2', schema: 'core', uniqueKeys: true, merge: false });
  const shift = reused?.shift ?? 0;
  const source = parts.frontmatter;
  const lineStarts = [0];
  for (let i = 0; i < source.length; i += 1) if (source[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (at: number) => {
    const offset = Math.max(0, at - shift);
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const lines = source === '' ? [] : source.split('\n').map((line) => line.replace(/\r$/, ''));
  const replaced = new Map<number, { end: number; text: string | null }>();
  const appended: string[] = [];
  const items = isMap(doc.contents) ? (doc.contents.items as Pair[]) : [];

  for (const [key, value] of Object.entries(changes)) {
    const current = Object.hasOwn(data, key) ? data[key] : undefined;
    if (value !== undefined && current !== undefined && deepEqual(current, value)) continue;
    if (value === undefined && current === undefined) continue;
    const pair = items.find((item) => isScalar(item.key) && String(item.key.value) === key);
    const serialized = value === undefined ? null : stringifyField(key, value);
    if (!pair) {
      if (serialized !== null) appended.push(serialized);
      continue;
    }
    const keyNode = pair.key as { range?: [number, number, number] };
    const valueNode = pair.value as { range?: [number, number, number] } | null;
    const start = lineOf(keyNode.range?.[0] ?? 0);
    const valueEnd = valueNode?.range?.[1] ?? keyNode.range?.[1] ?? 0;
    const end = Math.max(start, lineOf(Math.max(0, valueEnd - 1)));
    replaced.set(start, { end, text: serialized });
  }
  if (replaced.size === 0 && appended.length === 0) return { text, data: result };

  const out: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const change = replaced.get(i);
    if (change) {
      if (change.text !== null) out.push(...change.text.split('\n'));
      i = change.end;
      continue;
    }
    out.push(lines[i]);
  }
  for (const block of appended) out.push(...block.split('\n'));
  const newFrontmatter = out.join(eol);
  const before = text.slice(0, parts.frontmatterStart);
  const after = text.slice(parts.frontmatterEnd);
  let edited: string;
  if (parts.frontmatter === '') edited = newFrontmatter === '' ? text : before + newFrontmatter + eol + after;
  else if (newFrontmatter === '') edited = before + after.replace(/^\r?\n/, '');
  else edited = before + newFrontmatter + after;
  if (!KEEP_BLOCK.test(source)) return { text: edited, data: result };
  // A keep-chomped block (`|+`) owns the blank lines after it, so lines added or removed next to
  // it change its value: the properties are read from the new text instead of computed.
  const reparsed = parseFrontmatter(edited);
  if (!reparsed.ok) throw new VaultError('invalid_frontmatter', `${reparsed.error} The change would leave front matter Lucid cannot read.`);
  return { text: edited, data: reparsed.data };
}

/** A block scalar header with keep chomping (`|+`, `>+`, `|2+`, `>+2`), possibly with a comment. */
const KEEP_BLOCK = /[|>](?:[1-9]?\+|\+[1-9])[ \t]*(?:#.*)?\r?$/m;

/** Whether `source` holds a `{{placeholder}}`: what `/\{\{[^}]*\}\}/.test(source)` says, in one pass (that regex is quadratic on `{{{{…`). */
function hasPlaceholder(source: string): boolean {
  let close = -1;
  for (let open = source.indexOf('{{'); open !== -1; open = source.indexOf('{{', open + 1)) {
    if (close < open + 2) close = source.indexOf('}', open + 2);
    if (close === -1) return false;
    if (source[close + 1] === '}') return true;
  }
  return false;
}
