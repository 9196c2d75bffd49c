import { VaultError } from '../errors';
import { gitSucceeds, headCommit, runGit } from '../git/repo';
import type { Vault } from '../vault';
import { integrate, type Integration } from './integrate';
import { fetchRemote, pushRemote, resolveTarget, writeSyncFile, type SyncTarget } from './remote';
import type { SyncOptions, SyncReport } from './types';

/** How many times a push the remote rejected (someone pushed meanwhile) is fetched, integrated and tried again. */
const PUSH_ATTEMPTS = 3;

/** Syncs of one vault in this process run one after another (a schedule and a button may ask at once). */
const running = new Map<string, Promise<unknown>>();

/**
 * Syncs the vault with its git remote, never losing a person's or an agent's edit and never
 * rewriting history: fetch (outside the vault lock, with git's own credentials, never prompting);
 * under the vault lock, a person's uncommitted notes committed as theirs, then the remote's branch
 * brought in by a fast-forward or by a merge commit built on a temporary index (a note both sides
 * changed keeps the remote's version, the local one goes to the inbox as a `conflict` proposal;
 * the changelog merges by union; `.lucid/` entries from the remote are refused); then push (outside
 * the lock), fetching and integrating again when the remote moved meanwhile, up to three times.
 * The outcome (or the error) is recorded in `.lucid/sync.json`.
 *
 * Errors are VaultError: `invalid_input` (no remote, no such remote), `conflict` (what to run),
 * `io_error` (fetch or push failed: git's message and how to fix credentials), `repo_state`.
 */
export async function syncVault(vault: Vault, options: SyncOptions = {}): Promise<SyncReport> {
  const previous = running.get(vault.root) ?? Promise.resolve();
  const mine = previous.catch(() => undefined).then(() => syncOnce(vault, options));
  running.set(vault.root, mine);
  try {
    return await mine;
  } finally {
    if (running.get(vault.root) === mine) running.delete(vault.root);
  }
}

async function syncOnce(vault: Vault, options: SyncOptions): Promise<SyncReport> {
  try {
    const report = await run(vault, options);
    await writeSyncFile(vault, { report, at: vault.clock() });
    return report;
  } catch (error) {
    await writeSyncFile(vault, { error: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

async function run(vault: Vault, options: SyncOptions): Promise<SyncReport> {
  const progress = options.onProgress ?? (() => undefined);
  const { repo } = vault;
  const ctx = vault.writeContext();
  const target = await resolveTarget(repo, options.remote);
  const tracking = `${target.remote}/${target.remoteBranch}`;
  const steps: Integration[] = [];
  let pushed = false;
  for (let attempt = 1; ; attempt += 1) {
    progress('fetch', tracking);
    const remoteCommit = await fetchRemote(repo, target);
    progress('integrate', remoteCommit ? tracking : `${tracking} does not exist yet: nothing to bring in`);
    steps.push(await integrate(vault, ctx, target, remoteCommit, () => progress('commit-uncommitted')));
    if (options.push === false) break;
    const head = await headCommit(repo);
    if (!head || !(await hasNew(vault, head, remoteCommit))) break;
    progress('push', `${head.slice(0, 7)} to ${tracking}`);
    if ((await pushRemote(repo, target, head)) === 'pushed') {
      pushed = true;
      await runGit(repo, ['update-ref', target.trackingRef, head]).catch(() => undefined);
      break;
    }
    if (attempt >= PUSH_ATTEMPTS) {
      throw new VaultError(
        'conflict',
        `${target.remote} kept changing while Lucid pushed (${PUSH_ATTEMPTS} tries: others are pushing right now). Everything of yours is committed here; run lucid sync again in a moment.`,
      );
    }
  }
  return summarize(target, steps, pushed, (await headCommit(repo)) as string);
}

/** Whether HEAD holds commits the remote's branch does not (null: the remote has no branch yet). */
async function hasNew(vault: Vault, head: string, remoteCommit: string | null): Promise<boolean> {
  if (remoteCommit === null) return true;
  if (head === remoteCommit) return false;
  return !(await gitSucceeds(vault.repo, ['merge-base', '--is-ancestor', head, remoteCommit]));
}

function summarize(target: SyncTarget, steps: Integration[], pushed: boolean, head: string): SyncReport {
  const outcome = steps.some((s) => s.outcome === 'merged')
    ? 'merged'
    : steps.some((s) => s.outcome === 'fast-forward')
      ? 'fast-forward'
      : pushed
        ? 'pushed'
        : 'up-to-date';
  const unique = <T extends { path: string }>(items: T[]) => [...new Map(items.map((i) => [`${i.path}\0${JSON.stringify(i)}`, i])).values()];
  return {
    remote: target.remote,
    branch: target.branch,
    outcome,
    before: steps[0].before,
    head,
    received: steps.reduce((n, s) => n + s.received, 0),
    pushed,
    committedFirst: [...new Set(steps.flatMap((s) => s.committedFirst))],
    conflicts: steps.flatMap((s) => s.conflicts),
    refused: unique(steps.flatMap((s) => s.refused)),
    warnings: unique(steps.flatMap((s) => s.warnings)),
  };
}
