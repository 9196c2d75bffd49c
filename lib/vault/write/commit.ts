import nodePath from 'node:path';
import type { VaultLayout } from '../notes/layout';
import type { FileOwner, VaultFs } from '../fs';
import { addChangelogLine, formatChangelogLine } from '../git/changelog';
import { formatCommitMessage } from '../git/commit-message';
import { blobId, commitPaths, runGit, type GitIdentity, type GitRepo } from '../git/repo';
import { formatDate, newEditId, type Clock, type IdSource } from '../ids';
import type { Note } from '../notes/note';
import { applyWrite, resolveForWrite, undoWrite, unlinkConfined } from './confine';
import { readCurrentFile } from './confine-read';
import type { Op } from './edit-types';
import { beginJournal, recoverInterruptedWrite, type Journal, type RecoveryReport, type StageHook } from './journal';
import type { LockOptions } from './lock';

/**
 * The commit of the write path (write/edit.ts): files and the changelog line written, a write-ahead
 * record kept, one commit made through a temporary index, everything put back on failure.
 */

/** What a write needs of the reader: to keep the note it wrote, so the next read need not parse it again. */
export interface NoteCache {
  remember(note: Note, size: number, mtimeMs: number): void;
}

/** Everything the write path needs from the vault it writes to. */
export interface WriteContext {
  root: string;
  repo: GitRepo;
  layout: VaultLayout;
  clock: Clock;
  ids: IdSource;
  fs: VaultFs;
  /** The person at this vault (`human:<name>`), their git name and email. */
  person: string;
  personName: string;
  personEmail: string;
  /** The machine this vault is open on (`Lucid-Machine` of every commit). */
  machine: string;
  lockOptions: LockOptions;
  /** `.lucid/`, created on demand. */
  stateDir(): string;
  /** The reader whose note cache a write updates (read/reader.ts's NoteReader). */
  reader: NoteCache;
  /** Called once per written path after its commit. */
  afterWrite(path: string): void;
  /** Called at each stage of a commit the write-ahead record names (tests inject crashes with it). */
  onStage?: StageHook;
  /** Told what recovery did when it found an edit a dead writer left unfinished. */
  onRecovered?(report: RecoveryReport): void;
}

/** A file as it was on disk under the lock, before the edit. */
export interface Current {
  bytes: Buffer;
  mode: number;
  /** Kept when the file is rewritten (a note root rewrites stays its owner's). */
  owner?: FileOwner;
  mtimeMs: number;
}

/** One file to write (bytes) or delete (null), with what it was, to restore on failure. */
export interface Write {
  path: string;
  abs: string;
  bytes: Uint8Array | null;
  mode?: number;
  owner?: FileOwner;
  before: Current | null;
  /** The note as written, parsed already (kept in the reader's cache after the commit). */
  note?: Note;
}

/** A file's bytes, mode, owner and mtime as they are on disk now (null: absent), read confined to the vault. */
export async function readCurrent(fs: VaultFs, abs: string): Promise<Current | null> {
  return readCurrentFile(fs, abs);
}

/** Stores the checked bytes of files as git blobs (through a scratch file in .lucid/, removed at once). */
async function storeBlobs(
  ctx: WriteContext,
  files: readonly (readonly [string, Current | null])[],
): Promise<{ path: string; blob: string | null; executable: boolean }[]> {
  const out: { path: string; blob: string | null; executable: boolean }[] = [];
  for (const [path, current] of files) {
    if (current === null) {
      out.push({ path, blob: null, executable: false });
      continue;
    }
    const scratch = nodePath.join(ctx.stateDir(), `stage-${ctx.ids.base32(10)}`);
    try {
      await ctx.fs.writeNewFile(scratch, current.bytes);
      const blob = (await runGit(ctx.repo, ['hash-object', '-w', `--path=${path}`, '--', scratch])).trim();
      out.push({ path, blob, executable: (current.mode & 0o111) !== 0 });
    } finally {
      await ctx.fs.unlink(scratch).catch(() => undefined);
    }
  }
  return out;
}

/** Writes files and the changelog, commits them with the trailers; restores everything on failure. */
export async function commitLocked(
  ctx: WriteContext,
  input: {
    actor: string;
    op: Op;
    path: string;
    reason: string;
    session?: string;
    writes: Write[];
    /** A person's uncommitted files, committed as these checked bytes (null: deleted), never re-read from disk. */
    alsoCommit: (readonly [string, Current | null])[];
    trailers: [string, string][];
    parent: string | null;
    changelog: { abs: string; current: Current | null };
    /** HEAD's blob ids of the paths (the write-ahead record keeps the old bytes of a file that is not HEAD's). */
    headBlobs: Map<string, string>;
    assertHeld: () => void;
  },
): Promise<{ editId: string; commit: string; changelog: Current }> {
  const editId = newEditId(ctx.ids);
  const now = ctx.clock();
  const month = formatDate(now).slice(0, 7);
  const current = input.changelog.current;
  const line = formatChangelogLine({
    date: now,
    actor: input.actor,
    op: input.op,
    path: input.path,
    reason: input.reason,
    session: input.session,
    sessionsFolder: ctx.layout.sessions,
    editId,
  });
  // Rotation reads a month's archive only on the first edit of a month, synchronously, inside addChangelogLine.
  const rotated = addChangelogLine(current ? current.bytes.toString('utf8') : null, line, month, (m) => {
    const abs = nodePath.join(ctx.root, `${ctx.layout.changelogArchive}/${m}.md`);
    return ctx.fs.existsSync(abs) ? ctx.fs.readFileSync(abs).toString('utf8') : null;
  });
  const changelogBytes = Buffer.from(rotated.changelog, 'utf8');
  const writes: Write[] = [...input.writes];
  writes.push({ path: ctx.layout.changelog, abs: input.changelog.abs, bytes: changelogBytes, mode: current?.mode, owner: current?.owner, before: current });
  for (const [m, text] of rotated.archives) {
    const path = `${ctx.layout.changelogArchive}/${m}.md`;
    const abs = await resolveForWrite(ctx.fs, ctx.root, path);
    writes.push({ path, abs, bytes: Buffer.from(text, 'utf8'), before: await readCurrent(ctx.fs, abs) });
  }

  const message = formatCommitMessage({
    op: input.op,
    path: input.path,
    reason: input.reason,
    actor: input.actor,
    editId,
    session: input.session,
    extra: input.trailers,
    machine: ctx.machine,
  });
  const done: Write[] = [];
  const paths = [...new Set([...writes.map((w) => w.path), ...input.alsoCommit.map(([path]) => path)])];
  const exact = await storeBlobs(ctx, input.alsoCommit);
  // Composing and checking may have run past the stale time: nothing is written once the lock is lost.
  input.assertHeld();
  const journal = await beginJournal(ctx, { editId, actor: input.actor, startedAt: now, parent: input.parent, paths, writes, headBlobs: input.headBlobs });
  try {
    // Deletions last: a write that fails (a full disk, a read-only folder) then fails before any
    // file is gone, and putting a deleted file back cannot hit the fault that stopped the edit.
    for (const write of [...writes.filter((w) => w.bytes !== null), ...writes.filter((w) => w.bytes === null)]) {
      done.push(write);
      await applyWrite(ctx.fs, ctx.root, write, ctx.ids);
    }
    await journal.stage('files-written');
    input.assertHeld();
    const commit = await commitPaths(ctx.repo, {
      paths,
      message,
      author: identityOf(ctx, input.actor),
      committer: { name: ctx.personName, email: ctx.personEmail },
      date: now,
      parent: input.parent,
      indexFile: nodePath.join(ctx.stateDir(), `index-${ctx.ids.base32(8)}`),
      exact,
      onStage: (stage, sha) => journal.stage(stage, sha),
    }).finally(() => removeTempIndexes(ctx));
    // A real index left stale (another git process held index.lock) keeps the record, so the next
    // holder of the lock refreshes it before a person's commit could undo this edit.
    if (journal.record.stage === 'index-refreshed') await journal.end();
    for (const write of writes) ctx.afterWrite(write.path);
    return { editId, commit, changelog: { bytes: changelogBytes, mode: current?.mode ?? 0o644, mtimeMs: 0 } };
  } catch (error) {
    // HEAD already holds the commit (only a stage hook throws this late): the edit happened, and
    // the record tells the next lock holder to bring the index up to date; nothing is undone.
    if (landed(journal)) throw error;
    for (const write of done.reverse()) {
      try {
        await undoWrite(ctx.fs, ctx.root, write, ctx.ids);
      } catch {
        // best effort: the original error is what the caller needs
      }
    }
    await settleJournal(ctx, journal);
    throw error;
  }
}

function landed(journal: Journal): boolean {
  return journal.record.stage === 'update-ref' || journal.record.stage === 'index-refreshed';
}

/**
 * After a failed commit was rolled back in process: the record goes, unless a file could not be
 * put back, or the commit may exist (a git process failed after commit-tree): then recovery
 * decides from git and the files, as after a crash.
 */
async function settleJournal(ctx: WriteContext, journal: Journal): Promise<void> {
  try {
    const reachedGit = journal.record.stage !== 'recorded' && journal.record.stage !== 'files-written';
    const intact = await Promise.all(
      journal.record.files.map(async (file) => {
        const abs = nodePath.join(ctx.root, file.path);
        const bytes = await ctx.fs.readFile(abs).catch(() => null);
        return (bytes ? blobId(bytes) : null) === file.oldBlob;
      }),
    );
    if (!reachedGit && intact.every(Boolean)) await journal.end();
    else report(ctx, await recoverInterruptedWrite(ctx));
  } catch {
    // the record stays; the next writer recovers from it
  }
}

/** Tells the vault what recovery did, when it did anything. */
export function report(ctx: WriteContext, recovered: RecoveryReport | null): void {
  if (recovered) ctx.onRecovered?.(recovered);
}

async function removeTempIndexes(ctx: WriteContext): Promise<void> {
  const dir = ctx.stateDir();
  for (const entry of await ctx.fs.readdir(dir).catch(() => [])) {
    if (entry.name.startsWith('index-')) await unlinkConfined(ctx.fs, ctx.root, nodePath.basename(dir), entry.name);
  }
}

/** The git name and email an actor's commits carry: the person's own from git config, a made-up one for others. */
export function identityOf(ctx: Pick<WriteContext, 'person' | 'personName' | 'personEmail'>, actor: string): GitIdentity {
  if (actor === ctx.person) return { name: ctx.personName, email: ctx.personEmail };
  if (actor.startsWith('human:')) return { name: actor.slice(6), email: 'person@lucid.invalid' };
  return { name: actor, email: `${actor.slice(6)}@agents.lucid.invalid` };
}
