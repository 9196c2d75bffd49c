import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import nodePath from 'node:path';
import { VaultError } from '../errors';
import { formatDate } from '../ids';
import { commitEnv, headCommit, runGit, type GitRepo, type GitTarget } from '../git/repo';
import { openVault, type Vault } from '../vault';
import { buildCorpus, resolveGold } from './corpus';
import { fillerNotes } from './filler';
import { listQuestionSets, readQuestionSet } from './questions';
import { evaluateSet } from './run';
import { defaultStrategies } from './strategies/index';
import { DEFAULT_K, type EvalCorpus, type EvalProgress, type EvalQuestion, type Strategy, type StrategySummary } from './types';

/**
 * Recall as the vault grows: one question set replayed at earlier commits of the vault's history
 * and on copies of HEAD padded with filler notes. Every commit is read in a clone of the repository
 * in a temporary folder (its own `.lucid/` there too); the vault's HEAD, index, branch and files are
 * never touched, and the temporary folder is removed however the run ends.
 */

/** One point of the growth report: the vault at one commit (or HEAD with filler). */
export interface GrowthPoint {
  /** `2026-11-02 1a2b3c4`, `HEAD 9f8e7d6`, or `HEAD + 3x filler`. */
  label: string;
  /** The commit the notes were read at (a filler point's is the temporary copy's own commit). */
  commit: string;
  /** Notes in the corpus at that point. */
  notes: number;
  /** Questions scored at that point. */
  questions: number;
  /** Questions left out because one of their gold notes did not exist at that point. */
  leftOut: number;
  /** Per strategy (by name); empty when no question could be scored. */
  summary: Record<string, StrategySummary>;
}

/** What {@link evalGrowth} measured. */
export interface GrowthReport {
  set: string;
  points: GrowthPoint[];
}

/** Progress of a growth run: which point (1-based, of `points`) and which strategy. */
export interface GrowthProgress extends EvalProgress {
  point: string;
  pointIndex: number;
  points: number;
}

/** What a growth run replays and how. */
export interface GrowthOptions {
  /** The question set (default: the vault's only one). */
  set?: string;
  /** Earlier commits to replay, spread evenly over the history (default 4); HEAD always comes after them. */
  commits?: number;
  /** Filler levels, in multiples of HEAD's notes (default 1, 3 and 10; none with `[]`). */
  fillers?: number[];
  /** Default: `defaultStrategies()`. */
  strategies?: Strategy[];
  k?: number;
  onProgress?: (progress: GrowthProgress) => void;
  /** Stops the run between steps (and at the next progress report); the temporary folder is still removed. */
  signal?: AbortSignal;
  /** The folder the temporary folder is made in (default: the system's temporary folder). */
  tempDir?: string;
}

const DEFAULT_COMMITS = 4;
const DEFAULT_FILLERS = [1, 3, 10];
const FILLER_IDENTITY = { name: 'Lucid growth filler', email: 'growth@lucid.invalid' };
/** The branch checked out in the clone (never in the vault). */
const CLONE_BRANCH = 'lucid-growth';
/** No hook of the person's global git config runs in the clone (a post-checkout or post-commit hook would run per point). */
const NO_HOOKS = ['-c', `core.hooksPath=${os.devNull}`];

/**
 * `count` commits spread evenly over `history` (oldest first, HEAD last, HEAD itself excluded):
 * the ones at 1/(count+1), 2/(count+1)… of the way, so neither the root commit (often empty) nor
 * HEAD is one of them. Fewer when the history is shorter.
 */
function spreadCommits<T>(history: readonly T[], count: number): T[] {
  const earlier = history.slice(0, -1);
  const picked = new Set<number>();
  for (let j = 1; j <= count; j += 1) {
    if (earlier.length === 0) break;
    picked.add(Math.min(earlier.length - 1, Math.round((j * history.length) / (count + 1)) - 1));
  }
  return [...picked]
    .filter((i) => i >= 0)
    .sort((a, b) => a - b)
    .map((i) => earlier[i]);
}

async function chooseSet(vault: Vault, set: string | undefined): Promise<string> {
  if (set !== undefined) return set;
  const sets = await listQuestionSets(vault);
  if (sets.length === 1) return sets[0];
  if (sets.length === 0) {
    throw new VaultError(
      'not_found',
      `This vault has no question sets yet. Make one with \`lucid eval generate\`, or write ${vault.layout.evalQuestions}/<set>.jsonl by hand.`,
    );
  }
  throw new VaultError('invalid_input', `This vault has ${sets.length} question sets (${sets.join(', ')}): name one with --set.`);
}

function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new VaultError('invalid_input', 'The growth run was stopped before it finished; nothing was kept.');
}

/**
 * Replays a question set as the vault grows (see the module comment): at `commits` earlier
 * commits spread over the history, at HEAD, and at HEAD with 1x, 3x and 10x its notes added as
 * filler ({@link fillerNotes}, committed in the copy after HEAD so `recent` sees them as newest).
 * A question is left out (and counted) at a point where one of its gold notes does not exist.
 * Nothing in the vault changes; the temporary clone is removed at the end, also on failure.
 */
export async function evalGrowth(vault: Vault, options: GrowthOptions = {}): Promise<GrowthReport> {
  const set = await chooseSet(vault, options.set);
  const questions = await readQuestionSet(vault, set);
  const head = await headCommit(vault.repo);
  if (!head) throw new VaultError('not_found', 'The vault has no commits yet: there is no history to replay. Commit your notes first.');
  const strategies = options.strategies ?? defaultStrategies();
  const k = options.k ?? DEFAULT_K;
  const fillers = [...new Set(options.fillers ?? DEFAULT_FILLERS)].filter((f) => f > 0).sort((a, b) => a - b);
  const history = await firstParentHistory(vault.repo, head);
  const earlier = spreadCommits(history, Math.max(0, Math.floor(options.commits ?? DEFAULT_COMMITS)));
  const total = earlier.length + 1 + fillers.length;
  const points: GrowthPoint[] = [];
  const temp = await mkdtemp(nodePath.join(options.tempDir ?? os.tmpdir(), 'lucid-growth-'));
  let open: { vault: Vault; corpus: EvalCorpus } | null = null;
  try {
    const clone = nodePath.join(temp, 'repo');
    await runGit({ root: temp, env: vault.repo.env, run: vault.repo.run }, [
      ...NO_HOOKS,
      'clone',
      '--quiet',
      '--no-hardlinks',
      '--no-checkout',
      '--',
      vault.repo.top,
      clone,
    ]);
    const cloneRepo: GitTarget = { root: clone, env: vault.repo.env, run: vault.repo.run };
    const root = nodePath.join(clone, vault.repo.prefix);
    const measure = async (label: string, commit: string, freshState: boolean): Promise<void> => {
      checkAborted(options.signal);
      (open as { vault: Vault } | null)?.vault.close();
      open = null;
      if (freshState) await rm(nodePath.join(root, '.lucid'), { recursive: true, force: true });
      const index = points.length + 1;
      const report = (p: EvalProgress) => {
        checkAborted(options.signal);
        options.onProgress?.({ ...p, point: label, pointIndex: index, points: total });
      };
      report({ set, strategy: '', done: 0, total: 0 });
      const point = await measureAt(vault, root, questions, { set, k, strategies, onProgress: report });
      open = point.opened;
      points.push({ label, commit, ...point.measured });
    };
    for (const entry of [...earlier, history[history.length - 1]]) {
      await runGit(cloneRepo, [...NO_HOOKS, 'checkout', '--quiet', '--force', '-B', CLONE_BRANCH, entry.sha]);
      const label = entry.sha === head ? `HEAD ${head.slice(0, 7)}` : `${formatDate(new Date(entry.time * 1000))} ${entry.sha.slice(0, 7)}`;
      await measure(label, entry.sha, true);
    }
    const atHead = open as { vault: Vault; corpus: EvalCorpus } | null;
    if (fillers.length > 0 && atHead) {
      const { corpus } = atHead;
      const taken = (await atHead.vault.listFiles()).map((f) => f.path);
      const notes = fillerNotes(corpus, corpus.notes.length * fillers[fillers.length - 1], { taken });
      const headTime = history[history.length - 1]?.time ?? 0;
      let written = 0;
      for (const level of fillers) {
        const upTo = Math.min(notes.length, corpus.notes.length * level);
        for (const note of notes.slice(written, upTo)) {
          const abs = nodePath.join(root, note.path);
          await mkdir(nodePath.dirname(abs), { recursive: true });
          await writeFile(abs, note.text);
        }
        written = upTo;
        const commit = await commitFiller(cloneRepo, root, level, new Date((headTime + 60 * level) * 1000));
        await measure(`HEAD + ${level}x filler`, commit, false);
      }
    }
    return { set, points };
  } finally {
    (open as { vault: Vault } | null)?.vault.close();
    await rm(temp, { recursive: true, force: true });
  }
}

/**
 * The first-parent history of `head`, oldest first, with commit times (Unix seconds), ending with
 * `head`. In a vault that is a folder of a larger repository, only the commits that touched the
 * folder (the last of them, if `head` did not touch it, holds the same notes as `head`: left out).
 */
async function firstParentHistory(repo: GitRepo, head: string): Promise<{ sha: string; time: number }[]> {
  const parse = (out: string) =>
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [sha, time] = line.split(' ');
        return { sha, time: Number(time) };
      });
  const [last] = parse(await runGit(repo, ['log', '-1', '--format=%H %ct', head]));
  // git runs in the vault's folder, so `.` is that folder.
  const history = parse(await runGit(repo, ['log', '--first-parent', '--reverse', '--format=%H %ct', head, ...(repo.prefix ? ['--', '.'] : [])]));
  if (history.length > 0 && history[history.length - 1].sha !== head && repo.prefix) history.pop();
  return [...history.filter((c) => c.sha !== head), last];
}

/** Opens the clone's vault folder at its current commit and scores the questions whose gold notes exist there. */
async function measureAt(
  vault: Vault,
  root: string,
  questions: readonly EvalQuestion[],
  options: { set: string; k: number; strategies: Strategy[]; onProgress: (p: EvalProgress) => void },
): Promise<{ opened: { vault: Vault; corpus: EvalCorpus } | null; measured: Omit<GrowthPoint, 'label' | 'commit'> }> {
  const exists = await stat(root).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!exists) return { opened: null, measured: { notes: 0, questions: 0, leftOut: questions.length, summary: {} } };
  // HEAD's layout, not the one at that commit: the gold paths and the system folders are HEAD's.
  const opened = await openVault({ root, env: vault.repo.env, git: vault.repo.run, clock: vault.clock, layout: vault.layout, fallbackUser: 'growth' });
  try {
    const corpus = await buildCorpus(opened);
    const present = resolveGold(questions, corpus).filter((q) => q.gold.every((g) => corpus.byPath.has(g)));
    const leftOut = questions.length - present.length;
    const summary =
      present.length === 0
        ? {}
        : (await evaluateSet(opened, corpus, present, { k: options.k, strategies: options.strategies, set: options.set, onProgress: options.onProgress }))
            .summary;
    return { opened: { vault: opened, corpus }, measured: { notes: corpus.notes.length, questions: present.length, leftOut, summary } };
  } catch (error) {
    opened.close();
    throw error;
  }
}

/** Commits every file in the clone's vault folder as filler, at `date` (after HEAD), and returns the commit. */
async function commitFiller(repo: GitTarget, root: string, level: number, date: Date): Promise<string> {
  const inFolder = { ...repo, root };
  await runGit(inFolder, ['add', '--all', '--', '.']);
  const env = commitEnv({ author: FILLER_IDENTITY, committer: FILLER_IDENTITY, date });
  await runGit(
    inFolder,
    [...NO_HOOKS, '-c', 'commit.gpgsign=false', 'commit', '--quiet', '--no-verify', '--allow-empty', '-m', `Filler notes up to ${level}x`],
    env,
  );
  return (await runGit(inFolder, ['rev-parse', 'HEAD'])).trim();
}
