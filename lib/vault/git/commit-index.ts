import Database from 'better-sqlite3';
import type { VaultLayout } from '../notes/layout';
import type { NoteType } from '../notes/schema';
import { parseCommitMessage, TRAILER } from './commit-message';
import { gitSucceeds, headCommit, runGit, vaultPathOf, type GitRepo } from './repo';

/** Bump when the tables change: the index then rebuilds itself from git. */
const COMMIT_INDEX_VERSION = 4;

/** One commit as the index knows it. */
export interface CommitRecord {
  sha: string;
  /** Seconds since the epoch (author time). */
  time: number;
  author: string;
  /**
   * The committer's name: the person at whose vault the commit was made (for a person's own edit,
   * also the actor's name).
   */
  person: string;
  /** `Lucid-Machine`: where the commit was made; null when the commit does not say. */
  machine: string | null;
  /** `Lucid-Actor`, or null for commits Lucid did not make. */
  actor: string | null;
  op: string | null;
  editId: string | null;
  session: string | null;
  /** How many parents: 0 for a root commit, 2 or more for a merge. */
  parents: number;
  subject: string;
  /**
   * The reason: for Lucid's commits the body without subject and trailers; for other commits the
   * whole body as the person wrote it (a paragraph of `Key: value` lines is theirs too), without
   * git's own sign-off trailers.
   */
  reason: string;
  /** Lucid's trailers (empty for a commit Lucid did not make: a person's `Key: value` lines are not trailers to Lucid). */
  trailers: Record<string, string>;
  paths: { path: string; status: string; oldPath: string | null }[];
}

/** Filters for {@link CommitIndex.list}. */
export interface CommitQuery {
  limit?: number;
  /** Only commits older than this sequence number (paging). */
  beforeSeq?: number;
  /** Only commits newer than this sequence number. */
  afterSeq?: number;
  /** Only people's commits: a `human:` actor, or a commit Lucid did not make. */
  people?: boolean;
  actor?: string;
  op?: string;
  session?: string;
  /** Seconds since the epoch. */
  since?: number;
  /** Only commits at or before this time (seconds since the epoch, inclusive). */
  until?: number;
  path?: string;
  /** Only commits that touched a file inside one of these folders (vault paths, no trailing slash). */
  folders?: string[];
  /** true: only commits Lucid did not make (no `Lucid-Actor`); false: only Lucid's. */
  foreign?: boolean;
  /** Only commits made on this machine (`Lucid-Machine`). */
  machine?: string;
  /** Only commits made at this person's vault (the committer's name). */
  person?: string;
  /** Oldest first instead of newest first (with `afterSeq`: the page just newer than a cursor). */
  oldestFirst?: boolean;
}

/**
 * The folders of the vault's layout whose notes are of `type` (a skill's folder holds its archive
 * too), for {@link CommitQuery.folders}: a commit is of a type by the folder of the files it touched.
 */
export function foldersOfType(layout: VaultLayout, type: NoteType): string[] {
  const folders: Record<NoteType, string[]> = {
    person: [layout.people],
    project: [layout.projects],
    decision: [layout.decisions],
    session: [layout.sessions],
    skill: [layout.skills, layout.skillsArchive],
    inbox: [layout.inbox],
    report: [layout.reports],
    'eval-run': [layout.evalRuns],
  };
  return folders[type];
}

const FIELD = '\u001f';
const RECORD = '\u001e';

/** The trailers git tools add on their own, left out of a person's reason. */
const GIT_TRAILER = /^(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Helped-by|Change-Id|Cc): /i;

/**
 * Parses `git log --format=%x1e%H%x1f%at%x1f%an%x1f%cn%x1f%P%x1f%B%x1f --name-status -z -M` output;
 * `toVault` maps a repository path to the vault's, or null for a path outside the vault.
 */
export function parseGitLog(output: string, toVault: (path: string) => string | null = (p) => p): CommitRecord[] {
  const out: CommitRecord[] = [];
  for (const record of output.split(RECORD)) {
    if (!record.trim()) continue;
    const parts = record.split(FIELD);
    if (parts.length < 7) continue;
    const [sha, time, author, person, parentList, message] = parts;
    const rest = parts
      .slice(6)
      .join(FIELD)
      .replace(/^\0?\n?/, '');
    const tokens = rest.split('\0').filter((t) => t !== '' && t !== '\n');
    const paths: CommitRecord['paths'] = [];
    for (let i = 0; i < tokens.length; i += 1) {
      const status = tokens[i].replace(/^\n/, '');
      if (/^[RC]/.test(status)) {
        const [from, to] = [toVault(tokens[i + 1]), toVault(tokens[i + 2])];
        // A rename across the vault's edge is an add or a delete as the vault sees it.
        if (from !== null && to !== null) paths.push({ status: status[0], oldPath: from, path: to });
        else if (to !== null) paths.push({ status: 'A', oldPath: null, path: to });
        else if (from !== null && status[0] === 'R') paths.push({ status: 'D', oldPath: null, path: from });
        i += 2;
      } else {
        const path = toVault(tokens[i + 1]);
        if (path !== null) paths.push({ status: status[0], oldPath: null, path });
        i += 1;
      }
    }
    const parsed = parseCommitMessage(message);
    const lucid = parsed.trailers[TRAILER.actor] !== undefined;
    const trailers = lucid ? parsed.trailers : {};
    out.push({
      sha,
      time: Number(time),
      author,
      person,
      machine: trailers[TRAILER.machine] ?? null,
      actor: trailers[TRAILER.actor] ?? null,
      op: trailers[TRAILER.op] ?? null,
      editId: trailers[TRAILER.edit] ?? null,
      session: trailers[TRAILER.session] ?? null,
      parents: parentList.trim() === '' ? 0 : parentList.trim().split(/\s+/).length,
      subject: parsed.subject,
      reason: lucid ? parsed.body : personBody(message),
      trailers,
      paths,
    });
  }
  return out;
}

/** A commit message's body as its author wrote it, without git's own trailers (`Signed-off-by`, …). */
function personBody(message: string): string {
  const lines = message.replace(/\r\n/g, '\n').split('\n').slice(1);
  while (lines.length > 0 && (lines[lines.length - 1].trim() === '' || GIT_TRAILER.test(lines[lines.length - 1]))) lines.pop();
  return lines.join('\n').trim();
}

interface Row {
  seq: number;
  sha: string;
  time: number;
  author: string;
  person: string;
  machine: string | null;
  actor: string | null;
  op: string | null;
  edit_id: string | null;
  session: string | null;
  parents: number;
  subject: string;
  reason: string;
  trailers: string;
  paths: string;
}

/**
 * Every commit of the vault (sha, time, actor, op, edit id, session, paths) in SQLite under
 * `.lucid/`, brought up to date incrementally from the last indexed commit and rebuilt when that
 * commit is no longer an ancestor of HEAD, so no lookup walks the whole history.
 */
export class CommitIndex {
  private constructor(
    private readonly db: Database.Database,
    private readonly repo: GitRepo,
  ) {}

  /** Opens (creating or rebuilding on a version change) the index at `dbPath`. */
  static open(dbPath: string, repo: GitRepo): CommitIndex {
    const db = new Database(dbPath);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)');
    const version = db.prepare("SELECT value FROM meta WHERE key = 'version'").get() as { value: string } | undefined;
    if (!version || Number(version.value) !== COMMIT_INDEX_VERSION) {
      db.exec('DROP TABLE IF EXISTS commits; DROP TABLE IF EXISTS commit_paths;');
      db.exec(`
        CREATE TABLE commits (seq INTEGER PRIMARY KEY, sha TEXT UNIQUE NOT NULL, time INTEGER NOT NULL, author TEXT NOT NULL,
          person TEXT NOT NULL, machine TEXT, actor TEXT, op TEXT, edit_id TEXT, session TEXT, parents INTEGER NOT NULL, subject TEXT NOT NULL, reason TEXT NOT NULL, trailers TEXT NOT NULL, paths TEXT NOT NULL);
        CREATE INDEX commits_edit ON commits(edit_id);
        CREATE INDEX commits_session ON commits(session);
        CREATE INDEX commits_time ON commits(time);
        CREATE INDEX commits_actor ON commits(actor);
        CREATE INDEX commits_machine ON commits(machine);
        CREATE INDEX commits_person ON commits(person);
        CREATE TABLE commit_paths (seq INTEGER NOT NULL, path TEXT NOT NULL, status TEXT NOT NULL, old_path TEXT);
        CREATE INDEX commit_paths_path ON commit_paths(path);
      `);
      db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('version', ?)").run(String(COMMIT_INDEX_VERSION));
      db.prepare("DELETE FROM meta WHERE key = 'head'").run();
    }
    return new CommitIndex(db, repo);
  }

  /** Indexes the commits since the last update; returns how many were added. */
  async update(): Promise<number> {
    const head = await headCommit(this.repo);
    const last = (this.db.prepare("SELECT value FROM meta WHERE key = 'head'").get() as { value: string } | undefined)?.value ?? null;
    if (head === last) return 0;
    let range: string[] = head ? [head] : [];
    let rebuild = last === null;
    if (head && last) {
      const ancestor = await gitSucceeds(this.repo, ['merge-base', '--is-ancestor', last, head]);
      if (ancestor) range = [`${last}..${head}`];
      else rebuild = true;
    }
    if (rebuild) this.db.exec('DELETE FROM commits; DELETE FROM commit_paths;');
    if (!head) {
      this.db.prepare("DELETE FROM meta WHERE key = 'head'").run();
      return 0;
    }
    const output = await runGit(this.repo, [
      '-c',
      'core.quotePath=false',
      'log',
      '--reverse',
      '-z',
      '-M',
      '--name-status',
      `--format=${RECORD}%H${FIELD}%at${FIELD}%an${FIELD}%cn${FIELD}%P${FIELD}%B${FIELD}`,
      // Every merge that brought a change, even one whose tree is its second parent's (a `--no-ff`
      // merge): path limiting alone would simplify it away, and the changelog would never show it.
      '--full-history',
      ...range,
      // Only the vault's commits and paths, when the vault is a folder of a larger repository.
      '--',
      '.',
    ]);
    const records = parseGitLog(output, (p) => vaultPathOf(this.repo, p));
    const insert = this.db.prepare(
      'INSERT OR IGNORE INTO commits (sha, time, author, person, machine, actor, op, edit_id, session, parents, subject, reason, trailers, paths) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const insertPath = this.db.prepare('INSERT INTO commit_paths (seq, path, status, old_path) VALUES (?, ?, ?, ?)');
    this.db.transaction(() => {
      for (const r of records) {
        const info = insert.run(
          r.sha,
          r.time,
          r.author,
          r.person,
          r.machine,
          r.actor,
          r.op,
          r.editId,
          r.session,
          r.parents,
          r.subject,
          r.reason,
          JSON.stringify(r.trailers),
          JSON.stringify(r.paths),
        );
        if (info.changes === 0) continue;
        for (const p of r.paths) insertPath.run(info.lastInsertRowid, p.path, p.status, p.oldPath);
      }
      this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('head', ?)").run(head);
    })();
    return records.length;
  }

  /** Newest first (or oldest first when asked), filtered; at most `limit` rows read, never the whole history. */
  list(query: CommitQuery = {}): (CommitRecord & { seq: number })[] {
    const { where, args } = this.filter(query);
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 1000);
    const rows = this.db
      .prepare(`SELECT * FROM commits c ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY c.seq ${query.oldestFirst ? 'ASC' : 'DESC'} LIMIT ?`)
      .all(...args, limit) as Row[];
    return rows.map(toRecord);
  }

  /** Every `Lucid-Actor` that has made a commit, sorted (from the actor index, not the commits). */
  actors(): string[] {
    return (this.db.prepare('SELECT DISTINCT actor FROM commits WHERE actor IS NOT NULL ORDER BY actor').all() as { actor: string }[]).map((r) => r.actor);
  }

  /**
   * The machines (`Lucid-Machine`) and the people (committers) seen in the history, sorted, at most
   * `limit` of each (from their indexes, not the commits), for the dashboard's filters.
   */
  origins(limit = 200): { machines: string[]; persons: string[] } {
    const distinct = (column: 'machine' | 'person') =>
      (this.db.prepare(`SELECT DISTINCT ${column} AS v FROM commits WHERE ${column} IS NOT NULL ORDER BY ${column} LIMIT ?`).all(limit) as { v: string }[]).map(
        (r) => r.v,
      );
    return { machines: distinct('machine'), persons: distinct('person') };
  }

  /** How many commits match (the query's limit is ignored). */
  countWhere(query: CommitQuery): number {
    const { where, args } = this.filter(query);
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM commits c ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`).get(...args) as { n: number }).n;
  }

  private filter(query: CommitQuery): { where: string[]; args: unknown[] } {
    const where: string[] = [];
    const args: unknown[] = [];
    if (query.beforeSeq !== undefined) {
      where.push('c.seq < ?');
      args.push(query.beforeSeq);
    }
    if (query.afterSeq !== undefined) {
      where.push('c.seq > ?');
      args.push(query.afterSeq);
    }
    if (query.people) where.push("(c.actor IS NULL OR c.actor LIKE 'human:%')");
    if (query.actor) {
      where.push('c.actor = ?');
      args.push(query.actor);
    }
    if (query.op) {
      where.push('c.op = ?');
      args.push(query.op);
    }
    if (query.session) {
      where.push('c.session = ?');
      args.push(query.session);
    }
    if (query.machine) {
      where.push('c.machine = ?');
      args.push(query.machine);
    }
    if (query.person) {
      where.push('c.person = ?');
      args.push(query.person);
    }
    if (query.since !== undefined) {
      where.push('c.time >= ?');
      args.push(query.since);
    }
    if (query.until !== undefined) {
      where.push('c.time <= ?');
      args.push(query.until);
    }
    if (query.path) {
      where.push('c.seq IN (SELECT seq FROM commit_paths WHERE path = ? OR old_path = ?)');
      args.push(query.path, query.path);
    }
    if (query.folders) {
      // A range on the path index per folder: `decisions/` up to `decisions0` ('0' follows '/').
      const ranges = query.folders.map(() => '(path >= ? AND path < ?)');
      where.push(ranges.length ? `c.seq IN (SELECT seq FROM commit_paths WHERE ${ranges.join(' OR ')})` : '0');
      for (const folder of query.folders) {
        let end = folder.length;
        while (end > 0 && folder[end - 1] === '/') end -= 1;
        const prefix = `${folder.slice(0, end)}/`;
        args.push(prefix, `${prefix.slice(0, -1)}0`);
      }
    }
    if (query.foreign !== undefined) where.push(query.foreign ? 'c.actor IS NULL' : 'c.actor IS NOT NULL');
    return { where, args };
  }

  /** The commit of an edit id, or null. */
  byEdit(editId: string): (CommitRecord & { seq: number }) | null {
    const row = this.db.prepare('SELECT * FROM commits WHERE edit_id = ? ORDER BY seq DESC LIMIT 1').get(editId) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** The commit with this sha (or this unambiguous prefix of at least 7 hex digits), or null. */
  bySha(sha: string): (CommitRecord & { seq: number }) | null {
    const wanted = sha.toLowerCase();
    if (!/^[0-9a-f]{7,64}$/.test(wanted)) return null;
    const rows = this.db.prepare('SELECT * FROM commits WHERE sha >= ? AND sha < ? ORDER BY sha LIMIT 2').all(wanted, `${wanted}g`) as Row[];
    return rows.length === 1 ? toRecord(rows[0]) : null;
  }

  /** A file's commits, newest first, following renames back through its earlier names. */
  historyOf(path: string, limit = 200): (CommitRecord & { seq: number })[] {
    const out: (CommitRecord & { seq: number })[] = [];
    let name = path;
    let before = Number.MAX_SAFE_INTEGER;
    const step = this.db.prepare(
      'SELECT c.*, p.status AS p_status, p.old_path AS p_old FROM commit_paths p JOIN commits c ON c.seq = p.seq WHERE p.path = ? AND p.seq < ? ORDER BY p.seq DESC LIMIT ?',
    );
    for (let hops = 0; hops < 50 && out.length < limit; hops += 1) {
      const rows = step.all(name, before, limit - out.length) as (Row & { p_status: string; p_old: string | null })[];
      if (rows.length === 0) break;
      let renamedFrom: string | null = null;
      for (const row of rows) {
        out.push(toRecord(row));
        before = row.seq;
        if (row.p_status === 'R' && row.p_old) {
          renamedFrom = row.p_old;
          break;
        }
      }
      if (!renamedFrom) break;
      name = renamedFrom;
    }
    return out;
  }

  /**
   * Which of `paths` `actor` ever committed, under the path or a name it had before (renames
   * followed back, as {@link historyOf} does): a few lookups on the path index each, no commit read.
   */
  committedBy(actor: string, paths: readonly string[]): Set<string> {
    const renamedFrom = this.db.prepare("SELECT DISTINCT old_path FROM commit_paths WHERE path = ? AND status = 'R' AND old_path IS NOT NULL");
    const byActor = this.db.prepare('SELECT 1 FROM commit_paths p JOIN commits c ON c.seq = p.seq WHERE p.path = ? AND c.actor = ? LIMIT 1');
    const out = new Set<string>();
    for (const path of paths) {
      const names = [path];
      for (let i = 0; i < names.length && names.length < 50; i += 1) {
        for (const row of renamedFrom.all(names[i]) as { old_path: string }[]) if (!names.includes(row.old_path)) names.push(row.old_path);
      }
      if (names.some((name) => byActor.get(name, actor) !== undefined)) out.add(path);
    }
    return out;
  }

  /** How many commits are indexed. */
  count(): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM commits').get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}

function toRecord(row: Row): CommitRecord & { seq: number } {
  return {
    seq: row.seq,
    sha: row.sha,
    time: row.time,
    author: row.author,
    person: row.person,
    machine: row.machine,
    actor: row.actor,
    op: row.op,
    editId: row.edit_id,
    session: row.session,
    parents: row.parents,
    subject: row.subject,
    reason: row.reason,
    trailers: JSON.parse(row.trailers) as Record<string, string>,
    paths: JSON.parse(row.paths) as CommitRecord['paths'],
  };
}
