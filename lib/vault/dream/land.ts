import { isVaultError, VaultError } from '../errors';
import { oneLine } from '../text';
import { TRAILER, moltTrailer } from '../git/commit-message';
import { commitEnv, runGit } from '../git/repo';
import { assertNoSecret } from '../write/secrets';
import { OPS, type Op } from '../write/edit-types';
import type { Vault } from '../vault';
import { planDreamChange } from './change-plan';
import { DREAM_CHANGE_TRAILER, DREAM_DISMISSED_TRAILER, dreamRef, type DreamChangeView, findDreamChange, type DreamRunView, showDreamRun } from './runs';
import { DREAM_TRAILER, type DreamProgress } from './types';

/**
 * A person's decisions on a dream run: landing changes on the vault's current branch (each through
 * the one write path, as one commit with its changelog line), dismissing them (a record on the dream
 * branch itself), and settling the run (its branch deleted once every change is landed or
 * dismissed). Never switches HEAD, never checks out the dream branch, never touches the working
 * tree but through the write path.
 */

/** What landing chosen changes did. */
export interface LandReport {
  runId: string;
  /** The changes landed, in the branch's order, each with its commit on the current branch. */
  landed: { id: string; editId: string; commit: string; rebased: boolean }[];
  /** The chosen changes that did not land, and why (already landed, dismissed, no longer applies). */
  skipped: { id: string; why: string }[];
  /** Every change is now landed or dismissed, and the branch was deleted. */
  settled: boolean;
}

/** What dismissing changes did. */
export interface DismissReport {
  runId: string;
  dismissed: string[];
  skipped: { id: string; why: string }[];
  /** The dismissal record on the branch (null when nothing was dismissed). */
  commit: string | null;
  settled: boolean;
}

/** Refuses to work on a run whose branch is checked out: its commits are then the person's current branch. */
async function assertNotCheckedOut(vault: Vault, runId: string): Promise<void> {
  const head = (await runGit(vault.repo, ['symbolic-ref', '-q', 'HEAD']).catch(() => '')).trim();
  if (head === dreamRef(runId)) {
    throw new VaultError(
      'repo_state',
      `The vault has the dream branch ${head.slice('refs/heads/'.length)} checked out. Switch back to your branch (git switch -), then review the run; nothing changed.`,
    );
  }
}

/** The chosen changes (all undecided ones when `ids` is absent), in the branch's order. */
function chosen(run: DreamRunView, ids: readonly string[] | undefined, undecided: DreamChangeView['status'][]): DreamChangeView[] {
  if (ids === undefined) return run.changes.filter((c) => undecided.includes(c.status));
  if (!Array.isArray(ids) || ids.length === 0)
    throw new VaultError('invalid_input', 'Name the changes (their ids, as lucid dream show prints them), or choose all.', { field: 'changes' });
  const picked = new Set(ids.map((id) => findDreamChange(run, id).sha));
  return run.changes.filter((c) => picked.has(c.sha));
}

/** Errors that stop one change from landing and leave the rest to go on: the change is reported, never forced. */
const CHANGE_LEVEL = ['conflict', 'schema_violation', 'invalid_frontmatter', 'forbidden', 'too_large', 'binary', 'not_found', 'invalid_path'] as const;

/**
 * Lands chosen changes of a dream run (`changes`: edit ids or commit ids; absent: every pending
 * one) on the vault's current branch, oldest first, each as one commit with its changelog line made
 * by the write path as the person at this vault: the change's op and reason, `Lucid-Dream: <run id>`
 * and {@link DREAM_CHANGE_TRAILER}`: <the branch commit's edit id>` (and `Lucid-Molt` with the
 * version numbers it lands with). Each change is rebased onto the vault's text now (see
 * change-plan.ts); one that no longer applies is skipped with the reason, and the others go on. A
 * person's uncommitted version of a file is committed as theirs first. When every change is then
 * landed or dismissed, the branch is deleted. `onProgress` is told before each chosen change and
 * once at the end (phase `land`).
 */
export async function landDreamChanges(
  vault: Vault,
  input: { runId: string; changes?: string[] },
  options: { onProgress?: (progress: DreamProgress) => void } = {},
): Promise<LandReport> {
  await assertNotCheckedOut(vault, input.runId);
  const run = await showDreamRun(vault, input.runId, { plan: false });
  const report: LandReport = { runId: run.runId, landed: [], skipped: [], settled: false };
  const picked = chosen(run, input.changes, ['pending', 'inapplicable']);
  for (const [n, change] of picked.entries()) {
    options.onProgress?.({ phase: 'land', done: n, total: picked.length });
    if (change.status === 'landed') {
      report.skipped.push({ id: change.id, why: `It landed already (commit ${change.landed?.commit.slice(0, 7)}).` });
      continue;
    }
    if (change.status === 'dismissed') {
      report.skipped.push({ id: change.id, why: `It was dismissed by ${change.dismissed?.actor}.` });
      continue;
    }
    const plan = await planDreamChange(vault, change.sha);
    if (!plan.ok) {
      report.skipped.push({ id: change.id, why: `It no longer applies: ${plan.why}` });
      continue;
    }
    const trailers: [string, string][] = [
      [DREAM_TRAILER, run.runId],
      [DREAM_CHANGE_TRAILER, change.id],
    ];
    // The version the skill lands with: the branch's numbers, or the ones it was raised from now.
    const raised = plan.versions[0];
    if (raised) trailers.push(moltTrailer(raised.name, raised.from, raised.to));
    else if (change.molt) trailers.push(['Lucid-Molt', change.molt]);
    const op: Op = (OPS as readonly string[]).includes(change.op) ? (change.op as Op) : 'update';
    try {
      const result = await vault.edit({
        actor: vault.person,
        op,
        path: change.path,
        reason: oneLine(`${change.reason || `${op} ${change.path}`} (dream run ${run.runId})`),
        changes: plan.changes,
        trailers,
      });
      report.landed.push({ id: change.id, editId: result.editId, commit: result.commit, rebased: plan.rebased });
    } catch (error) {
      if (!isVaultError(error) || !(CHANGE_LEVEL as readonly string[]).includes(error.code)) throw error;
      const why = error.code === 'conflict' ? `A file changed while it was landing; look again and retry. (${error.message})` : error.message;
      report.skipped.push({ id: change.id, why });
    }
  }
  options.onProgress?.({ phase: 'land', done: picked.length, total: picked.length });
  report.settled = await settleDreamRun(vault, run.runId);
  return report;
}

/**
 * Dismisses chosen changes of a dream run (absent: every change not landed): the person does not
 * want them. Recorded in git, on the dream branch itself, as one commit whose tree is the branch's
 * (it changes no file) with `Lucid-Actor`, `Lucid-Dream` and {@link DREAM_DISMISSED_TRAILER}, added
 * with a compare-and-swap `update-ref`: every clone that has the branch knows. Landed changes are
 * skipped. When every change is then landed or dismissed, the branch is deleted.
 */
export async function dismissDreamChanges(vault: Vault, input: { runId: string; changes?: string[]; reason?: string }): Promise<DismissReport> {
  if (input.reason !== undefined && typeof input.reason !== 'string') throw new VaultError('invalid_input', 'The reason must be text.', { field: 'reason' });
  const reason = oneLine(input.reason ?? '');
  assertNoSecret('reason', reason);
  await assertNotCheckedOut(vault, input.runId);
  const ref = dreamRef(input.runId);
  for (let attempt = 1; ; attempt += 1) {
    const run = await showDreamRun(vault, input.runId, { plan: false });
    const report: DismissReport = { runId: run.runId, dismissed: [], skipped: [], commit: null, settled: false };
    for (const change of chosen(run, input.changes, ['pending', 'inapplicable'])) {
      if (change.status === 'landed') report.skipped.push({ id: change.id, why: `It landed already (commit ${change.landed?.commit.slice(0, 7)}).` });
      else if (change.status === 'dismissed') report.skipped.push({ id: change.id, why: `It was dismissed already by ${change.dismissed?.actor}.` });
      else report.dismissed.push(change.id);
    }
    if (report.dismissed.length === 0) {
      report.settled = await settleDreamRun(vault, run.runId);
      return report;
    }
    const who = vault.gitIdentity(vault.person);
    const env = commitEnv({ author: who, committer: who, date: vault.clock() });
    const count = report.dismissed.length;
    const message = `dismiss ${count} change${count === 1 ? '' : 's'} of dream run ${run.runId}\n\n${reason || `dismissed by ${vault.person}`}\n\n${TRAILER.actor}: ${vault.person}\n${DREAM_TRAILER}: ${run.runId}\n${DREAM_DISMISSED_TRAILER}: ${report.dismissed.join(' ')}\n${TRAILER.machine}: ${vault.machine}\n`;
    const commit = (await runGit(vault.repo, ['commit-tree', `${run.tip}^{tree}`, '-p', run.tip, '-F', '-'], env, message)).trim();
    try {
      await runGit(vault.repo, ['update-ref', '-m', `lucid: ${message.split('\n')[0]}`, ref, commit, run.tip]);
    } catch (error) {
      // Another dismissal moved the branch since it was read: read it again and decide again.
      if (attempt < 5 && isVaultError(error, 'io_error')) continue;
      throw error;
    }
    report.commit = commit;
    report.settled = await settleDreamRun(vault, run.runId);
    return report;
  }
}

/**
 * Deletes a run's branch when every change is landed or dismissed (compare-and-swap on the tip it
 * read; HEAD is never touched, and a checked-out dream branch is never deleted). Returns whether
 * the run is settled and gone; a run that still has undecided changes is left as it is.
 */
async function settleDreamRun(vault: Vault, runId: string): Promise<boolean> {
  const run = await showDreamRun(vault, runId, { plan: false }).catch((error: unknown) => {
    if (isVaultError(error, 'not_found')) return null;
    throw error;
  });
  if (run === null) return true;
  if (!run.settled) return false;
  await assertNotCheckedOut(vault, runId);
  await runGit(vault.repo, ['update-ref', '-m', `lucid: settled dream run ${runId}`, '-d', dreamRef(runId), run.tip]);
  return true;
}
