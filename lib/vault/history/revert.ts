import { moltTrailer } from '../git/commit-message';
import nodePath from 'node:path';
import { isVaultError, VaultError, type VaultErrorCode } from '../errors';
import { oneLine } from '../text';
import type { CommitRecord } from '../git/commit-index';
import { runGit } from '../git/repo';
import { vaultStatusLines } from '../git/status';
import { cryptoIds } from '../ids';
import { hashBytes } from '../notes/frontmatter';
import { assertCreatable } from '../notes/protected';
import { inspectLock } from '../write/lock';
import type { Vault } from '../vault';
import type { FileChange } from '../write/edit-types';
import { reverseCommit, type Reversal, type Target } from './reverse';
import type { RevertBlocker, RevertPlan } from './revert-types';

/**
 * One-click revert (VAULT-FORMAT "Reverts"): a dry run on a temporary index first, then the
 * resulting files written through the one write path as the person's edit, in one commit with its
 * changelog line. The reverted commit and its changelog line are never touched.
 */

const EDIT_ID = /^e[a-z2-7]{12}$/;
const FULL_SHA = /^[0-9a-f]{40}$/i;
/** Later edits named per conflicting file, at most. */
const MAX_LATER = 20;

/** A plan, with what the real revert needs and the plan does not show. */
interface Planned {
  plan: RevertPlan;
  record: CommitRecord & { seq: number };
  reversal: Reversal;
  /** sha256 of each target file on disk when planned (null: absent): how the plan words its effects. */
  hashes: Map<string, string | null>;
  /** The error code a revert of this plan fails with (null when ok). */
  code: VaultErrorCode | null;
}

/**
 * The commit a ref names: an edit id (through the commit index) or a full 40-character sha of the
 * vault's history. Anything else (`--output=x`, `HEAD~1`, short or non-hex values) is refused
 * before git sees it.
 */
async function findCommit(vault: Vault, ref: unknown): Promise<CommitRecord & { seq: number }> {
  if (typeof ref !== 'string' || !(EDIT_ID.test(ref) || FULL_SHA.test(ref))) {
    throw new VaultError(
      'invalid_input',
      'Name the edit to revert by its edit id (e and 12 letters a-z or digits 2-7, as at the end of its changelog line) or by its full 40-character commit id.',
      { field: 'ref' },
    );
  }
  const index = await vault.commits();
  if (EDIT_ID.test(ref)) {
    const record = index.byEdit(ref);
    if (!record) throw new VaultError('not_found', `No edit ${ref} in this vault's history.`, { field: 'ref' });
    return record;
  }
  const sha = ref.toLowerCase();
  const record = index.bySha(sha);
  if (!record || record.sha !== sha) {
    throw new VaultError(
      'not_found',
      `No commit ${sha} in this vault's history (a commit on another branch, or one that changed nothing in the vault, cannot be reverted here).`,
      {
        field: 'ref',
      },
    );
  }
  return record;
}

/** The reverted commit in words: `agent:x's update of a.md (e…)` or `commit abc1234 by Ada ("subject")`. */
function describeCommit(record: CommitRecord): string {
  if (record.actor) return `${record.actor}'s ${record.op ?? 'edit'} of ${subjectPath(record) ?? record.subject}${record.editId ? ` (${record.editId})` : ''}`;
  return `commit ${record.sha.slice(0, 7)} by ${oneLine(record.author, 80)} ("${oneLine(record.subject, 80)}")`;
}

/** The note a Lucid commit is about: its subject is `<op> <path>`. */
function subjectPath(record: CommitRecord): string | null {
  if (!record.actor || !record.op || !record.subject.startsWith(`${record.op} `)) return null;
  return record.subject.slice(record.op.length + 1);
}

function listed(items: string[], max = 3): string {
  const shown = items.slice(0, max);
  const rest = items.length - shown.length;
  const head = shown.length > 1 ? `${shown.slice(0, -1).join(', ')} and ${shown[shown.length - 1]}` : (shown[0] ?? '');
  return rest > 0 ? `${shown.join(', ')} and ${rest} more` : head;
}

/** The commits after `record` that changed `path`, oldest first. */
async function laterEdits(vault: Vault, record: CommitRecord & { seq: number }, path: string): Promise<RevertBlocker['laterEdits']> {
  return (await vault.commits())
    .list({ path, afterSeq: record.seq, limit: MAX_LATER })
    .reverse()
    .map((c) => ({ edit: c.editId, commit: c.sha, actor: c.actor ?? `human:${c.author}`, op: c.op, subject: c.subject }));
}

/**
 * The patch the revert would make: HEAD read into a temporary index in `.lucid/` (never the real
 * one), the target files staged there, and `git diff --cached` against HEAD.
 */
async function patchOf(vault: Vault, targets: readonly Target[]): Promise<string> {
  if (targets.length === 0) return '';
  // Not the vault's id source: a dry run must not move a seeded one on.
  const indexFile = nodePath.join(vault.stateDir(), `revert-${cryptoIds.base32(10)}.index`);
  const env = { GIT_INDEX_FILE: indexFile };
  try {
    await runGit(vault.repo, ['read-tree', 'HEAD'], env);
    const lines: string[] = [];
    for (const target of targets) {
      const path = `${vault.repo.prefix}${target.path}`;
      if (target.content === null) lines.push(`0 ${'0'.repeat(40)}\t${path}`);
      else {
        const blob = (await runGit(vault.repo, ['hash-object', '-w', '--stdin'], undefined, target.content)).trim();
        lines.push(`${/^1007/.test(target.mode) ? '100755' : '100644'} ${blob}\t${path}`);
      }
    }
    await runGit(vault.repo, ['update-index', '--index-info'], env, `${lines.join('\n')}\n`);
    return await runGit(
      vault.repo,
      ['-c', 'core.quotePath=false', 'diff', '--cached', '-M', '--no-color', '--no-ext-diff', '--no-textconv', '--relative', 'HEAD', '--'],
      env,
    );
  } finally {
    await vault.fs.unlink(indexFile).catch(() => undefined);
  }
}

/** sha256 of each target's bytes on disk (null: absent), read confined to the vault. */
async function diskHashes(vault: Vault, paths: readonly string[]): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for (const path of paths) {
    try {
      out.set(path, hashBytes(await vault.readFileBytes(path)));
    } catch (error) {
      if (!isVaultError(error, 'not_found')) throw error;
      out.set(path, null);
    }
  }
  return out;
}

/** What the revert would do, in one sentence's worth of phrases. */
function effects(reversal: Reversal, hashes: Map<string, string | null>): string {
  const phrases: string[] = [];
  for (const target of reversal.targets) {
    if (reversal.molt && target.path === reversal.molt.path) {
      phrases.push(`molt ${target.path} to version ${reversal.molt.from + 1} with the text it had before`);
    } else if (target.content === null) phrases.push(`delete ${target.path}`);
    else if (hashes.get(target.path) === null) phrases.push(`restore ${target.path}`);
    else phrases.push(`change ${target.path} back`);
  }
  return listed(phrases, 6);
}

async function planInternal(vault: Vault, ref: unknown): Promise<Planned> {
  const record = await findCommit(vault, ref);
  const what = describeCommit(record);
  const base = {
    ref: ref as string,
    commit: record.sha,
    edit: record.editId,
    op: record.op,
    actor: record.actor ?? `human:${record.author}`,
    subject: record.subject,
    foreign: record.actor === null,
  };
  const reversal = await reverseCommit(vault, record);
  const refusal = (sentence: string, code: VaultErrorCode = 'forbidden'): Planned => ({
    plan: { ...base, paths: [], patch: '', refused: sentence, blockers: [], ok: false, message: `Cannot revert ${what}. ${sentence}` },
    record,
    reversal,
    hashes: new Map(),
    code,
  });
  if (reversal.refused) return refusal(reversal.refused);
  const paths = [...new Set([...reversal.targets.map((t) => t.path), ...reversal.conflicts])];
  if (paths.length === 0) return refusal('Its changes are already undone (the files are as they were before it).', 'invalid_input');
  const hashes = await diskHashes(vault, paths);
  for (const target of reversal.targets) {
    if (target.content === null || hashes.get(target.path) !== null) continue;
    try {
      await assertCreatable(vault.fs, vault.root, vault.layout, target.path);
    } catch (error) {
      if (isVaultError(error)) return refusal(`${target.path} cannot be restored under that name: ${error.message}`);
      throw error;
    }
  }

  const blockers: RevertBlocker[] = [];
  for (const path of reversal.conflicts) blockers.push({ kind: 'conflict', path, laterEdits: await laterEdits(vault, record, path) });
  // Every line counts, an add deleted again included: the revert must not commit over what is staged.
  const dirty = new Set((await vaultStatusLines(vault.repo, { paths, renames: false })).map((line) => line.path));
  for (const path of paths) if (dirty.has(path)) blockers.push({ kind: 'uncommitted', path, laterEdits: [] });
  const patch = await patchOf(vault, reversal.targets);
  const clause: string[] = [];
  const conflicts = blockers.filter((b) => b.kind === 'conflict');
  for (const b of conflicts.slice(0, 3)) {
    const by = b.laterEdits.map((e) => `${e.edit ?? `commit ${e.commit.slice(0, 7)}`} by ${e.actor}`);
    clause.push(`later edits changed the same part of ${b.path}${by.length ? ` (${listed(by)})` : ''}`);
  }
  if (conflicts.length > 3) clause.push(`and ${conflicts.length - 3} more files conflict`);
  const uncommitted = blockers.filter((b) => b.kind === 'uncommitted').map((b) => b.path);
  if (uncommitted.length > 0) {
    clause.push(`${listed(uncommitted)} ${uncommitted.length === 1 ? 'has' : 'have'} uncommitted changes (commit them as your own edit, or undo them, first)`);
  }
  const leftAlone = reversal.leftAlone.length ? ` It leaves ${listed(reversal.leftAlone)} alone: Lucid does not write there.` : '';
  const files = record.actor === null ? ` (${paths.length} file${paths.length === 1 ? '' : 's'})` : '';
  const message =
    blockers.length > 0
      ? `Cannot revert ${what}: ${clause.join('; ')}. Nothing was changed.`
      : `Reverting ${what} would ${effects(reversal, hashes)}${files}.${leftAlone}`;
  return {
    plan: { ...base, paths, patch, refused: null, blockers, ok: blockers.length === 0, message },
    record,
    reversal,
    hashes,
    code: conflicts.length > 0 ? 'conflict' : uncommitted.length > 0 ? 'dirty_worktree' : null,
  };
}

/** How long a plan waits for a Lucid writer to finish the commit of a file it has written. */
const WRITER_WAIT_MS = 5000;

/**
 * {@link planInternal}, taken again once when a file looked uncommitted: a Lucid writer holding
 * the vault lock may have written it and not committed it yet. The second plan waits for that
 * lock to be free (at most 5 s); a person's own uncommitted edit still blocks it.
 */
async function settledPlan(vault: Vault, ref: unknown): Promise<Planned> {
  const first = await planInternal(vault, ref);
  if (!first.plan.blockers.some((b) => b.kind === 'uncommitted')) return first;
  const lock = nodePath.join(vault.stateDir(), 'vault');
  for (const started = Date.now(); (await inspectLock(lock, vault.fs)).held && Date.now() - started < WRITER_WAIT_MS; ) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return planInternal(vault, ref);
}

/**
 * The dry run of a revert: what reverting `ref` (an edit id, or the full sha of a commit of the
 * vault's history) would change, computed on a temporary index in `.lucid/`. Changes nothing at
 * all: HEAD, the index and every file stay as they are (only git objects are added). A ref that is
 * neither is `invalid_input`; one the history does not hold is `not_found`. The plan says when the
 * commit can never be reverted (`refused`: a merge, Lucid's init, changelog only, a create whose
 * note changed since, binary files) and what is in the way now (`blockers`: later edits of the
 * same lines, uncommitted changes in a file involved).
 */
export async function planRevert(vault: Vault, ref: string): Promise<RevertPlan> {
  return (await settledPlan(vault, ref)).plan;
}

/** The revert's reason: the person's words, then which edit or commit it undid. */
function reasonFor(record: CommitRecord, given: string | undefined, files: number): string {
  const undid = record.actor
    ? `undid ${record.actor}'s ${record.op ?? 'edit'}${record.editId ? ` ${record.editId}` : ` ${record.sha.slice(0, 12)}`}`
    : `undid commit ${record.sha.slice(0, 12)} by ${oneLine(record.author, 80)} (${files} file${files === 1 ? '' : 's'})`;
  const words = oneLine(given ?? '');
  return words ? `${words} (${undid})` : undid;
}

/**
 * Reverts one edit or commit as the person at this vault (VAULT-FORMAT's table): one commit with
 * its changelog line, op `revert` (`molt` for a molt, which becomes a new molt), trailer
 * `Lucid-Reverts: <edit id>` or, for a commit Lucid did not make, `Lucid-Reverts-Commit: <sha>`.
 * Each file is written with the hash the plan saw, so a write that lands in between makes it a
 * `conflict`, never an overwrite. When the plan is not ok, throws with its message and changes
 * nothing: `conflict` (later edits), `dirty_worktree` (uncommitted changes), `forbidden` or
 * `invalid_input` (refused).
 */
export function revertEdit(vault: Vault, input: { ref: string; reason?: string }): Promise<{ plan: RevertPlan; editId: string; commit: string }> {
  return revertEditAs(vault, input, vault.person);
}

/**
 * {@link revertEdit} as `person` (`human:<name>`): the demo's team members revert in their own
 * names. Internal to lib/vault and the demo (not exported from lib/vault/index.ts).
 */
export async function revertEditAs(
  vault: Vault,
  input: { ref: string; reason?: string },
  person: string,
): Promise<{ plan: RevertPlan; editId: string; commit: string }> {
  if (!/^human:\S/.test(person)) throw new VaultError('invalid_input', 'Only a person (human:<name>) reverts an edit.', { field: 'person' });
  if (input.reason !== undefined && typeof input.reason !== 'string') throw new VaultError('invalid_input', 'The reason must be text.', { field: 'reason' });
  const planned = await settledPlan(vault, input.ref);
  const { plan, record, reversal } = planned;
  if (!plan.ok) throw new VaultError(planned.code ?? 'conflict', plan.message, { refused: plan.refused, blockers: plan.blockers });
  const trailers: [string, string][] = [];
  if (reversal.molt) trailers.push(moltTrailer(reversal.molt.name, reversal.molt.from, reversal.molt.from + 1));
  trailers.push(record.actor && record.editId ? ['Lucid-Reverts', record.editId] : ['Lucid-Reverts-Commit', record.sha]);
  // The hash of HEAD's bytes the reverse was merged from, not the disk's read later: an edit
  // committed in between must make this a conflict, never be overwritten by an older merge.
  const changes: FileChange[] = reversal.targets.map((t) => ({ path: t.path, content: t.content, expectedHash: t.headHash }));
  const written = reversal.targets.filter((t) => t.content !== null).map((t) => t.path);
  const about = reversal.molt?.path ?? [subjectPath(record)].find((p) => p !== null && written.includes(p)) ?? written[0] ?? reversal.targets[0].path;
  try {
    const result = await vault.edit({
      actor: person,
      op: reversal.molt ? 'molt' : 'revert',
      path: about,
      reason: reasonFor(record, input.reason, plan.paths.length),
      changes,
      trailers,
      skipValidation: true,
    });
    return { plan, editId: result.editId, commit: result.commit };
  } catch (error) {
    if (!isVaultError(error, 'conflict')) throw error;
    const path = typeof error.details?.path === 'string' ? error.details.path : 'a file';
    throw new VaultError(
      'conflict',
      `${path} changed while the revert was being made, so nothing was reverted. Look at the revert again and retry.`,
      error.details,
    );
  }
}
