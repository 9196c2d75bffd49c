import 'server-only';
import { randomBytes } from 'node:crypto';
import { type EvalProgress, isVaultError, runEvaluation, type Vault } from '@/lib/vault';

// Evaluation runs started from the dashboard: they take from seconds to minutes, longer than a
// request should, so the action starts one here and the page polls its progress. One job per vault
// at a time; the last one is kept after it ends so the page that started it sees how it ended.

/** A run started from the page, as the page polls it. */
export interface EvalJob {
  id: string;
  state: 'running' | 'done' | 'failed';
  /** ISO times. */
  startedAt: string;
  finishedAt: string | null;
  /** Where the run is: set, strategy and questions done of that strategy's total. */
  progress: EvalProgress | null;
  /** When done: the commit (null when nothing was written) and the run notes written. */
  commit: string | null;
  runs: { set: string; notePath: string; questions: number }[];
  /** When failed: what went wrong, in words, with its code when it was an expected failure. */
  error: { code: string; message: string } | null;
}

const store = globalThis as unknown as { lucidEvalJobs?: Map<string, EvalJob> };
const jobs = (store.lucidEvalJobs ??= new Map<string, EvalJob>());

const snapshot = (job: EvalJob): EvalJob => ({ ...job, progress: job.progress && { ...job.progress }, runs: [...job.runs] });

/**
 * Starts an evaluation of every question set of the vault as `actor` (one commit when it ends),
 * unless one is running already: then that one is returned and `started` is false.
 */
export function startEvalJob(vault: Vault, actor: string): { job: EvalJob; started: boolean } {
  const current = jobs.get(vault.root);
  if (current?.state === 'running') return { job: snapshot(current), started: false };
  const job: EvalJob = {
    id: randomBytes(6).toString('hex'),
    state: 'running',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    progress: null,
    commit: null,
    runs: [],
    error: null,
  };
  jobs.set(vault.root, job);
  runEvaluation(vault, { actor, onProgress: (progress) => (job.progress = { ...progress }) }).then(
    (result) => {
      job.commit = result.commit;
      job.runs = result.runs.map((r) => ({ set: r.set, notePath: r.notePath, questions: r.questions }));
      job.state = 'done';
      job.finishedAt = new Date().toISOString();
    },
    (error: unknown) => {
      job.error = isVaultError(error)
        ? { code: error.code, message: error.message }
        : { code: 'internal', message: `The evaluation stopped: ${(error as Error)?.message ?? String(error)}. The server log has the details; try again.` };
      if (!isVaultError(error)) console.error('evaluation run failed', error);
      job.state = 'failed';
      job.finishedAt = new Date().toISOString();
    },
  );
  return { job: snapshot(job), started: true };
}

/** The vault's running job, or the last one that ended; null when none was started since the server started. */
export function evalJobStatus(vault: Vault): EvalJob | null {
  const job = jobs.get(vault.root);
  return job ? snapshot(job) : null;
}
