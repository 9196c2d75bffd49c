import type { Note } from '../notes/note';
import { type LinkResolver } from '../notes/links';
import { type IndexableNote } from './search-index';
import { linkTarget } from '../notes/note-formats';

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

function flatten(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return Object.values(value as Record<string, unknown>).map(flatten).join(' ');
  return String(value);
}

/** The search index's view of a note. */
export function toIndexable(note: Note, resolver: LinkResolver): IndexableNote {
  const fm = note.frontmatter;
  const fields = Object.entries(fm)
    .filter(([key]) => !['aliases', 'tags', 'title', 'type'].includes(key))
    .map(([, value]) => flatten(value))
    .join(' ');
  let project: string | null = null;
  const projectLink = linkTarget(fm.project);
  if (projectLink) project = resolver.resolve(projectLink, note.path, 'frontmatter');
  if (note.lucidType === 'project') project = note.path;
  const body = note.body ?? '';
  return {
    path: note.path,
    hash: note.hash,
    title: note.title,
    type: note.lucidType,
    project,
    aliases: stringsOf(fm.aliases),
    tags: stringsOf(fm.tags).concat([...body.matchAll(/(?:^|\s)#([\p{L}\p{N}_/-]+)/gu)].map((m) => m[1])),
    headings: [...body.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => m[1]),
    fields,
    body: note.problem && note.problem !== 'invalid_frontmatter' ? '' : body,
  };
}

