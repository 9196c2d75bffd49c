import { isUtf8 } from 'node:buffer';
import { hostname } from 'node:os';
import nodePath from 'node:path';
import { VaultError } from '../errors';
import type { VaultFs } from '../fs';
import type { IdSource } from '../ids';
import { blobId, headCommit, runGit, type GitRepo } from '../git/repo';
import { TEMP_PREFIX } from '../notes/paths';
import { finishInterruptedSync, SYNC_RECORD } from './sync-record';
import { ioError } from './atomic';
import { applyWrite, resolveForWrite, unlinkConfined } from './confine';
import { readCurrentFile } from './confine-read';

/**
 * The write-ahead record of one commit of the write path (`.lucid/write-ahead.json`): written
 * and flushed before the first file changes, moved on at each stage, removed when the commit and
 * the real index are both done. A record found by the next holder of the vault lock belongs to a
 * writer that died (records are only written under the lock), and {@link recoverInterruptedWrite}
 * finishes or undoes its edit from it.
 */

/**
 * The stages of one commit, in order: `recorded` (the record is on disk, no file changed yet),
 * `files-written`, `commit-tree` (the commit object exists, HEAD not moved), `update-ref` (HEAD
 * is the commit), `index-refreshed` (the real index matches it; only the record's removal is left).
 */
export const WRITE_STAGES = ['recorded', 'files-written', 'commit-tree', 'update-ref', 'index-refreshed'] as const;
export type WriteStage = (typeof WRITE_STAGES)[number];

/**
 * Called by the write path at each stage boundary, after the stage is reached (a test's fault
 * injection: a worker that kills itself at one stage). Awaited; a throw fails the write.
 */
export type StageHook = (stage: WriteStage, edit: { editId: string; actor: string }) => void | Promise<void>;

/** One file the commit writes or deletes: its blob before and after (null: absent). */
export interface RecordedFile {
  path: string;
  oldBlob: string | null;
  newBlob: string | null;
  /** The file's mode before, when it existed. */
  oldMode?: number;
  /** The old bytes (base64), kept when git's object store may not hold them. */
  oldBytes?: string;
}

/** What `.lucid/write-ahead.json` holds. */
export interface WriteRecord {
  version: 1;
  editId: string;
  actor: string;
  /** The process that wrote the record and the host it ran on, for messages. */
  pid: number;
  hostname: string;
  startedAt: string;
  /** HEAD under the lock, which the commit sits on (null: no commits yet). */
  parent: string | null;
  /** The commit, once `commit-tree` made it. */
  commit: string | null;
  stage: WriteStage;
  /** Every path of the commit (written ones and a person's files committed as they are). */
  paths: string[];
  /** The files the commit writes or deletes. */
  files: RecordedFile[];
}

/** What recovery did with an interrupted edit. */
export interface RecoveryReport {
  editId: string;
  actor: string;
  pid: number;
  hostname: string;
  /** The stage the record had reached. */
  stage: WriteStage;
  /** `completed`: the commit had landed, the real index was brought up to date; `rolled-back`: as if it never happened. */
  outcome: 'completed' | 'rolled-back';
  /** Every path of the interrupted commit. */
  paths: string[];
  /** Files put back to their old bytes (or removed, when the edit created them). */
  restored: string[];
  /** Files a person changed after the crash: neither the old nor the new bytes, left alone. */
  leftAlone: string[];
  /** Temp files and temp indexes removed (vault paths; `.lucid/…` for Lucid's own). */
  swept: string[];
  /** One sentence for logs and `lucid doctor`. */
  message: string;
}

const RECORD = 'write-ahead.json';

/** Where the record lives in `.lucid/`. */
function recordPath(stateDir: string): string {
  return nodePath.join(stateDir, RECORD);
}

/** What the journal needs from the vault. */
export interface JournalContext {
  root: string;
  repo: GitRepo;
  fs: VaultFs;
  ids: IdSource;
  stateDir(): string;
  onStage?: StageHook;
}

/** A file about to be written or deleted, with what it was. */
export interface JournalWrite {
  path: string;
  bytes: Uint8Array | null;
  before: { bytes: Buffer; mode: number } | null;
}

/** The open record of one commit in progress. */
export interface Journal {
  readonly record: WriteRecord;
  /** Moves the record to `stage` (and calls the stage hook). */
  stage(stage: WriteStage, commit?: string): Promise<void>;
  /** Removes the record: the edit is fully done, or fully undone. */
  end(): Promise<void>;
}

/**
 * Writes the record of a commit about to be made (flushed, file and folder) and calls the stage
 * hook with `recorded`. `headBlobs` are HEAD's blob ids of the paths: a file whose old bytes are
 * not HEAD's blob (or are not UTF-8, which git's text output would not give back exactly) keeps
 * its old bytes in the record, so a rollback restores them exactly.
 */
export async function beginJournal(
  ctx: JournalContext,
  input: { editId: string; actor: string; startedAt: Date; parent: string | null; paths: string[]; writes: JournalWrite[]; headBlobs: Map<string, string> },
): Promise<Journal> {
  const files: RecordedFile[] = input.writes.map((write) => {
    const file: RecordedFile = {
      path: write.path,
      oldBlob: write.before ? blobId(write.before.bytes) : null,
      newBlob: write.bytes ? blobId(write.bytes) : null,
    };
    if (write.before) {
      file.oldMode = write.before.mode;
      if (input.headBlobs.get(write.path) !== file.oldBlob || !isUtf8(write.before.bytes)) file.oldBytes = write.before.bytes.toString('base64');
    }
    return file;
  });
  const record: WriteRecord = {
    version: 1,
    editId: input.editId,
    actor: input.actor,
    pid: process.pid,
    hostname: hostname(),
    startedAt: input.startedAt.toISOString(),
    parent: input.parent,
    commit: null,
    stage: 'recorded',
    paths: input.paths,
    files,
  };
  const dir = ctx.stateDir();
  try {
    await saveRecord(ctx, dir, record, true);
  } catch (error) {
    // No file has changed yet: a record that may not have reached the disk is better gone.
    await ctx.fs.unlink(recordPath(dir)).catch(() => undefined);
    throw error;
  }
  await ctx.onStage?.('recorded', { editId: record.editId, actor: record.actor });
  return {
    record,
    async stage(stage, commit) {
      record.stage = stage;
      if (commit) record.commit = commit;
      // Best effort, never flushed: recovery decides from git and the files, not from the stage
      // (a commit is found by its Lucid-Edit trailer), so a lost update costs nothing, and a
      // failure after update-ref must not turn a landed commit into a rollback.
      await saveRecord(ctx, dir, record, false).catch(() => undefined);
      await ctx.onStage?.(stage, { editId: record.editId, actor: record.actor });
    },
    async end() {
      await ctx.fs.unlink(recordPath(dir)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw ioError(error, 'remove the write-ahead record');
      });
    },
  };
}

async function saveRecord(ctx: JournalContext, dir: string, record: WriteRecord, durable: boolean): Promise<void> {
  const temp = nodePath.join(dir, `${TEMP_PREFIX}${ctx.ids.base32(10)}`);
  try {
    // Only the first record is flushed (file and folder); a stage update is a plain write and
    // rename, since recovery decides from git and the files, and an fsync costs milliseconds.
    if (durable) await ctx.fs.writeNewFile(temp, Buffer.from(JSON.stringify(record), 'utf8'), 0o600);
    else ctx.fs.writeNewFileSync(temp, JSON.stringify(record));
    await ctx.fs.rename(temp, recordPath(dir));
    if (durable) await ctx.fs.fsyncDir(dir);
  } catch (error) {
    await ctx.fs.unlink(temp).catch(() => undefined);
    throw ioError(error, 'write the write-ahead record in .lucid/');
  }
}

/** The record left in `.lucid/`, or null. An unreadable one is moved aside (`write-ahead.json.broken-…`) and ignored. */
async function readRecord(ctx: Pick<JournalContext, 'fs' | 'ids'>, stateDir: string): Promise<WriteRecord | null> {
  const file = recordPath(stateDir);
  let text: string;
  try {
    text = (await ctx.fs.readFile(file)).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw ioError(error, 'read the write-ahead record in .lucid/');
  }
  try {
    const record = JSON.parse(text) as WriteRecord;
    if (record.version === 1 && typeof record.editId === 'string' && Array.isArray(record.files) && Array.isArray(record.paths)) return record;
  } catch {
    // falls through
  }
  await ctx.fs.rename(file, `${file}.broken-${ctx.ids.base32(6)}`).catch(() => undefined);
  return null;
}

/** Whether `.lucid/` holds anything a dead writer left: a record (a write's or a sync's), a temp index, a temp file. Never creates `.lucid/`. */
export async function hasCrashLeftovers(fs: VaultFs, stateDir: string): Promise<boolean> {
  const entries = await fs.readdir(stateDir).catch(() => []);
  return entries.some((entry) => entry.name === RECORD || entry.name === SYNC_RECORD || entry.name.startsWith('index-') || entry.name.startsWith(TEMP_PREFIX));
}

/**
 * Finishes or undoes the edit a dead writer left in `.lucid/write-ahead.json`, then sweeps the
 * temp files and temp indexes it left. Must run under the vault lock. When the record's commit
 * is on HEAD (or in HEAD's history), the edit happened: the real index is set to HEAD for its
 * paths, so that no later commit of the person's can undo it. Otherwise it never happened: each
 * file whose bytes are still the new ones gets its old bytes back (a file the edit created is
 * removed); a file that is neither old nor new was changed by a person since, and is left alone.
 * A sync that died between moving its branch and its work tree is finished first (sync-record.ts).
 * Returns null when there was no record (leftover temp files are still swept).
 */
export async function recoverInterruptedWrite(ctx: JournalContext): Promise<RecoveryReport | null> {
  const stateDir = ctx.stateDir();
  // A sync that died after moving the branch: the work tree follows it first, so that none of the
  // remote's changes is taken for a person's uncommitted edit (and committed as theirs).
  await finishInterruptedSync(ctx);
  const record = await readRecord(ctx, stateDir);
  if (!record) {
    await sweepLeftovers(ctx, stateDir, []);
    return null;
  }
  const who = `${record.actor}'s edit ${record.editId} (process ${record.pid} on ${record.hostname}, stopped at stage ${record.stage})`;
  const restored: string[] = [];
  const leftAlone: string[] = [];
  let outcome: RecoveryReport['outcome'];
  try {
    const commit = await landedCommit(ctx.repo, record);
    if (commit) {
      outcome = 'completed';
      await runGit(ctx.repo, ['reset', '-q', 'HEAD', '--', ...record.paths.map((p) => `:(literal)${p}`)]);
    } else {
      outcome = 'rolled-back';
      for (const file of [...record.files].reverse()) {
        const result = await rollBackFile(ctx, file);
        if (result === 'restored') restored.push(file.path);
        if (result === 'left-alone') leftAlone.push(file.path);
      }
    }
  } catch (error) {
    throw new VaultError(
      'io_error',
      `${who} was interrupted and could not be finished or undone: ${(error as Error).message}. Nothing else is written until it is; fix the cause and try again.`,
    );
  }
  const swept = await sweepLeftovers(ctx, stateDir, record.paths);
  await ctx.fs.unlink(recordPath(stateDir)).catch(() => undefined);
  const message =
    outcome === 'completed'
      ? `Finished ${who}: its commit had landed; the git index now matches it.`
      : `Undid ${who}: its commit had not landed; ${restored.length} file(s) put back${leftAlone.length ? `, ${leftAlone.join(', ')} left alone (changed since)` : ''}.`;
  return {
    editId: record.editId,
    actor: record.actor,
    pid: record.pid,
    hostname: record.hostname,
    stage: record.stage,
    outcome,
    paths: record.paths,
    restored,
    leftAlone,
    swept,
    message,
  };
}

/** The record's commit if HEAD is it or contains it (found by its `Lucid-Edit` trailer when the record has no commit yet). */
async function landedCommit(repo: GitRepo, record: WriteRecord): Promise<string | null> {
  const range = record.parent ? ['HEAD', `^${record.parent}`] : ['HEAD'];
  let out: string;
  try {
    out = await runGit(repo, ['rev-list', '-F', `--grep=Lucid-Edit: ${record.editId}`, ...range, '--']);
  } catch (error) {
    // No HEAD yet (the edit was to be the first commit): nothing landed. Any other failure (a
    // timeout under load) must not read as "not landed", which would undo a committed edit.
    if (record.parent === null && (await headCommit(repo)) === null) return null;
    throw error;
  }
  const found = out.split('\n').filter(Boolean);
  if (record.commit) return found.includes(record.commit) ? record.commit : null;
  return found[0] ?? null;
}

async function rollBackFile(ctx: JournalContext, file: RecordedFile): Promise<'restored' | 'unchanged' | 'left-alone'> {
  if (file.oldBlob === file.newBlob) return 'unchanged';
  let abs: string;
  try {
    abs = await resolveForWrite(ctx.fs, ctx.root, file.path);
  } catch {
    return 'left-alone'; // a link or a file where a folder was: not the edit's doing
  }
  // Read and written through folder descriptors, never through a link that replaced a folder since.
  const current = (await readCurrentFile(ctx.fs, abs))?.bytes ?? null;
  const currentBlob = current ? blobId(current) : null;
  if (currentBlob === file.oldBlob) return 'unchanged';
  if (currentBlob !== file.newBlob) return 'left-alone';
  if (file.oldBlob === null) {
    await applyWrite(ctx.fs, ctx.root, { path: file.path, bytes: null, before: null }, ctx.ids);
    return 'restored';
  }
  const old =
    file.oldBytes !== undefined ? Buffer.from(file.oldBytes, 'base64') : Buffer.from(await runGit(ctx.repo, ['cat-file', 'blob', file.oldBlob]), 'utf8');
  if (blobId(old) !== file.oldBlob) throw new VaultError('io_error', `the old bytes of ${file.path} could not be found (blob ${file.oldBlob})`);
  await applyWrite(ctx.fs, ctx.root, { path: file.path, bytes: old, mode: file.oldMode, before: null }, ctx.ids);
  return 'restored';
}

/**
 * Removes what a dead writer left: temp indexes and temp files in `.lucid/`, and Lucid temp files
 * in the folders of `paths`. Under the vault lock every one of them is a dead writer's, whatever
 * its age (temp files are only made under the lock).
 */
async function sweepLeftovers(ctx: JournalContext, stateDir: string, paths: readonly string[]): Promise<string[]> {
  const swept: string[] = [];
  for (const entry of await ctx.fs.readdir(stateDir).catch(() => [])) {
    if (entry.isFile() && (entry.name.startsWith('index-') || entry.name.startsWith(TEMP_PREFIX))) {
      await ctx.fs.unlink(nodePath.join(stateDir, entry.name)).catch(() => undefined);
      swept.push(`.lucid/${entry.name}`);
    }
  }
  for (const folder of new Set(paths.map((p) => nodePath.posix.dirname(p)))) {
    const abs = folder === '.' ? ctx.root : nodePath.join(ctx.root, folder);
    const real = await ctx.fs.realpath(abs).catch(() => null);
    if (real !== abs) continue; // gone, or a link now: nothing of ours is behind it
    for (const entry of await ctx.fs.readdir(abs).catch(() => [])) {
      if (entry.isFile() && entry.name.startsWith(TEMP_PREFIX)) {
        // Unlinked through the folder's verified descriptor: a folder swapped for a link since the listing is refused.
        await unlinkConfined(ctx.fs, ctx.root, folder === '.' ? '' : folder, entry.name).catch(() => undefined);
        swept.push(folder === '.' ? entry.name : `${folder}/${entry.name}`);
      }
    }
  }
  return swept;
}
