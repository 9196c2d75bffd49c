import { isExternalTarget, type LinkKind } from '../notes/links';
import { buildNote, type Note } from '../notes/note';
import { linkTarget } from '../notes/note-formats';
import type { IndexedLink } from './links-table';

/** One note as the search index stores it; the caller parses the file, the index only ranks text. */
export interface IndexableNote {
  /** Vault-relative path with '/' separators, e.g. `decisions/use-postgres.md`. */
  path: string;
  /** sha256 hex of the file's bytes: equal hashes mean equal content, so re-indexing is skipped. */
  hash: string;
  /** The file name without `.md`, or the front-matter title. */
  title: string;
  /** Front-matter `type` when it is one of Lucid's types, else null. */
  type: string | null;
  /** The resolved project note's path (e.g. `projects/atlas.md`), or null. */
  project: string | null;
  aliases: string[];
  tags: string[];
  headings: string[];
  /** The other front-matter values flattened to text. */
  fields: string;
  /** The markdown body without front matter. */
  body: string;
  /** The note's vault links, resolved; kept for backlinks (none stored when absent). */
  links?: IndexedLink[];
}

/** One of a note's links as the index keeps it before resolving it: where it points, as written. */
export interface LinkAsWritten {
  target: string;
  kind: LinkKind;
  /** 1-based line in the body; 0 for a front-matter link. */
  line: number;
}

/**
 * What parsing one file gives the search index: the note's text by column (its project not yet
 * resolved: that needs the vault's listing), the project link as written, and its vault links (same-note
 * links and external URLs left out). Plain data, so a worker thread can send it back.
 */
export interface ParsedForIndex {
  note: IndexableNote;
  projectLink: string | null;
  links: LinkAsWritten[];
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

function flatten(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object')
    return Object.values(value as Record<string, unknown>)
      .map(flatten)
      .join(' ');
  return String(value);
}

/** The file name, searched like an alias when the title is another (people link and think by file name). */
function fileNameAlias(note: Note): string[] {
  const name = note.path.slice(note.path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
  return name.toLowerCase() === note.title.toLowerCase() ? [] : [name];
}

/** The search index's view of a parsed note; `project` is the note itself for a project, else null (resolved later). */
function toIndexable(note: Note): IndexableNote {
  const fm = note.frontmatter;
  const body = note.body ?? '';
  // Field names too: a `price:` or `repo:` field says what the note records, even when it is empty.
  // A vault's own `type` values are words like any other; Lucid's types are in their own column.
  let fields = Object.entries(fm)
    .filter(([key]) => !['aliases', 'tags', 'title'].includes(key) && !(key === 'type' && note.lucidType))
    .map(([key, value]) => `${key} ${flatten(value)}`)
    .join(' ');
  // Front matter that does not parse (an unfilled template placeholder) is still text the person wrote.
  if (note.problem === 'invalid_frontmatter' && note.text) fields = note.text.endsWith(body) ? note.text.slice(0, note.text.length - body.length) : note.text;
  return {
    path: note.path,
    hash: note.hash,
    title: note.title,
    type: note.lucidType,
    project: note.lucidType === 'project' ? note.path : null,
    aliases: stringsOf(fm.aliases).concat(fileNameAlias(note)),
    tags: stringsOf(fm.tags).concat([...body.matchAll(/(?:^|\s)#([\p{L}\p{N}_/-]+)/gu)].map((m) => m[1])),
    headings: [...body.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => m[1]),
    fields,
    body: note.problem && note.problem !== 'invalid_frontmatter' ? '' : body,
  };
}

/** {@link ParsedForIndex} of a note already parsed. */
export function indexViewOf(note: Note): ParsedForIndex {
  const links: LinkAsWritten[] = [];
  for (const link of note.links) {
    if (link.target === '' || (link.kind === 'markdown' && isExternalTarget(link.target))) continue;
    links.push({ target: link.target, kind: link.kind, line: link.line });
  }
  return { note: toIndexable(note), projectLink: note.lucidType === 'project' ? null : linkTarget(note.frontmatter.project), links };
}

/** Parses a file's bytes for the search index (what a worker thread does for each file it gets). */
export function parseForIndex(path: string, bytes: Buffer, mtimeMs: number): ParsedForIndex {
  return indexViewOf(buildNote(path, bytes, mtimeMs));
}
