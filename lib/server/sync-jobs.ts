import 'server-only';
import { type SyncStep, syncExclusively, type Vault } from '@/lib/vault';
import { type SyncReportView, syncReportView } from './data-sync';
import { type JobBase, jobRegistry } from './jobs';

// Syncs started by the Sync button take as long as the network does: a job (./jobs.ts) the page
// polls. syncExclusively also keeps out a schedule's and `lucid sync`'s.

/** A sync started from the page, as the page polls it. */
export interface SyncJob extends JobBase {
  /** The step running now, with git's detail when it gave one. */
  step: SyncStep | null;
  detail: string | null;
  report: SyncReportView | null;
}

const jobs = jobRegistry<SyncJob>('sync', 'sync', (job) => ({ ...job, error: job.error && { ...job.error } }));

/** Starts a sync of `vault` with its default remote, unless the page started one that is still running: then that one is returned and `started` is false. */
export function startSyncJob(vault: Vault): { job: SyncJob; started: boolean } {
  return jobs.start(vault.root, { step: null, detail: null, report: null }, async (job) => {
    const onProgress = (step: SyncStep, detail?: string) => {
      job.step = step;
      job.detail = detail ?? null;
    };
    job.report = syncReportView(await syncExclusively(vault, { onProgress }));
  });
}

/** The vault's running sync, or the last one that ended; null when none was started since the server started. */
export function syncJobStatus(vault: Vault): SyncJob | null {
  return jobs.status(vault.root);
}
