import { VaultError, isVaultError } from '../errors';
import { parseHeadings, type Heading } from '../notes/headings';
import { isExternalTarget } from '../notes/links';
import type { Note } from '../notes/note';
import { basenameOf } from '../notes/paths';
import type { LinkGraph } from '../read/reader';
import type { Vault } from '../vault';
import { parseInput } from './contract';
import { READ_NOTE_DEFAULT_CHARS, readNoteInputSchema, type ReadNoteInput, type ReadNoteResult } from './contract-read';
import { notePathFromInput } from './session-context';
import { observationTime, observeSession } from './sessions';

const MAX_LINKS = 100;
const MAX_BACKLINKS = 50;
const MAX_HEADINGS = 100;
const MAX_OTHER_MATCHES = 5;
const MAX_SUGGESTIONS = 5;

/** What an agent named a note by: a path, a name, a title, an alias or a wikilink, split into its parts. */
export interface NoteReference {
  /** The path or name, without `[[ ]]`, the `|shown text` and the `#subpath`. */
  target: string;
  /** A wikilink's `#Heading` (or `Heading#Sub`); null when there is none or it names a block (`#^id`). */
  heading: string | null;
}

/**
 * Splits what an agent passed as read_note's `path`: `[[name]]`, `![[name]]`, `[[name|shown]]`,
 * `[[name#Heading]]` and `[[name#Heading|shown]]` as Obsidian reads them; anything else is the
 * target as written (trimmed), so a file name may hold a `#`.
 */
export function parseNoteReference(value: string): NoteReference {
  const text = value.trim();
  const wiki = /^!?\[\[([^\n]*)\]\]$/.exec(text);
  if (!wiki) return { target: text, heading: null };
  let inner = wiki[1];
  const bar = inner.search(/\\?\|/);
  if (bar >= 0) inner = inner.slice(0, bar);
  const hash = inner.indexOf('#');
  const target = (hash >= 0 ? inner.slice(0, hash) : inner).trim();
  const subpath = hash >= 0 ? inner.slice(hash + 1).trim() : '';
  return { target, heading: subpath === '' || subpath.startsWith('^') ? null : subpath };
}

/** Lower case, one space between words, NFC: how names, titles, aliases and headings are compared. */
function normalizeName(value: string): string {
  return value.normalize('NFC').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** A note's aliases (a list or one string), as written. */
export function aliasesOf(note: Note): string[] {
  const value = note.frontmatter.aliases ?? note.frontmatter.alias;
  if (typeof value === 'string') return value.trim() ? [value] : [];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  return [];
}

const byPath = (a: Note, b: Note) => a.path.length - b.path.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

interface Located {
  note: Note;
  by: ReadNoteResult['matched_by'];
  others: Note[];
}

/**
 * Finds the note a reference names, as a person looks one up: the exact path (`.md` optional);
 * else Obsidian's link resolution from the vault's root (a file of that name anywhere, the
 * shortest path first, case ignored); else a note with that title; else one with that alias
 * (several with the same title or alias: the shortest path, the others named). Nothing found:
 * `not_found`, naming the closest notes by file name, title and alias.
 */
async function locateNote(vault: Vault, target: string, graph: () => Promise<LinkGraph>): Promise<Located> {
  if (target === '') throw new VaultError('invalid_input', 'path must name a note: a path, a title or [[a link]].', { field: 'path' });
  let pathError: VaultError | null = null;
  let direct: string | null = null;
  try {
    direct = notePathFromInput(target);
    return { note: await vault.readNote(direct), by: 'path', others: [] };
  } catch (error) {
    if (!isVaultError(error) || (error.code !== 'not_found' && error.code !== 'invalid_path')) throw error;
    pathError = error;
  }
  const { notes, resolver } = await graph();
  const linked = resolver.resolve(target, '', 'wikilink');
  if (linked?.toLowerCase().endsWith('.md')) return { note: await vault.readNote(linked), by: 'link', others: [] };

  const names = new Set([normalizeName(target), normalizeName(target.replace(/\.md$/i, ''))]);
  for (const by of ['title', 'alias'] as const) {
    const hits = notes.filter((n) => (by === 'title' ? [n.title] : aliasesOf(n)).some((name) => names.has(normalizeName(name)))).sort(byPath);
    if (hits.length > 0) return { note: await vault.readNote(hits[0].path), by, others: hits.slice(1, 1 + MAX_OTHER_MATCHES) };
  }

  if (pathError.code === 'invalid_path') throw pathError;
  const name = basenameOf(target);
  const close = closeNotes(name, notes);
  const missing = direct
    ? `No file ${direct} in this vault, and no note has "${name}" as its file name, title or alias.`
    : `No note has "${name}" as its path, file name, title or alias.`;
  const hint =
    close.length > 0
      ? ` Closest: ${close.map((n) => (n.title === basenameOf(n.path) ? n.path : `${n.path} ("${n.title}")`)).join(', ')}. Read one of them by its path.`
      : ' Search for it with search_notes.';
  throw new VaultError('not_found', `${missing}${hint}`, { field: 'path', suggestions: close.map((n) => n.path) });
}

/**
 * The note `value` names (a path, file name, title, alias or `[[wikilink]]`), found as read_note
 * finds it; reads the whole vault's notes only when the value is not a note's exact path.
 */
export async function findNote(vault: Vault, value: string): Promise<Note> {
  let graphCache: Promise<LinkGraph> | null = null;
  const graph = () => {
    graphCache ??= vault.linkGraph();
    return graphCache;
  };
  return (await locateNote(vault, parseNoteReference(value).target, graph)).note;
}

/** Edit distance of `a` and `b`, or `max + 1` as soon as it is known to exceed `max`. */
function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j += 1) {
      const value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      current.push(value);
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    previous = current;
  }
  return previous[b.length];
}

const STOP_WORDS = new Set(['the', 'and', 'for', 'with', 'from', 'that', 'this', 'note', 'notes']);

function wordsOf(value: string): string[] {
  return value.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 3 && !STOP_WORDS.has(w));
}

/** How close a name is to what was asked, from 0 to 1: the best of spelling, containment and shared words. */
function closeness(query: string, name: string): number {
  const q = query.slice(0, 100);
  const n = name.slice(0, 100);
  if (q === '' || n === '') return 0;
  const longest = Math.max(q.length, n.length);
  const shortest = Math.min(q.length, n.length);
  let score = 1 - editDistance(q, n, Math.floor(longest / 2)) / longest;
  if (shortest >= 3 && (n.includes(q) || q.includes(n))) score = Math.max(score, 0.7 + (0.3 * shortest) / longest);
  const asked = new Set(wordsOf(q));
  if (asked.size > 0) {
    const has = new Set(wordsOf(n));
    let shared = 0;
    for (const word of asked) if (has.has(word)) shared += 1;
    score = Math.max(score, (0.8 * shared) / asked.size);
  }
  return score;
}

/**
 * The notes whose file name, title or an alias is closest to `query` (a misspelling, a part of the
 * name, shared words), best first (then the shorter path), at most five, none that is not close.
 */
export function closeNotes(query: string, notes: readonly Note[]): Note[] {
  const q = normalizeName(query);
  const scored: { note: Note; score: number }[] = [];
  for (const note of notes) {
    let best = 0;
    for (const name of [basenameOf(note.path), note.title, ...aliasesOf(note)]) best = Math.max(best, closeness(q, normalizeName(name)));
    if (best >= 0.5) scored.push({ note, score: best });
  }
  scored.sort((a, b) => b.score - a.score || byPath(a.note, b.note));
  return scored.slice(0, MAX_SUGGESTIONS).map((s) => s.note);
}

/**
 * The part of the body a section covers: from its heading's line to the next heading of the same
 * or a higher level. `wanted` is a heading's text (case and spacing ignored, leading `#` marks
 * dropped), or `Parent#Child` for a heading inside another's section.
 */
function findSection(headings: readonly Heading[], bodyLength: number, wanted: string): { heading: Heading; start: number; end: number } | null {
  const clean = wanted.replace(/^\s*#+\s*/, '');
  const attempt = (parts: string[]) => {
    let scope = { start: 0, end: bodyLength, level: 0 };
    let found: { heading: Heading; start: number; end: number } | null = null;
    for (const part of parts) {
      const name = normalizeName(part);
      const index = headings.findIndex((h) => h.offset >= scope.start && h.offset < scope.end && h.level > scope.level && normalizeName(h.text) === name);
      if (index < 0) return null;
      const heading = headings[index];
      const next = headings.slice(index + 1).find((h) => h.level <= heading.level);
      found = { heading, start: heading.offset, end: Math.min(next ? next.offset : bodyLength, scope.end) };
      scope = { start: found.start, end: found.end, level: heading.level };
    }
    return found;
  };
  const whole = attempt([clean]);
  if (whole || !clean.includes('#')) return whole;
  return attempt(clean.split('#').filter((part) => part.trim() !== ''));
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * Where a part of at most `limit` characters from `start` ends, before `rangeEnd`: at a line's end
 * when one falls in the part's second half, and never inside a surrogate pair.
 */
function partEnd(body: string, start: number, rangeEnd: number, limit: number): number {
  let end = Math.min(rangeEnd, start + limit);
  if (end >= rangeEnd) return rangeEnd;
  const lineEnd = body.lastIndexOf('\n', end - 1);
  if (lineEnd >= start + Math.floor(limit / 2)) end = lineEnd + 1;
  else if (isHighSurrogate(body.charCodeAt(end - 1))) end = end - 1 > start ? end - 1 : end + 1;
  return end;
}

/**
 * read_note: finds the note as a person looks one up (path, file name, title, alias or
 * `[[wikilink]]`, see {@link parseNoteReference}), and returns its front matter, a part of its body
 * (a section, a page from an offset: at most 20,000 characters unless `max_chars` says otherwise),
 * its headings, its links and backlinks with their titles (bounded, with the count of the rest),
 * and the whole file's hash, which stays the expected_hash for write_note whatever part was read.
 * Records the read in the sessions of `observeIn` (a skill counts as used). Writes nothing.
 */
export async function readNoteForAgent(vault: Vault, given: string | ReadNoteInput, observeIn: readonly string[] = []): Promise<ReadNoteResult> {
  const input = parseInput(readNoteInputSchema, typeof given === 'string' ? { path: given } : given);
  const reference = parseNoteReference(input.path);
  let graphCache: Promise<LinkGraph> | null = null;
  const graph = () => {
    graphCache ??= vault.linkGraph();
    return graphCache;
  };
  const { note, by, others } = await locateNote(vault, reference.target, graph);

  // A note too large to parse is still text, and paging is how it can be read.
  const readable = !note.problem || note.problem === 'invalid_frontmatter' || note.problem === 'too_large';
  const body = readable ? note.body : '';
  const headings = parseHeadings(body);
  let range = { start: 0, end: body.length };
  let section: string | null = null;
  const wanted = input.section ?? reference.heading;
  if (wanted) {
    const found = findSection(headings, body.length, wanted);
    if (!found) {
      const known = headings.slice(0, 30).map((h) => `"${h.text}"`);
      const list = known.length > 0 ? ` Its headings: ${known.join(', ')}${headings.length > known.length ? ', ...' : ''}.` : ' It has no headings.';
      throw new VaultError('not_found', `${note.path} has no heading "${wanted}".${list} Read it without section, or with one of these.`, {
        field: 'section',
        path: note.path,
      });
    }
    range = { start: found.start, end: found.end };
    section = found.heading.text;
  }
  let start = range.start;
  if (input.offset !== undefined) {
    if (input.offset < range.start || input.offset > range.end) {
      const where = section === null ? `the body, which has ${body.length} characters` : `the section "${section}" (characters ${range.start} to ${range.end})`;
      throw new VaultError('invalid_input', `offset ${input.offset} is outside ${where}. Pass the next_offset a previous read returned.`, { field: 'offset' });
    }
    start = input.offset;
  }
  const end = partEnd(body, start, range.end, input.max_chars ?? READ_NOTE_DEFAULT_CHARS);

  const { resolver, notes, backlinks } = await graph();
  const titles = new Map(notes.map((n) => [n.path, n.title]));
  const links = note.links
    .filter((link) => !isExternalTarget(link.target))
    .map((link) => {
      const resolved = link.target === '' ? note.path : resolver.resolve(link.target, note.path, link.kind);
      return { raw: link.raw, target: link.target, resolved, title: resolved === null ? null : (titles.get(resolved) ?? null) };
    });
  const linking = backlinks.get(note.path) ?? [];

  const at = observationTime(vault);
  const isSkill = note.lucidType === 'skill' || note.path.startsWith(`${vault.layout.skills}/`);
  for (const id of observeIn) observeSession(vault, id, { kind: isSkill ? 'skill' : 'read', path: note.path, at });
  return {
    path: note.path,
    title: note.title,
    type: note.type,
    matched_by: by,
    other_matches: others.map((n) => ({ path: n.path, title: n.title })),
    frontmatter: note.frontmatter,
    body: body.slice(start, end),
    hash: note.hash,
    size: note.size,
    total_chars: body.length,
    offset: start,
    end,
    next_offset: end < range.end ? end : null,
    section,
    headings: headings.slice(0, MAX_HEADINGS).map((h) => ({ level: h.level, text: h.text, offset: h.offset })),
    more_headings: Math.max(0, headings.length - MAX_HEADINGS),
    links: links.slice(0, MAX_LINKS),
    more_links: Math.max(0, links.length - MAX_LINKS),
    backlinks: linking.slice(0, MAX_BACKLINKS).map((b) => ({ from: b.from, line: b.line, title: titles.get(b.from) ?? basenameOf(b.from) })),
    more_backlinks: Math.max(0, linking.length - MAX_BACKLINKS),
    problem: note.problem ? `${note.problem}: ${note.problemMessage}` : null,
    violations: note.violations.map((v) => ({ field: v.field, message: v.message })),
  };
}

/** The sentence read_note's reply starts with: which note, which part of it, how to get the next part, and its hash. */
export function describeRead(result: ReadNoteResult): string {
  const found = result.matched_by === 'path' ? '' : ` (found by ${result.matched_by})`;
  const part = result.section === null ? '' : ` section "${result.section}",`;
  const whole = result.offset === 0 && result.end === result.total_chars;
  const range = whole ? ` all ${result.total_chars} characters of the body` : ` characters ${result.offset} to ${result.end} of ${result.total_chars}`;
  const next = result.next_offset === null ? '' : `; next part: offset ${result.next_offset}${result.section === null ? '' : ' with the same section'}`;
  return `${result.path}${found}:${part}${range}${next} (hash ${result.hash}).`;
}
