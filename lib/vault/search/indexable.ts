import type { Note } from '../notes/note';
import type { LinkResolver } from '../notes/links';
import type { NoteReader } from '../notes/reader';
import type { IndexableNote, SearchIndex } from './search-index';
import { linkTarget } from '../notes/note-formats';

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

/** The search index's view of a note. */
function toIndexable(note: Note, resolver: LinkResolver): IndexableNote {
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
  let project: string | null = null;
  const projectLink = linkTarget(fm.project);
  if (projectLink) project = resolver.resolve(projectLink, note.path, 'frontmatter');
  if (note.lucidType === 'project') project = note.path;
  return {
    path: note.path,
    hash: note.hash,
    title: note.title,
    type: note.lucidType,
    project,
    aliases: stringsOf(fm.aliases).concat(fileNameAlias(note)),
    tags: stringsOf(fm.tags).concat([...body.matchAll(/(?:^|\s)#([\p{L}\p{N}_/-]+)/gu)].map((m) => m[1])),
    headings: [...body.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => m[1]),
    fields,
    body: note.problem && note.problem !== 'invalid_frontmatter' ? '' : body,
  };
}

/**
 * Brings a search index up to date with the files on disk: the notes whose stamp changed are read
 * first (async, through the reader's cache), then everything is applied in the index's one transaction.
 * `changed`: only these paths may have changed since the last sync (a file watcher's hint); without
 * it, every stamp is compared.
 */
export async function syncSearchIndex(
  index: SearchIndex,
  reader: NoteReader,
  changed?: Iterable<string> | null,
): Promise<{ added: number; updated: number; removed: number; unchanged: number }> {
  const all = await reader.listFiles();
  const files = all.filter((f) => f.path.toLowerCase().endsWith('.md'));
  const resolver = await reader.linkResolver(all);
  const loaded = new Map<string, IndexableNote | null>();
  const only = changed ? new Set(changed) : null;
  for (const stamp of index.staleStamps(only ? files.filter((f) => only.has(f.path)) : files)) {
    const note = await reader.readNote(stamp.path).catch(() => null);
    loaded.set(stamp.path, note ? toIndexable(note, resolver) : null);
  }
  return index.sync(files, (path) => loaded.get(path) ?? null);
}
