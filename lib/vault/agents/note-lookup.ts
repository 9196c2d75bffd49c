import type { Note, VaultFile } from '../notes/note';
import { parseNoteBytes } from '../notes/note';
import type { SearchHit, SearchOptions } from '../search/search-index';
import type { Vault } from '../vault';

/**
 * The notes start_session reads, looked up in the vault's listing (a memory read while the vault
 * is watched) and read one by one, only those the indexes point at: never every note of the vault.
 */

/** The most parsed notes kept per vault between sessions (the oldest read are dropped first). */
const MAX_CACHED = 4000;

interface Cached {
  size: number;
  mtimeMs: number;
  note: Note;
}

/** Parsed notes by path, kept per vault while their listing stamp (size and mtime) is unchanged. */
const caches = new WeakMap<Vault, Map<string, Cached>>();
/** The listing by path, kept per listing (a watched vault hands out the same listing until a file changes). */
const indexes = new WeakMap<readonly VaultFile[], Map<string, VaultFile>>();

/**
 * One start_session's view of the vault: its listing, the notes read so far (properties and text,
 * without parsing links), and the searches it asks.
 */
export class NoteLookup {
  /** The listing by path. */
  readonly byPath: ReadonlyMap<string, VaultFile>;
  private readonly cache: Map<string, Cached>;

  constructor(
    readonly vault: Vault,
    readonly files: readonly VaultFile[],
  ) {
    let byPath = indexes.get(files);
    if (!byPath) {
      byPath = new Map(files.map((f) => [f.path, f]));
      indexes.set(files, byPath);
    }
    this.byPath = byPath;
    let cache = caches.get(vault);
    if (!cache) {
      cache = new Map();
      caches.set(vault, cache);
    }
    this.cache = cache;
  }

  /** The listing's entry of `path`, or undefined when the vault has no such file. */
  file(path: string): VaultFile | undefined {
    return this.byPath.get(path);
  }

  /**
   * The note at `path` (front matter, title, type and body; `links` left empty), read only when
   * its listing stamp changed since it was last read; null when it is not in the listing or cannot
   * be read any more.
   */
  async note(path: string): Promise<Note | null> {
    const file = this.byPath.get(path);
    if (!file || !path.toLowerCase().endsWith('.md')) return null;
    const cached = this.cache.get(path);
    if (cached && cached.size === file.size && cached.mtimeMs === file.mtimeMs) return cached.note;
    let bytes: Buffer;
    try {
      bytes = await this.vault.readFileBytes(path);
    } catch {
      return null;
    }
    const { note } = parseNoteBytes(path, bytes, file.mtimeMs, undefined, { links: false });
    this.cache.delete(path);
    this.cache.set(path, { size: file.size, mtimeMs: file.mtimeMs, note });
    if (this.cache.size > MAX_CACHED) this.cache.delete(this.cache.keys().next().value as string);
    return note;
  }

  /** The notes at `paths` that exist and can be read, in the order given. */
  async notes(paths: Iterable<string>): Promise<Note[]> {
    const out: Note[] = [];
    for (const path of paths) {
      const note = await this.note(path);
      if (note) out.push(note);
    }
    return out;
  }

  /** The notes of a project, by the project the search index resolved for each (see `Vault.notesOfProject`). */
  ofProject(projectPath: string): Promise<{ path: string; type: string | null }[]> {
    return this.vault.notesOfProject(projectPath);
  }

  /** The vault's search (whole words, no snippets: the notes are read), for what start_session looks up. */
  search(query: string, options: SearchOptions): Promise<SearchHit[]> {
    return this.vault.search(query, { ...options, prefix: false, snippet: false });
  }
}
