import 'server-only';
import { type EvalProgress, runEvaluation, type Vault } from '@/lib/vault';
import { type JobBase, jobRegistry } from './jobs';

// Evaluation runs started from the dashboard take from seconds to minutes: a job (./jobs.ts) the page polls.

/** A run started from the page, as the page polls it. */
export interface EvalJob extends JobBase {
  /** Where the run is: set, strategy and questions done of that strategy's total. */
  progress: EvalProgress | null;
  /** When done: the commit (null when nothing was written) and the run notes written. */
  commit: string | null;
  runs: { set: string; notePath: string; questions: number }[];
}

const jobs = jobRegistry<EvalJob>('eval', 'evaluation', (job) => ({ ...job, progress: job.progress && { ...job.progress }, runs: [...job.runs] }));

/**
 * Starts an evaluation of every question set of the vault as `actor` (one commit when it ends),
 * unless one is running already: then that one is returned and `started` is false.
 */
export function startEvalJob(vault: Vault, actor: string): { job: EvalJob; started: boolean } {
  return jobs.start(vault.root, { progress: null, commit: null, runs: [] }, async (job) => {
    const result = await runEvaluation(vault, { actor, onProgress: (progress) => (job.progress = { ...progress }) });
    job.commit = result.commit;
    job.runs = result.runs.map((r) => ({ set: r.set, notePath: r.notePath, questions: r.questions }));
  });
}

/** The vault's running job, or the last one that ended; null when none was started since the server started. */
export function evalJobStatus(vault: Vault): EvalJob | null {
  return jobs.status(vault.root);
}
