import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { VaultError } from '../errors';
import { LINK_TABLES_SQL } from './links-table';

/**
 * Version of the index's tables and of what a note puts in them (2: the file name searched with the
 * aliases, front-matter field names and a vault's own `type` values indexed, and front matter that does
 * not parse indexed as text; 3: each note's resolved links and the listing they were resolved over, for
 * backlinks); an index stored with another version is dropped and rebuilt.
 */
export const SEARCH_SCHEMA_VERSION = 3;

/** How the index splits and stems words (FTS5 `tokenize`): anything that must match as search matches uses it. */
export const FTS_TOKENIZE = 'porter unicode61 remove_diacritics 2';

/**
 * Opens the index's database in WAL mode and (re)creates its tables when their version differs, or
 * when their links were kept for another `linkScope` (which notes' links are left out).
 */
export function openDatabase(dbPath: string, linkScope = ''): Database.Database {
  if (dbPath !== ':memory:') fs.mkdirSync(path.dirname(dbPath), { recursive: true });
  const db = new Database(dbPath);
  try {
    db.pragma('busy_timeout = 10000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.transaction(() => {
      db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      const value = (key: string) => (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value;
      if (value('schema_version') === String(SEARCH_SCHEMA_VERSION) && (value('link_scope') ?? '') === linkScope) return;
      dropIndexTables(db);
      createIndexTables(db);
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)").run(String(SEARCH_SCHEMA_VERSION));
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('link_scope', ?)").run(linkScope);
    }).immediate();
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Drops every table but `meta`; virtual tables first, which takes their shadow tables with them. */
function dropIndexTables(db: Database.Database): void {
  const tables = () =>
    db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name <> 'meta' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").all() as {
      name: string;
      sql: string | null;
    }[];
  for (const table of tables()) {
    if (/^CREATE VIRTUAL TABLE/i.test(table.sql ?? '')) db.exec(`DROP TABLE IF EXISTS ${quoteIdentifier(table.name)}`);
  }
  for (const table of tables()) db.exec(`DROP TABLE IF EXISTS ${quoteIdentifier(table.name)}`);
}

function createIndexTables(db: Database.Database): void {
  // `id` keeps the FTS rowids stable: a plain rowid may be renumbered by VACUUM.
  db.exec(`
    CREATE TABLE notes (
      id INTEGER PRIMARY KEY,
      path TEXT NOT NULL UNIQUE,
      hash TEXT NOT NULL,
      mtime_ms REAL NOT NULL,
      size INTEGER NOT NULL,
      title TEXT NOT NULL,
      type TEXT,
      project TEXT,
      folder TEXT NOT NULL
    );
    CREATE VIRTUAL TABLE notes_fts USING fts5(
      title, aliases, headings, tags, fields, body,
      tokenize = '${FTS_TOKENIZE}'
    );
    ${LINK_TABLES_SQL}
  `);
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Whether opening failed because the file is not a SQLite database or is damaged (then it is rebuilt). */
export function isCorruption(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
}

/** The `io_error` for an index file that cannot be opened, with the reason. */
export function ioError(dbPath: string, error: unknown): VaultError {
  const reason = error instanceof Error ? error.message : String(error);
  return new VaultError('io_error', `Could not open the search index at ${dbPath}: ${reason}`);
}
