import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { VaultError } from '../errors';
import { trimEndOf, trimStartOf } from '../text';
import { ioError, isCorruption, openDatabase } from './index-db';
import type { IndexWorkers } from './index-pool';
import { applyListing, backlinksTo, type ResolveLink, writeLinks } from './links-table';
import { termPhrases, tokenizeQuery } from './query';
import { NoteRows, type RankedRow, type RankWeights } from './rank';
import { LONG_BODY_CHARS, longBodySnippet } from './snippet';
import type { IndexableNote } from './index-parse';

/** How to open a search index. */
export interface IndexOptions {
  /** Where `syncSearchIndex` parses many notes at once (see `IndexWorkers`); null: in this thread. */
  workers?: IndexWorkers | null;
  /**
   * Notes whose links are not kept (the changelog: its links are a log, never backlinks), and a key
   * naming that choice: an index kept with another key is rebuilt.
   */
  linkScope?: { key: string; leftOut: (notePath: string) => boolean };
}

/** What the file system says about a file; an unchanged stamp means the file is not read again. */
export interface FileStamp {
  path: string;
  mtimeMs: number;
  size: number;
}

/**
 * What one `sync` did. `unchanged` counts files whose content was already indexed, including those
 * whose stamp changed but whose hash did not; `skipped` counts listed files `load` could not read,
 * which are not in the index afterwards.
 */
export interface SyncResult {
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  skipped: number;
}

/** Filters and limits for `SearchIndex.search`. */
export interface SearchOptions {
  /** Most hits returned: default 20, clamped to 1..200. */
  limit?: number;
  /** Only notes whose `type` is exactly this. */
  type?: string;
  /** Only notes whose resolved project is this note path; `.md` is added when missing. */
  project?: string;
  /**
   * Only notes in this folder or below it (`decisions`, `Daily Notes/2023`); matched literally and
   * case-sensitively on whole path segments, so `%` and `_` in folder names are plain characters.
   */
  folder?: string;
  /** Include notes under `systemPrefixes` (default false). */
  includeSystem?: boolean;
  /**
   * Literal path prefixes of Lucid's own files (a folder ends with '/'), default
   * `DEFAULT_SYSTEM_PREFIXES`. Pass the vault's own when `lucid.json` moves them. A prefix that
   * contains the `folder` filter is not excluded: asking for folder `inbox` searches the inbox.
   */
  systemPrefixes?: string[];
  /**
   * Match the question's last word as a prefix while it is being typed (`postgres migr` finds
   * `migration`), for a person typing in a search box. Default false: agents and the CLI search
   * whole words, so `reps` never matches `repo`.
   */
  prefix?: boolean;
  /** false: every hit's `snippet` is '' (start_session reads the notes it lists, never the snippets: a query a hit saved). */
  snippet?: boolean;
}

/**
 * One search result. `score` is its relevance, higher is better, comparable only within one query;
 * hits come in descending score order. It is BM25 over the title, aliases, headings, tags, front
 * matter and body, multiplied up for a note that contains more of the question's terms (rare terms
 * count more) and for one whose title, aliases or file name contain them, and down for a session note. `snippet` is one line of plain text around the best match in the body (or the start of the
 * body, or the title when the body is empty); each matched term is wrapped in `«` and `»`, and any
 * `«`/`»` in the note itself is shown as `‹`/`›`, so every guillemet in a snippet is a marker.
 * Render it as text, never as HTML or markdown.
 */
export interface SearchHit {
  path: string;
  title: string;
  type: string | null;
  score: number;
  snippet: string;
}

export { FTS_TOKENIZE, SEARCH_SCHEMA_VERSION } from './index-db';

/** Lucid's own files in a vault with the default layout, excluded from search unless asked for. */
const DEFAULT_SYSTEM_PREFIXES: readonly string[] = Object.freeze(['changelog.md', 'changelog/', 'inbox/', 'evals/', 'AGENTS.md']);

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 200;
/**
 * bm25() column weights (title, aliases, headings, tags, fields, body): equal, because steeper ones
 * (10 for the title) let a title word outweigh every other word of the question, which lost recall on
 * paraphrased questions (scripts/search-recall.ts); the title counts through TITLE_BOOST instead, and
 * headings and inline tags are in the body as well, so they already count twice.
 */
const BM25_WEIGHTS = '1.0, 1.0, 1.0, 1.0, 1.0, 1.0';
const SNIPPET_TOKENS = 24;
/**
 * A note's BM25 is multiplied by 1 + COVERAGE_BOOST × the share of the question's terms it holds,
 * each term weighted by its rarity: a note with every word of the question gains most.
 */
const COVERAGE_BOOST = 0.5;
/** And by 1 + TITLE_BOOST × the (rarity-weighted) share of the terms in its title, aliases or file name. */
const TITLE_BOOST = 0.5;
/** Session notes record work, not knowledge: below other notes of equal relevance, above far less relevant ones. */
const SESSION_FACTOR = 0.8;
const RANK_WEIGHTS: RankWeights = { bm25: BM25_WEIGHTS, coverageBoost: COVERAGE_BOOST, titleBoost: TITLE_BOOST, sessionFactor: SESSION_FACTOR };

interface StoredRow {
  id: number;
  hash: string;
  mtime_ms: number;
  size: number;
}

/**
 * The full-text index of one vault, kept in a SQLite file (usually `.lucid/search.db`). It is a cache:
 * everything in it can be rebuilt from the notes, so an index with another schema version or an
 * unreadable file is dropped and rebuilt. Several processes may open the same file (WAL mode); writes
 * wait for each other.
 */
export class SearchIndex {
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** Where the worker threads that parse notes for a large sync are (null: parse in this thread). */
  readonly workers: IndexWorkers | null;
  private readonly linksLeftOut: (notePath: string) => boolean;
  /** The notes' rows search filters on, by row id (see `NoteRows`). */
  private readonly rows = new NoteRows();

  private constructor(db: Database.Database, options: IndexOptions) {
    this.db = db;
    this.workers = options.workers ?? null;
    this.linksLeftOut = options.linkScope?.leftOut ?? (() => false);
  }

  /**
   * Open or create the index at `dbPath` (its folder is created), in WAL mode. When the schema version
   * stored in the file differs from `SEARCH_SCHEMA_VERSION`, or the file is not a SQLite database,
   * the index is rebuilt empty; the next `sync` fills it. Throws VaultError `io_error` when the file
   * cannot be created or opened. See {@link IndexOptions}.
   */
  static open(dbPath: string, options: IndexOptions = {}): SearchIndex {
    const scope = options.linkScope?.key ?? '';
    if (typeof dbPath !== 'string' || dbPath === '') {
      throw new VaultError('invalid_input', 'The search index needs a file path.');
    }
    try {
      return new SearchIndex(openDatabase(dbPath, scope), options);
    } catch (error) {
      if (!isCorruption(error) || dbPath === ':memory:') throw ioError(dbPath, error);
    }
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(dbPath + suffix, { force: true });
    try {
      return new SearchIndex(openDatabase(dbPath, scope), options);
    } catch (error) {
      throw ioError(dbPath, error);
    }
  }

  /**
   * The files of `listing` whose stamp differs from the index's (new or changed): what `sync` will load;
   * with `changed`, only those among these paths.
   */
  staleStamps(listing: readonly FileStamp[], changed?: ReadonlySet<string>): FileStamp[] {
    if (changed) {
      const find = this.statement('SELECT mtime_ms, size FROM notes WHERE path = ?');
      return listing.filter((stamp) => {
        if (!changed.has(stamp.path)) return false;
        const row = find.get(stamp.path) as { mtime_ms: number; size: number } | undefined;
        return !row || row.mtime_ms !== stamp.mtimeMs || row.size !== stamp.size;
      });
    }
    const stored = new Map<string, { mtime_ms: number; size: number }>();
    for (const row of this.statement('SELECT path, mtime_ms, size FROM notes').iterate() as Iterable<{ path: string; mtime_ms: number; size: number }>) {
      stored.set(row.path, row);
    }
    return listing.filter((stamp) => {
      const row = stored.get(stamp.path);
      return !row || row.mtime_ms !== stamp.mtimeMs || row.size !== stamp.size;
    });
  }

  /**
   * Bring the index up to date with `listing`, every .md file now in the vault. A file whose mtime and
   * size match the stored stamp is not read. Any other file is read with `load`: when its hash equals
   * the stored hash only the stamp is updated (counted as unchanged), otherwise it is re-indexed. A file
   * `load` returns null for (unreadable, binary) is left out of the index and tried again next time.
   * Paths no longer listed are removed. Files are read before the write lock is taken; all changes are
   * then written in one transaction, so searches see the old index or the new one, never a mix.
   * Throws VaultError `invalid_input` for a malformed path or a note whose path differs from its stamp;
   * an error thrown by `load` propagates. Either way nothing is written.
   *
   * With `options.files` (every file of the vault, attachments too) and `options.resolve`, the links
   * of other notes that a file added or removed can change are resolved again in the same transaction.
   * With `options.changed`, only these paths may have changed: the other stamps are not compared and
   * no other note is removed.
   */
  sync(
    listing: readonly FileStamp[],
    load: (path: string) => IndexableNote | null,
    options: { files?: readonly string[]; resolve?: ResolveLink; changed?: ReadonlySet<string> } = {},
  ): SyncResult {
    const { changed } = options;
    const stamps = new Map<string, FileStamp>();
    for (const stamp of listing) {
      assertStamp(stamp);
      stamps.set(stamp.path, stamp);
    }

    const stored = new Map<string, StoredRow>();
    if (changed) {
      const find = this.statement('SELECT id, hash, mtime_ms, size FROM notes WHERE path = ?');
      for (const path of changed) {
        const row = find.get(path) as StoredRow | undefined;
        if (row) stored.set(path, row);
      }
    } else {
      for (const row of this.statement('SELECT path, id, hash, mtime_ms, size FROM notes').iterate() as Iterable<StoredRow & { path: string }>) {
        stored.set(row.path, row);
      }
    }

    const loaded = new Map<string, IndexableNote | null>();
    for (const stamp of stamps.values()) {
      if (changed && !changed.has(stamp.path)) continue;
      const row = stored.get(stamp.path);
      if (row && row.mtime_ms === stamp.mtimeMs && row.size === stamp.size) continue;
      const note = load(stamp.path);
      if (note) assertNote(note, stamp);
      loaded.set(stamp.path, note);
    }

    const result: SyncResult = { added: 0, updated: 0, removed: 0, unchanged: 0, skipped: 0 };
    const rewritten = new Set<number>();
    const apply = this.db.transaction(() => {
      const find = this.statement('SELECT id, hash, mtime_ms, size FROM notes WHERE path = ?');
      for (const stamp of stamps.values()) {
        if (!loaded.has(stamp.path)) {
          result.unchanged++;
          continue;
        }
        const note = loaded.get(stamp.path) ?? null;
        const row = find.get(stamp.path) as StoredRow | undefined;
        if (!note) {
          if (row) {
            this.deleteRow(row.id);
            result.removed++;
          }
          result.skipped++;
        } else if (!row) {
          rewritten.add(this.writeNote(note, stamp, true));
          result.added++;
        } else if (row.hash === note.hash) {
          this.statement('UPDATE notes SET mtime_ms = ?, size = ? WHERE id = ?').run(stamp.mtimeMs, stamp.size, row.id);
          result.unchanged++;
        } else {
          rewritten.add(this.writeNote(note, stamp));
          result.updated++;
        }
      }
      const gone = changed
        ? [...changed].filter((path) => !stamps.has(path) && stored.has(path)).map((path) => ({ id: stored.get(path)!.id, path }))
        : (this.statement('SELECT id, path FROM notes').all() as { id: number; path: string }[]);
      for (const row of gone) {
        if (stamps.has(row.path)) continue;
        this.deleteRow(row.id);
        result.removed++;
      }
      if (options.files && options.resolve) applyListing((sql) => this.statement(sql), options.files, options.resolve, rewritten, changed);
    });
    this.write(apply);
    return result;
  }

  /**
   * Index or replace one note right after Lucid wrote it, with the stamp of the file it wrote, so the
   * next `sync` does not read it again. Throws VaultError `invalid_input` when the paths differ.
   */
  upsert(note: IndexableNote, stamp: FileStamp): void {
    assertStamp(stamp);
    assertNote(note, stamp);
    this.write(this.db.transaction(() => this.writeNote(note, stamp)));
  }

  /** Remove one note from the index; a path that is not indexed is ignored. */
  remove(notePath: string): void {
    this.write(
      this.db.transaction(() => {
        const row = this.statement('SELECT id FROM notes WHERE path = ?').get(notePath) as { id: number } | undefined;
        if (row) this.deleteRow(row.id);
      }),
    );
  }

  /**
   * Rank notes for a question written by a person or an agent (see `tokenizeQuery`): any term may
   * match, words are matched by their stem (`deciding` finds `decided`), and hits come in descending
   * `score` order (see `SearchHit`). Nothing in the question is an operator, so no input can cause a
   * syntax error; a question with no terms returns []. Excludes Lucid's own files (the changelog,
   * the inbox, evaluations, AGENTS.md) unless `includeSystem` is set or a type or folder filter asks
   * for them. Whole words only, unless `prefix`.
   */
  search(query: string, options: SearchOptions = {}): SearchHit[] {
    const phrases = termPhrases(query, { prefix: options.prefix });
    if (phrases.length === 0) return [];
    const match = phrases.join(' OR ');

    const project = options.project ? (options.project.endsWith('.md') ? options.project : `${options.project}.md`) : undefined;
    const normalized = normalizeFolder(options.folder);
    const folder = normalized ? `${normalized}/` : '';
    // Asking for inbox proposals or evaluation runs by type is asking for those folders.
    const systemType = options.type === 'inbox' || options.type === 'eval-run';
    const excluded =
      options.includeSystem || systemType
        ? []
        : (options.systemPrefixes ?? DEFAULT_SYSTEM_PREFIXES).filter((prefix) => prefix !== '' && !(folder !== '' && folder.startsWith(prefix)));
    const filter = { type: options.type || undefined, project, folder, excluded };
    // One read transaction: the rows, every term's matches and BM25 come from the same snapshot.
    const rows = this.db.transaction(() => {
      this.rows.refresh((sql) => this.statement(sql));
      return this.rows.rank((sql) => this.statement(sql), phrases, filter, clampLimit(options.limit), RANK_WEIGHTS);
    })();
    // Snippets only for the hits returned, never for every match before the sort.
    return rows.map((row) => ({
      path: row.path,
      title: row.title,
      type: row.type,
      score: row.score,
      snippet: options.snippet === false ? '' : this.snippet(row, match, query),
    }));
  }

  private snippet(row: RankedRow, match: string, query: string): string {
    // One query a hit (FTS5 ignores a rowid constraint bound as a JavaScript number, which binds as
    // REAL: hence the CAST); CASE evaluates only its taken branch, so snippet() never runs on a long body.
    const found = this.statement(
      `SELECT CASE WHEN length(body) > ${LONG_BODY_CHARS} THEN body END AS long_body,
         CASE WHEN length(body) <= ${LONG_BODY_CHARS} THEN snippet(notes_fts, 5, char(2), char(3), '…', ${SNIPPET_TOKENS}) END AS body,
         snippet(notes_fts, 0, char(2), char(3), '…', ${SNIPPET_TOKENS}) AS title
       FROM notes_fts WHERE notes_fts MATCH ? AND rowid = CAST(? AS INTEGER)`,
    ).get(match, row.id) as { long_body: string | null; body: string | null; title: string | null } | undefined;
    if (found?.long_body) return renderSnippet(longBodySnippet(found.long_body, tokenizeQuery(query), SNIPPET_TOKENS));
    return renderSnippet(found?.body || found?.title || row.title);
  }

  /** How many notes are indexed. */
  count(): number {
    return (this.statement('SELECT count(*) AS n FROM notes').get() as { n: number }).n;
  }

  /** Close the database; further calls on this index throw. Closing twice is harmless. */
  close(): void {
    this.statements.clear();
    if (this.db.open) this.db.close();
  }

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Every note whose `project` the index resolved to `projectPath` (the project itself left out), by path. */
  notesOfProject(projectPath: string): { path: string; type: string | null }[] {
    return this.statement('SELECT path, type FROM notes WHERE project = ? AND path <> ? ORDER BY path').all(projectPath, projectPath) as {
      path: string;
      type: string | null;
    }[];
  }

  /** The notes linking to `notePath` (not itself), with the line of each link (0: front matter), by source path then line. */
  backlinks(notePath: string): { from: string; line: number }[] {
    return backlinksTo((sql) => this.statement(sql), notePath);
  }

  /** Writes one note's row, text and links; `fresh` when it was not indexed before. Returns its row id. */
  private writeNote(note: IndexableNote, stamp: FileStamp, fresh = false): number {
    const { id } = this.statement(
      `INSERT INTO notes (path, hash, mtime_ms, size, title, type, project, folder)
       VALUES (@path, @hash, @mtimeMs, @size, @title, @type, @project, @folder)
       ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, mtime_ms = excluded.mtime_ms, size = excluded.size,
         title = excluded.title, type = excluded.type, project = excluded.project, folder = excluded.folder
       RETURNING id`,
    ).get({
      path: note.path,
      hash: note.hash,
      mtimeMs: stamp.mtimeMs,
      size: stamp.size,
      title: note.title,
      type: note.type,
      project: note.project,
      folder: parentFolder(note.path),
    }) as { id: number };
    this.rows.set(id, note.path, note.title, note.type, note.project);
    if (!fresh) this.statement('DELETE FROM notes_fts WHERE rowid = ?').run(id);
    this.statement(
      `INSERT INTO notes_fts (rowid, title, aliases, headings, tags, fields, body)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, note.title, note.aliases.join('\n'), note.headings.join('\n'), note.tags.join('\n'), note.fields, note.body);
    writeLinks((sql) => this.statement(sql), id, this.linksLeftOut(note.path) ? undefined : note.links, fresh);
    return id;
  }

  /** Runs a write transaction; when it rolls back, the rows kept for search are read again. */
  private write(transaction: Database.Transaction<() => void>): void {
    try {
      transaction.immediate();
    } catch (error) {
      this.rows.invalidate();
      throw error;
    }
  }

  private deleteRow(id: number): void {
    this.rows.delete(id);
    this.statement('DELETE FROM links WHERE source = ?').run(id);
    this.statement('DELETE FROM notes_fts WHERE rowid = ?').run(id);
    this.statement('DELETE FROM notes WHERE id = ?').run(id);
  }
}

function assertStamp(stamp: FileStamp): void {
  const p = stamp?.path;
  if (typeof p !== 'string' || p === '' || p.startsWith('/') || p.includes('\\') || p.includes('\0')) {
    throw new VaultError('invalid_input', `Not a vault-relative path with '/' separators: ${JSON.stringify(p)}.`);
  }
  if (!Number.isFinite(stamp.mtimeMs) || !Number.isFinite(stamp.size)) {
    throw new VaultError('invalid_input', `The file stamp of ${p} needs a numeric mtimeMs and size.`);
  }
}

function assertNote(note: IndexableNote, stamp: FileStamp): void {
  if (note.path !== stamp.path) {
    throw new VaultError('invalid_input', `The note loaded for ${stamp.path} has the path ${note.path}.`);
  }
}

function parentFolder(notePath: string): string {
  const slash = notePath.lastIndexOf('/');
  return slash === -1 ? '' : notePath.slice(0, slash);
}

function normalizeFolder(folder: string | undefined): string {
  if (!folder) return '';
  return trimEndOf(trimStartOf(folder.replaceAll('\\', '/').replace(/^(\.\/)+/, ''), '/'), '/');
}

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(1, Math.floor(limit)));
}

/** One line of plain text; literal guillemets become ‹ › so that « » mark matches only. */
function renderSnippet(raw: string): string {
  return raw
    .replaceAll('«', '‹')
    .replaceAll('»', '›')
    .replaceAll('\u0002', '«')
    .replaceAll('\u0003', '»')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
