import 'server-only';
import { randomBytes } from 'node:crypto';
import { isVaultError, type SyncStep, syncExclusively, type Vault } from '@/lib/vault';
import { type SyncReportView, syncReportView } from './data-sync';

// Syncs started by the Sync button: a fetch and a push take as long as the network does, longer
// than a request should wait, so the action starts one here and the page polls its step. One per
// vault at a time (syncExclusively also keeps out a schedule's and `lucid sync`'s); the last one is
// kept after it ends so the page that started it sees how it ended.

/** A sync started from the page, as the page polls it. */
export interface SyncJob {
  id: string;
  state: 'running' | 'done' | 'failed';
  /** ISO times. */
  startedAt: string;
  finishedAt: string | null;
  /** The step running now, with git's detail when it gave one. */
  step: SyncStep | null;
  detail: string | null;
  report: SyncReportView | null;
  /** When failed: what went wrong and how to recover, with its code when it was an expected failure. */
  error: { code: string; message: string } | null;
}

const store = globalThis as unknown as { lucidSyncJobs?: Map<string, SyncJob> };
const jobs = (store.lucidSyncJobs ??= new Map<string, SyncJob>());

const snapshot = (job: SyncJob): SyncJob => ({ ...job, error: job.error && { ...job.error } });

/** Starts a sync of `vault` with its default remote, unless the page started one that is still running: then that one is returned and `started` is false. */
export function startSyncJob(vault: Vault): { job: SyncJob; started: boolean } {
  const current = jobs.get(vault.root);
  if (current?.state === 'running') return { job: snapshot(current), started: false };
  const job: SyncJob = {
    id: randomBytes(6).toString('hex'),
    state: 'running',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    step: null,
    detail: null,
    report: null,
    error: null,
  };
  jobs.set(vault.root, job);
  const onProgress = (step: SyncStep, detail?: string) => {
    job.step = step;
    job.detail = detail ?? null;
  };
  syncExclusively(vault, { onProgress }).then(
    (report) => {
      job.report = syncReportView(report);
      job.state = 'done';
      job.finishedAt = new Date().toISOString();
    },
    (error: unknown) => {
      job.error = isVaultError(error)
        ? { code: error.code, message: error.message }
        : { code: 'internal', message: `The sync stopped: ${(error as Error)?.message ?? String(error)}. The server log has the details; try again.` };
      if (!isVaultError(error)) console.error('sync failed', error);
      job.state = 'failed';
      job.finishedAt = new Date().toISOString();
    },
  );
  return { job: snapshot(job), started: true };
}

/** The vault's running sync, or the last one that ended; null when none was started since the server started. */
export function syncJobStatus(vault: Vault): SyncJob | null {
  const job = jobs.get(vault.root);
  return job ? snapshot(job) : null;
}
