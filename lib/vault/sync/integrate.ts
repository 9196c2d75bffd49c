import nodePath from 'node:path';
import { VaultError } from '../errors';
import { assertWritableRepo, gitSucceeds, headCommit, runGit, vaultPathOf } from '../git/repo';
import { uncommittedNotes } from '../history/uncommitted';
import type { Vault } from '../vault';
import type { WriteContext } from '../write/commit';
import type { EditRequest } from '../write/edit-types';
import { hasCrashLeftovers, recoverInterruptedWrite } from '../write/journal';
import { withVaultLock } from '../write/lock';
import { commitOnDiskLocked } from '../write/on-disk';
import { report } from '../write/commit';
import { inspectIncoming, refuseIncoming } from './incoming';
import { buildMerge } from './merge';
import { finishInterruptedSync, removeSyncRecord, treeChanges, writeSyncRecord } from '../write/sync-record';
import type { SyncTarget } from './remote';
import type { SyncReport } from './types';
import { machineTrailer } from '../git/commit-message';

/**
 * The part of a sync that runs under the vault lock (the network stays outside it): a person's
 * uncommitted notes committed as theirs, then the fetched branch brought in by a fast-forward or a
 * merge commit, the branch moved with its old value as the expected one and the work tree moved
 * after it (a crash record in between), and every changed path told to the vault.
 */

/** What one integration did. */
export type Integration = Pick<SyncReport, 'before' | 'head' | 'received' | 'committedFirst' | 'conflicts' | 'refused' | 'warnings'> & {
  outcome: 'up-to-date' | 'fast-forward' | 'merged';
};

/** Runs the integration of `remoteCommit` (null: the remote has no such branch) under the vault lock. */
export function integrate(vault: Vault, ctx: WriteContext, target: SyncTarget, remoteCommit: string | null, onCommitFirst: () => void): Promise<Integration> {
  return withVaultLock(
    nodePath.join(ctx.stateDir(), 'vault'),
    async (assertHeld) => {
      if (await hasCrashLeftovers(ctx.fs, nodePath.join(ctx.root, '.lucid'))) report(ctx, await recoverInterruptedWrite(ctx));
      await assertWritableRepo(ctx.repo, ctx.fs);
      const committedFirst = await commitPersonFirst(vault, ctx, assertHeld, onCommitFirst);
      const before = await headCommit(ctx.repo);
      if (before === null) throw new VaultError('repo_state', 'The vault has no commit yet. Run lucid init, then lucid sync.');
      const nothing: Integration = { outcome: 'up-to-date', before, head: before, received: 0, committedFirst, conflicts: [], refused: [], warnings: [] };
      if (remoteCommit === null) return nothing;
      if (await gitSucceeds(ctx.repo, ['merge-base', '--is-ancestor', remoteCommit, before])) return nothing;
      const base = (await runGit(ctx.repo, ['merge-base', before, remoteCommit]).catch(() => '')).trim();
      const tracking = `${target.remote}/${target.remoteBranch}`;
      if (!base) {
        throw new VaultError(
          'conflict',
          `This vault and ${tracking} share no history (two separate \`git init\`s?). Nothing of it was brought in and no file changed. Clone the remote into a new folder and open that as the vault, or run \`git merge --allow-unrelated-histories ${tracking}\` and resolve, then lucid sync.`,
        );
      }
      const received = Number((await runGit(ctx.repo, ['rev-list', '--count', `${before}..${remoteCommit}`, '--'])).trim()) || 0;
      const { taken, refused } = refuseIncoming(ctx.repo, await treeChanges(ctx.repo, base, remoteCommit));
      let next = remoteCommit;
      let conflicts: Integration['conflicts'] = [];
      const fastForward = base === before && refused.length === 0;
      if (!fastForward) {
        const merge = await buildMerge(ctx, {
          head: before,
          remote: remoteCommit,
          base,
          tracking,
          remoteChanges: taken,
          localChanges: await treeChanges(ctx.repo, base, before),
          received,
          machine: machineTrailer(vault),
        });
        next = merge.commit;
        conflicts = merge.conflicts;
      }
      const warnings = await inspectIncoming(ctx.repo, taken, next);
      assertHeld();
      const changed = await moveBranch(ctx, `refs/heads/${target.branch}`, before, next, tracking);
      for (const path of changed) ctx.afterWrite(path);
      return { outcome: fastForward ? 'fast-forward' : 'merged', before, head: next, received, committedFirst, conflicts, refused, warnings };
    },
    ctx.lockOptions,
  );
}

/** A person's uncommitted notes, committed as theirs as they are on disk (one commit, through the write path's own step). */
async function commitPersonFirst(vault: Vault, ctx: WriteContext, assertHeld: () => void, onCommitFirst: () => void): Promise<string[]> {
  const files = await uncommittedNotes(vault);
  if (files.length === 0) return [];
  onCommitFirst();
  const paths = [...new Set(files.flatMap((f) => (f.oldPath ? [f.path, f.oldPath] : [f.path])))];
  const reason = `saved ${ctx.personName}'s uncommitted edit${paths.length === 1 ? '' : 's'} before a sync`;
  const request: EditRequest = {
    actor: ctx.person,
    op: 'update',
    path: paths[0],
    reason,
    changes: paths.map((path) => ({ path, content: null })),
    asOnDisk: true,
  };
  await commitOnDiskLocked(ctx, request, { changes: request.changes, subjectPath: paths[0], reason, trailers: [] }, assertHeld);
  return paths;
}

/**
 * Moves the branch from `old` to `next` and the work tree and real index after it, as a checkout
 * of the new commit would on the same branch (never another branch, never a detached HEAD): a dry
 * run first (a file git would overwrite stops the sync, nothing changed), the crash record, the
 * branch moved only if it is still `old`, then `read-tree -m -u`. Returns the vault paths changed.
 */
async function moveBranch(ctx: WriteContext, ref: string, old: string, next: string, tracking: string): Promise<string[]> {
  const { repo } = ctx;
  await runGit(repo, ['update-index', '-q', '--refresh']).catch(() => undefined);
  try {
    await runGit(repo, ['read-tree', '-m', '-u', '-n', old, next]);
  } catch (error) {
    throw new VaultError(
      'conflict',
      `Bringing in ${tracking} would overwrite files with changes nobody committed (${(error as Error).message.replace(/^git read-tree failed: /, '')}). Nothing of it was brought in and no file changed. Commit or move those files (git status shows them), then run lucid sync again.`,
    );
  }
  await writeSyncRecord(ctx, { ref, old, new: next, startedAt: ctx.clock().toISOString() });
  try {
    await runGit(repo, ['update-ref', '-m', `lucid: sync ${tracking}`, ref, next, old]);
  } catch {
    await removeSyncRecord(ctx);
    throw new VaultError('repo_state', 'Another git process moved the branch while Lucid was syncing; nothing was changed. Run lucid sync again.');
  }
  try {
    await runGit(repo, ['read-tree', '-m', '-u', old, next]);
    await removeSyncRecord(ctx);
  } catch {
    // The branch has moved: the work tree must follow it, path by path, as after a crash.
    await finishInterruptedSync(ctx);
  }
  return (await treeChanges(repo, old, next)).map((c) => vaultPathOf(repo, c.path)).filter((p): p is string => p !== null);
}
