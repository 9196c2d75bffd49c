import type { NoteReader } from '../read/reader';
import { indexViewOf, type ParsedForIndex } from './index-parse';
import { MIN_FILES_FOR_WORKERS, parser } from './index-pool';
import type { SearchIndex, SyncResult } from './search-index';
import type { IndexableNote } from './index-parse';

/** Above this many notes to read, they are read in bulk (several in flight) rather than one by one through the reader's cache. */
const BULK_READ = 32;

const running = new WeakMap<SearchIndex, Promise<unknown>>();

/**
 * Brings a search index up to date with the files on disk: the notes whose stamp changed are read and
 * parsed first (in bulk, in the index's worker threads when there are many), their links resolved over
 * the vault's listing, then everything is applied in the index's one transaction, links included; links
 * elsewhere that a file's coming or going can change are resolved again. `changed`, when given, says
 * that only these paths may have changed since the last sync (a file watcher's hint): the other
 * stamps are not compared. Syncs of one index run one after another.
 */
export function syncSearchIndex(index: SearchIndex, reader: NoteReader, changed?: Iterable<string> | null): Promise<SyncResult> {
  const previous = running.get(index) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => syncOnce(index, reader, changed ? new Set(changed) : undefined));
  running.set(index, next);
  return next;
}

async function syncOnce(index: SearchIndex, reader: NoteReader, changed: ReadonlySet<string> | undefined): Promise<SyncResult> {
  const all = await reader.listFiles();
  const files = all.filter((f) => f.path.toLowerCase().endsWith('.md'));
  const resolver = await reader.linkResolver(all);
  const parsed = new Map<string, ParsedForIndex | null>();
  const stale = index.staleStamps(files, changed);
  if (stale.length > BULK_READ) {
    const parse = parser(stale.length >= MIN_FILES_FOR_WORKERS ? index.workers : null, (path, result) => parsed.set(path, result));
    try {
      await reader.readMany(
        stale.map((s) => s.path),
        (path, result) => {
          if (result instanceof Error) parsed.set(path, null);
          else parse.add(path, result.bytes, result.stat.mtimeMs);
        },
      );
    } finally {
      await parse.finish();
    }
  } else {
    for (const stamp of stale) {
      const note = await reader.readNote(stamp.path).catch(() => null);
      parsed.set(stamp.path, note ? indexViewOf(note) : null);
    }
  }
  const load = (path: string): IndexableNote | null => {
    const view = parsed.get(path);
    if (!view) return null;
    const projectLink = view.projectLink;
    return {
      ...view.note,
      project: projectLink ? resolver.resolve(projectLink, path, 'frontmatter') : view.note.project,
      links: view.links.map((link) => ({ ...link, resolved: resolver.resolve(link.target, path, link.kind) })),
    };
  };
  return index.sync(files, load, { files: all.map((f) => f.path), resolve: (target, from, kind) => resolver.resolve(target, from, kind), changed });
}
