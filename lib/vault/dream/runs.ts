import { VaultError } from '../errors';
import { parseCommitMessage, TRAILER } from '../git/commit-message';
import { showOutput } from '../git/porcelain';
import { headCommit, runGit } from '../git/repo';
import type { Vault } from '../vault';
import { changedFiles, planDreamChange } from './change-plan';
import { DREAM_BRANCH_PREFIX, DREAM_RUN_ID_PATTERN, DREAM_TRAILER } from './types';

/**
 * The dream runs of a vault, read from git alone: each branch `dream/<run id>` holds one commit per
 * change (VAULT-FORMAT's dream pass), then any dismissal records; which changes landed is read from
 * the current branch's history through the commit index (the landing commit's
 * {@link DREAM_CHANGE_TRAILER}), so every clone knows it. Nothing here writes.
 */

/** The trailer of a landing commit that names the branch change it lands (the branch commit's `Lucid-Edit`). */
export const DREAM_CHANGE_TRAILER = 'Lucid-Dream-Change';
/** The trailer of a dismissal record on a dream branch: the edit ids of the changes dismissed, space-separated. */
export const DREAM_DISMISSED_TRAILER = 'Lucid-Dream-Dismissed';

/** Where a change stands: waiting, landed on the current branch, dismissed, or no longer applicable to the vault as it is now. */
export type DreamChangeStatus = 'pending' | 'landed' | 'dismissed' | 'inapplicable';

/** One file a change touches. */
export interface DreamChangeFile {
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  /** For a rename: where the file was. */
  from: string | null;
}

/** One change of a dream run, as the review shows it. */
export interface DreamChangeView {
  /** The branch commit's edit id (`Lucid-Edit`): how a change is named to land or dismiss it. */
  id: string;
  /** The branch commit. */
  sha: string;
  op: string;
  /** The note the change is about (its commit's subject). */
  path: string;
  files: DreamChangeFile[];
  reason: string;
  /** The branch commit's `Lucid-Molt` (`<skill> <from>-><to>`), null when it has none. */
  molt: string | null;
  status: DreamChangeStatus;
  /** For `inapplicable`: why, in a sentence (what is in the way). */
  why: string | null;
  /** Pending and some file changed since the run: landing merges the change onto that later text. */
  rebased: boolean;
  /** The commit that landed it (a landing commit, or the branch commit itself when the branch was merged with git). */
  landed: { commit: string; actor: string } | null;
  dismissed: { actor: string; reason: string; commit: string } | null;
}

/** How many changes of a run are in each state. */
export type DreamRunCounts = Record<DreamChangeStatus, number> & { changes: number };

/** One dream run. */
export interface DreamRunView {
  runId: string;
  /** `dream/<run id>`. */
  branch: string;
  /** The branch's tip now. */
  tip: string;
  /** The commit the run was built on (null when the branch's history has no earlier commit). */
  base: string | null;
  /** When the run was made (its first change's author time, ISO 8601). */
  created: string;
  /** The current branch moved on since the run was built: pending changes are rebased when landed. */
  baseMoved: boolean;
  counts: DreamRunCounts;
  /** Every change landed or dismissed: the branch can go (it goes when the last one is decided). */
  settled: boolean;
  /** Oldest first, as the branch holds them. */
  changes: DreamChangeView[];
}

/** A branch commit of a run, as read from git. */
interface BranchCommit {
  sha: string;
  time: number;
  subject: string;
  reason: string;
  trailers: Record<string, string>;
}

const RECORD = '\u001e';
const FIELD = '\u001f';
const PAGE = 100;
const SHA = /^[0-9a-f]{40}$/;

/** `refs/heads/dream/<run id>` for a run id, refusing ids that are not one (`invalid_input`). */
export function dreamRef(runId: string): string {
  if (typeof runId !== 'string' || !DREAM_RUN_ID_PATTERN.test(runId)) {
    throw new VaultError('invalid_input', 'A dream run id looks like 20261130-140112-k3tq (lucid dream runs lists them).', { field: 'runId' });
  }
  return `refs/heads/${DREAM_BRANCH_PREFIX}${runId}`;
}

/** Every dream branch's run id and tip. */
async function dreamBranches(vault: Vault): Promise<{ runId: string; tip: string }[]> {
  const prefix = `refs/heads/${DREAM_BRANCH_PREFIX}`;
  const out = await runGit(vault.repo, ['for-each-ref', '--format=%(objectname) %(refname)', prefix.replace(/\/$/, '')]);
  const branches: { runId: string; tip: string }[] = [];
  for (const line of out.split('\n')) {
    const [tip, ref] = line.split(' ');
    if (!tip || !ref?.startsWith(prefix)) continue;
    const runId = ref.slice(prefix.length);
    if (DREAM_RUN_ID_PATTERN.test(runId) && SHA.test(tip)) branches.push({ runId, tip });
  }
  return branches;
}

/**
 * The run's commits on its branch, oldest first: the first-parent line down from the tip while
 * commits carry `Lucid-Dream: <run id>`; the first that does not is the base.
 */
async function branchCommits(vault: Vault, runId: string, tip: string): Promise<{ commits: BranchCommit[]; base: string | null }> {
  const commits: BranchCommit[] = [];
  for (let skip = 0; ; skip += PAGE) {
    const out = await runGit(vault.repo, [
      'log',
      '--first-parent',
      `--format=${RECORD}%H${FIELD}%at${FIELD}%B`,
      `--max-count=${PAGE}`,
      `--skip=${skip}`,
      tip,
      '--',
    ]);
    const records = out.split(RECORD).filter((r) => r.includes(FIELD));
    for (const record of records) {
      const [sha, time, message] = record.split(FIELD);
      const parsed = parseCommitMessage(message);
      if (parsed.trailers[DREAM_TRAILER] !== runId) return { commits: commits.reverse(), base: sha };
      commits.push({ sha, time: Number(time), subject: parsed.subject, reason: parsed.body, trailers: parsed.trailers });
    }
    if (records.length < PAGE) return { commits: commits.reverse(), base: null };
  }
}

/** The note a commit is about: its subject `<op> <path>` without the op. */
function subjectPath(commit: BranchCommit): string {
  const op = commit.trailers[TRAILER.op] ?? '';
  return op && commit.subject.startsWith(`${op} `) ? commit.subject.slice(op.length + 1) : commit.subject;
}

const FILE_STATUS: Record<string, DreamChangeFile['status']> = { A: 'added', C: 'added', D: 'deleted', R: 'renamed' };

/** A run's branch read from git, before its changes are checked against the vault. */
interface RawRun {
  runId: string;
  tip: string;
  base: string | null;
  changes: BranchCommit[];
  dismissals: Map<string, { actor: string; reason: string; commit: string }>;
}

async function readBranch(vault: Vault, runId: string, tip: string): Promise<RawRun | null> {
  const { commits, base } = await branchCommits(vault, runId, tip);
  const changes = commits.filter((c) => c.trailers[TRAILER.edit] && !c.trailers[DREAM_DISMISSED_TRAILER]);
  if (changes.length === 0) return null;
  const dismissals = new Map<string, { actor: string; reason: string; commit: string }>();
  for (const c of commits) {
    const ids = c.trailers[DREAM_DISMISSED_TRAILER];
    if (!ids) continue;
    for (const id of ids.split(/\s+/).filter(Boolean)) dismissals.set(id, { actor: c.trailers[TRAILER.actor] ?? 'unknown', reason: c.reason, commit: c.sha });
  }
  return { runId, tip, base, changes, dismissals };
}

/**
 * Which changes of these runs landed on the current branch: landing commits (a person's, carrying
 * `Lucid-Dream` and {@link DREAM_CHANGE_TRAILER}) after the oldest run's base, read from the commit
 * index page by page, and branch commits that are in the current branch's history (merged with git).
 */
async function landings(vault: Vault, runs: RawRun[]): Promise<Map<string, { commit: string; actor: string }>> {
  const index = await vault.commits();
  const landed = new Map<string, { commit: string; actor: string }>();
  const seqs = runs.map((r) => (r.base ? (index.bySha(r.base)?.seq ?? 0) : 0));
  let after = Math.min(...seqs);
  for (;;) {
    const rows = index.list({ afterSeq: after, people: true, oldestFirst: true, limit: 1000 });
    for (const row of rows) {
      const run = row.trailers[DREAM_TRAILER];
      const change = row.trailers[DREAM_CHANGE_TRAILER];
      if (run && change && !landed.has(`${run}/${change}`)) landed.set(`${run}/${change}`, { commit: row.sha, actor: row.actor ?? row.author });
    }
    if (rows.length < 1000) break;
    after = rows[rows.length - 1].seq;
  }
  for (const run of runs) {
    for (const change of run.changes) {
      const merged = index.bySha(change.sha);
      const key = `${run.runId}/${change.trailers[TRAILER.edit]}`;
      if (merged && merged.sha === change.sha && !landed.has(key)) landed.set(key, { commit: change.sha, actor: merged.actor ?? merged.author });
    }
  }
  return landed;
}

/** Options of reading runs. */
interface ReadOptions {
  /** Check each pending change against the vault now (three-way merges; the review needs it, landing re-plans anyway). */
  plan?: boolean;
}

async function viewOf(
  vault: Vault,
  raw: RawRun,
  landed: Map<string, { commit: string; actor: string }>,
  head: string | null,
  options: ReadOptions,
): Promise<DreamRunView> {
  const changes: DreamChangeView[] = [];
  for (const commit of raw.changes) {
    const id = commit.trailers[TRAILER.edit];
    const touched = await changedFiles(vault, commit.sha);
    const files = touched.map(
      (f): DreamChangeFile => ({ path: f.path, status: FILE_STATUS[f.status] ?? 'modified', from: f.status === 'R' ? f.oldPath : null }),
    );
    const landing = landed.get(`${raw.runId}/${id}`) ?? null;
    const dismissed = landing ? null : (raw.dismissals.get(id) ?? null);
    let status: DreamChangeStatus = landing ? 'landed' : dismissed ? 'dismissed' : 'pending';
    let why: string | null = null;
    let rebased = false;
    if (status === 'pending' && options.plan !== false) {
      const plan = await planDreamChange(vault, commit.sha, touched);
      if (plan.ok) rebased = plan.rebased;
      else {
        status = 'inapplicable';
        why = plan.why;
      }
    }
    changes.push({
      id,
      sha: commit.sha,
      op: commit.trailers[TRAILER.op] ?? 'update',
      path: subjectPath(commit),
      files,
      reason: commit.reason,
      molt: commit.trailers['Lucid-Molt'] ?? null,
      status,
      why,
      rebased,
      landed: landing,
      dismissed,
    });
  }
  const counts: DreamRunCounts = { changes: changes.length, pending: 0, landed: 0, dismissed: 0, inapplicable: 0 };
  for (const c of changes) counts[c.status] += 1;
  return {
    runId: raw.runId,
    branch: `${DREAM_BRANCH_PREFIX}${raw.runId}`,
    tip: raw.tip,
    base: raw.base,
    created: new Date(raw.changes[0].time * 1000).toISOString(),
    baseMoved: raw.base !== head,
    counts,
    settled: counts.landed + counts.dismissed === counts.changes,
    changes,
  };
}

/**
 * Every dream run of the vault (branches `dream/<run id>` whose tip carries that run's
 * `Lucid-Dream` trailer), newest first, each change with its status: pending changes are checked
 * against the vault now (a three-way merge per file), so a change that no longer applies says why.
 */
export async function listDreamRuns(vault: Vault, options: ReadOptions = {}): Promise<DreamRunView[]> {
  const raws: RawRun[] = [];
  for (const branch of await dreamBranches(vault)) {
    const raw = await readBranch(vault, branch.runId, branch.tip);
    if (raw) raws.push(raw);
  }
  if (raws.length === 0) return [];
  const [landed, head] = [await landings(vault, raws), await headCommit(vault.repo)];
  const views: DreamRunView[] = [];
  for (const raw of raws) views.push(await viewOf(vault, raw, landed, head, options));
  return views.sort((a, b) => b.created.localeCompare(a.created) || b.runId.localeCompare(a.runId));
}

/** One dream run with its changes' statuses (see {@link listDreamRuns}); `not_found` when there is no such run. */
export async function showDreamRun(vault: Vault, runId: string, options: ReadOptions = {}): Promise<DreamRunView> {
  const ref = dreamRef(runId);
  const tip = (await runGit(vault.repo, ['for-each-ref', '--format=%(objectname)', ref])).trim();
  const raw = SHA.test(tip) ? await readBranch(vault, runId, tip) : null;
  if (!raw) throw new VaultError('not_found', `No dream run ${runId}: it was settled (its branch deleted), or never made. lucid dream runs lists the runs.`);
  return viewOf(vault, raw, await landings(vault, [raw]), await headCommit(vault.repo), options);
}

/** The change of `run` named by its edit id or (a prefix of at least 7 digits of) its commit; `not_found` otherwise. */
export function findDreamChange(run: DreamRunView, ref: string): DreamChangeView {
  const wanted = String(ref ?? '').trim();
  const found = run.changes.find((c) => c.id === wanted || (wanted.length >= 7 && /^[0-9a-f]+$/.test(wanted) && c.sha.startsWith(wanted)));
  if (!found)
    throw new VaultError('not_found', `Run ${run.runId} has no change ${wanted}. lucid dream show ${run.runId} lists its changes.`, { change: wanted });
  return found;
}

/** The patch of one change as the dream pass made it (renames detected, the changelog left out), cut at `maxBytes`. */
export async function dreamChangePatch(
  vault: Vault,
  change: Pick<DreamChangeView, 'sha'>,
  maxBytes = 512 * 1024,
): Promise<{ patch: string; truncated: boolean }> {
  if (!SHA.test(change.sha)) throw new VaultError('invalid_input', 'A change is named by its full commit id here.');
  const exclude = [vault.layout.changelog, `${vault.layout.changelogArchive}/`].map((p) => `:(exclude,literal)${p}`);
  const patch = await showOutput(vault.repo, ['--format=', '-M', '--patch', '--no-color', '--no-ext-diff', change.sha, '--', '.', ...exclude]);
  return patch.length > maxBytes ? { patch: patch.slice(0, maxBytes), truncated: true } : { patch, truncated: false };
}
