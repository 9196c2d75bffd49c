import type Database from 'better-sqlite3';
import { resolutionKeys } from '../notes/link-resolver';
import type { LinkKind } from '../notes/links';

/** One of a note's links as the index stores it: as written, and where it leads in the vault now (null: nowhere). */
export interface IndexedLink {
  target: string;
  kind: LinkKind;
  /** 1-based line in the body; 0 for a front-matter link. */
  line: number;
  resolved: string | null;
}

/** Resolves a link written in the note at `from` over the vault's current files (see `LinkResolver`). */
export type ResolveLink = (target: string, from: string, kind: LinkKind) => string | null;

/**
 * The links table: every vault link of every indexed note, its resolution, and the file names it can
 * resolve to (`key1`, `key2`, see `resolutionKeys`), so that a file's coming or going re-resolves only
 * the links that could lead to it. `files` is the listing the resolutions were made over (notes and
 * attachments alike).
 */
export const LINK_TABLES_SQL = `
  CREATE TABLE links (
    source INTEGER NOT NULL,
    line INTEGER NOT NULL,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    key1 TEXT,
    key2 TEXT,
    resolved TEXT
  );
  CREATE INDEX links_source ON links (source);
  CREATE INDEX links_resolved ON links (resolved) WHERE resolved IS NOT NULL;
  CREATE INDEX links_key1 ON links (key1);
  CREATE INDEX links_key2 ON links (key2) WHERE key2 IS NOT NULL;
  CREATE TABLE files (path TEXT PRIMARY KEY) WITHOUT ROWID;
`;

type Prepare = (sql: string) => Database.Statement;

/** Replaces the links of the note with row id `source`. */
export function writeLinks(prepare: Prepare, source: number, links: readonly IndexedLink[] | undefined, fresh: boolean): void {
  if (!fresh) prepare('DELETE FROM links WHERE source = ?').run(source);
  if (!links) return;
  const insert = prepare('INSERT INTO links (source, line, kind, target, key1, key2, resolved) VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (const link of links) {
    const [key1 = null, key2 = null] = resolutionKeys(link.target);
    insert.run(source, link.line, link.kind, link.target, key1, key2, link.resolved);
  }
}

/**
 * Brings the `files` table to the vault's listing (all of it, or only the `changed` paths) and
 * resolves again the links that a file added or removed can change, except those of `rewritten`
 * notes (just resolved over the new listing). Returns how many links changed where they lead.
 */
export function applyListing(
  prepare: Prepare,
  listing: readonly string[],
  resolve: ResolveLink,
  rewritten: ReadonlySet<number>,
  changed?: ReadonlySet<string>,
): number {
  const now = new Set(listing);
  const added: string[] = [];
  const removed: string[] = [];
  if (changed) {
    const has = prepare('SELECT 1 FROM files WHERE path = ?');
    for (const path of changed) {
      const known = has.get(path) !== undefined;
      if (now.has(path) && !known) added.push(path);
      else if (!now.has(path) && known) removed.push(path);
    }
  } else {
    const known = new Set((prepare('SELECT path FROM files').raw().all() as [string][]).map((r) => r[0]));
    for (const path of now) if (!known.has(path)) added.push(path);
    for (const path of known) if (!now.has(path)) removed.push(path);
  }
  if (added.length === 0 && removed.length === 0) return 0;
  const insert = prepare('INSERT OR IGNORE INTO files (path) VALUES (?)');
  for (const path of added) insert.run(path);
  const remove = prepare('DELETE FROM files WHERE path = ?');
  for (const path of removed) remove.run(path);

  // A first build (or one that rewrote every note) resolved every link over the new listing already.
  const total = (prepare('SELECT count(*) AS n FROM links').get() as { n: number }).n;
  if (total === 0 || rewrittenLinks(prepare, rewritten) === total) return 0;
  const keys = new Set<string>();
  for (const path of [...added, ...removed]) keys.add(path.slice(path.lastIndexOf('/') + 1).toLowerCase());
  const byKey = prepare(
    `SELECT l.rowid AS rowid, l.target AS target, l.kind AS kind, l.resolved AS resolved, l.source AS source, n.path AS "from"
     FROM links l JOIN notes n ON n.id = l.source WHERE l.key1 = @key OR l.key2 = @key`,
  );
  const update = prepare('UPDATE links SET resolved = ? WHERE rowid = ?');
  const seen = new Set<number>();
  let moved = 0;
  for (const key of keys) {
    // Read first, then update: a statement cannot write while another still iterates.
    for (const row of byKey.all({ key }) as { rowid: number; target: string; kind: LinkKind; resolved: string | null; source: number; from: string }[]) {
      if (rewritten.has(row.source) || seen.has(row.rowid)) continue;
      seen.add(row.rowid);
      const resolved = resolve(row.target, row.from, row.kind);
      if (resolved === row.resolved) continue;
      update.run(resolved, row.rowid);
      moved += 1;
    }
  }
  return moved;
}

/** The notes linking to `path` (its own links to itself left out), with the line of each link, by source path then line. */
export function backlinksTo(prepare: Prepare, path: string): { from: string; line: number }[] {
  const rows = prepare('SELECT n.path AS "from", l.line AS line FROM links l JOIN notes n ON n.id = l.source WHERE l.resolved = ?').all(path) as {
    from: string;
    line: number;
  }[];
  // In JavaScript's string order, as the in-memory link graph sorts (SQLite's is by UTF-8 bytes).
  return rows.filter((r) => r.from !== path).sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.line - b.line));
}

/** How many links the `rewritten` notes have (counted only when they are most of the index, where it is cheaper than probing by name). */
function rewrittenLinks(prepare: Prepare, rewritten: ReadonlySet<number>): number {
  const notes = (prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n;
  if (rewritten.size < notes / 2) return -1;
  const count = prepare('SELECT count(*) AS n FROM links WHERE source = ?');
  let n = 0;
  for (const id of rewritten) n += (count.get(id) as { n: number }).n;
  return n;
}
