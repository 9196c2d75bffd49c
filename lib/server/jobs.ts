import 'server-only';
import { randomBytes } from 'node:crypto';
import { isVaultError } from '@/lib/vault';

// Work a page starts that takes longer than a request should wait (an evaluation, a sync): the
// action starts it here and the page polls it. One job of a kind per vault at a time; the last one
// is kept after it ends, so the page that started it sees how it ended.

/** What every job has, as the page polls it. */
export interface JobBase {
  id: string;
  state: 'running' | 'done' | 'failed';
  /** ISO times. */
  startedAt: string;
  finishedAt: string | null;
  /** When failed: what went wrong and how to recover, with its code when it was an expected failure. */
  error: { code: string; message: string } | null;
}

/** The jobs of one kind: start one per vault, read its state. */
export interface JobRegistry<J extends JobBase> {
  /**
   * Starts `work` for the vault at `root` with the job's own fields, unless one of this kind is
   * running there already: then that one is returned and `started` is false. `work` fills in the
   * job as it goes; its end marks the job done, its error failed.
   */
  start(root: string, fields: Omit<J, keyof JobBase>, work: (job: J) => Promise<void>): { job: J; started: boolean };
  /** The vault's running job, or the last one that ended; null when none was started since the server started. */
  status(root: string): J | null;
}

/**
 * The registry of one kind of job (`what` names it in messages: "the sync stopped"). Kept on
 * globalThis, so route bundles that load this module twice still share one registry.
 */
export function jobRegistry<J extends JobBase>(kind: string, what: string, snapshot: (job: J) => J): JobRegistry<J> {
  const store = globalThis as unknown as Record<string, Map<string, J> | undefined>;
  const key = `lucid-jobs-${kind}`;
  const jobs = (store[key] ??= new Map<string, J>());
  return {
    start(root, fields, work) {
      const current = jobs.get(root);
      if (current?.state === 'running') return { job: snapshot(current), started: false };
      const job = { id: randomBytes(6).toString('hex'), state: 'running', startedAt: new Date().toISOString(), finishedAt: null, error: null, ...fields } as J;
      jobs.set(root, job);
      work(job).then(
        () => {
          job.state = 'done';
          job.finishedAt = new Date().toISOString();
        },
        (error: unknown) => {
          job.error = isVaultError(error)
            ? { code: error.code, message: error.message }
            : { code: 'internal', message: `The ${what} stopped: ${(error as Error)?.message ?? String(error)}. The server log has the details; try again.` };
          if (!isVaultError(error)) console.error(`${what} failed`, error);
          job.state = 'failed';
          job.finishedAt = new Date().toISOString();
        },
      );
      return { job: snapshot(job), started: true };
    },
    status(root) {
      const job = jobs.get(root);
      return job ? snapshot(job) : null;
    },
  };
}
