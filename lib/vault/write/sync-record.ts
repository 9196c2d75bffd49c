import nodePath from 'node:path';
import type { VaultFs } from '../fs';
import { blobId, runGit, type GitRepo } from '../git/repo';
import type { IdSource } from '../ids';
import { TEMP_PREFIX } from '../notes/paths';

/**
 * The sync's crash record, `.lucid/sync-ahead.json`: written (and flushed) before the branch moves
 * to the integrated commit, removed once the work tree and index have followed. A record found later
 * belongs to a sync that died in between: {@link finishInterruptedSync} brings the work tree to the
 * new commit, so the remote's changes never look like a person's uncommitted edits (which the next
 * write would commit as theirs, reverting the remote).
 */

/** The record's file name in `.lucid/` (the write path's crash check looks for it too). */
export const SYNC_RECORD = 'sync-ahead.json';

/** What the record holds: the branch, and the commits it moves from and to. */
export interface SyncRecord {
  version: 1;
  ref: string;
  old: string;
  new: string;
  startedAt: string;
}

/** What the record's functions need of the vault. */
export interface RecordContext {
  repo: GitRepo;
  fs: VaultFs;
  ids: IdSource;
  stateDir(): string;
}

/** Writes the record, flushed, before the branch moves. */
export async function writeSyncRecord(ctx: RecordContext, record: Omit<SyncRecord, 'version'>): Promise<void> {
  const dir = ctx.stateDir();
  const temp = nodePath.join(dir, `${TEMP_PREFIX}${ctx.ids.base32(10)}`);
  try {
    await ctx.fs.writeNewFile(temp, Buffer.from(JSON.stringify({ version: 1, ...record }), 'utf8'), 0o600);
    await ctx.fs.rename(temp, nodePath.join(dir, SYNC_RECORD));
    await ctx.fs.fsyncDir(dir);
  } catch (error) {
    await ctx.fs.unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Removes the record: the work tree has followed the branch. */
export async function removeSyncRecord(ctx: Pick<RecordContext, 'fs' | 'stateDir'>): Promise<void> {
  await ctx.fs.unlink(nodePath.join(ctx.stateDir(), SYNC_RECORD)).catch(() => undefined);
}

async function readSyncRecord(ctx: Pick<RecordContext, 'fs' | 'stateDir'>): Promise<SyncRecord | null> {
  try {
    const record = JSON.parse((await ctx.fs.readFile(nodePath.join(ctx.stateDir(), SYNC_RECORD))).toString('utf8')) as SyncRecord;
    const sha = /^[0-9a-f]{40}$/;
    if (record.version === 1 && sha.test(record.old) && sha.test(record.new) && /^refs\/heads\/[^\s]+$/.test(record.ref)) return record;
  } catch {
    // absent or unreadable
  }
  return null;
}

/** One path of `git diff-tree -r -z --no-renames` raw output: modes and blobs before and after (null: absent). */
export interface TreeChange {
  /** Repository-relative. */
  path: string;
  oldMode: string | null;
  oldBlob: string | null;
  newMode: string | null;
  newBlob: string | null;
}

const ZERO = /^0+$/;

/** The paths that differ between two commits, with their modes and blobs (renames as delete + add). */
export async function treeChanges(repo: GitRepo, from: string, to: string): Promise<TreeChange[]> {
  const out = await runGit(repo, ['diff-tree', '-r', '-z', '--no-renames', '--full-index', from, to, '--']);
  const tokens = out.split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < tokens.length; i += 2) {
    const meta = /^:(\d{6}) (\d{6}) ([0-9a-f]{40}) ([0-9a-f]{40}) \w+$/.exec(tokens[i]);
    if (!meta) continue;
    const [, oldMode, newMode, oldBlob, newBlob] = meta;
    changes.push({
      path: tokens[i + 1],
      oldMode: ZERO.test(oldMode) ? null : oldMode,
      oldBlob: ZERO.test(oldBlob) ? null : oldBlob,
      newMode: ZERO.test(newMode) ? null : newMode,
      newBlob: ZERO.test(newBlob) ? null : newBlob,
    });
  }
  return changes;
}

/** The blob a work-tree path holds now (a link as its target), or null when absent. Read only. */
async function diskBlob(fs: VaultFs, abs: string): Promise<string | null> {
  const stat = await fs.lstat(abs).catch(() => null);
  if (!stat) return null;
  if (stat.isSymbolicLink()) return blobId(Buffer.from(await fs.readlink(abs), 'utf8'));
  if (!stat.isFile()) return 'not-a-file';
  return blobId(await fs.readFile(abs));
}

const top = (path: string) => `:(top,literal)${path}`;

/**
 * Finishes a sync that died between moving the branch and updating the work tree (see the module
 * comment); must run under the vault lock. Each path the sync changed whose file is still the old
 * version (or already the new one) is brought to the new commit, in the work tree and the index;
 * a file a person changed since is left as it is (the index follows the branch, so it shows as
 * their edit). Returns the repository paths it brought up to date; null when there was no record.
 */
export async function finishInterruptedSync(ctx: RecordContext): Promise<string[] | null> {
  const record = await readSyncRecord(ctx);
  if (!record) return null;
  const { repo } = ctx;
  const tip = (await runGit(repo, ['rev-parse', '--verify', '-q', record.ref]).catch(() => '')).trim();
  // The branch never moved (or moved elsewhere since, by a person's own git): nothing to finish.
  if (tip !== record.new) {
    await removeSyncRecord(ctx);
    return [];
  }
  const finish: string[] = [];
  const remove: string[] = [];
  const leave: string[] = [];
  for (const change of await treeChanges(repo, record.old, record.new)) {
    const disk = await diskBlob(ctx.fs, nodePath.join(repo.top, change.path));
    if (disk !== change.oldBlob && disk !== change.newBlob) leave.push(change.path);
    else if (change.newBlob === null) remove.push(change.path);
    else finish.push(change.path);
  }
  if (finish.length > 0) await runGit(repo, ['checkout', '-q', record.new, '--', ...finish.map(top)]);
  if (remove.length > 0) await runGit(repo, ['rm', '-q', '-f', '--ignore-unmatch', '--', ...remove.map(top)]);
  if (leave.length > 0) await runGit(repo, ['reset', '-q', record.new, '--', ...leave.map(top)]);
  await removeSyncRecord(ctx);
  return [...finish, ...remove];
}
