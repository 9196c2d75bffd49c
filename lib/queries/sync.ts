import { queryOptions } from '@tanstack/react-query';
import { remoteStateAction, startSyncAction, syncStatusAction } from '@/lib/actions/sync';
import { unwrapAction } from '@/lib/queries/action-error';

/** How often a running sync's step is asked for. */
const SYNC_POLL_MS = 500;
/** How often the badge and the panel look again at the remote's state (it reads refs, never the network). */
const REMOTE_POLL_MS = 30_000;

/** The remote's state as the panel and the badge show it. */
export type RemoteData = Extract<Awaited<ReturnType<typeof remoteStateAction>>, { ok: true }>['data'];
/** A sync started from the page, as its status comes back. */
export type SyncJobData = NonNullable<Extract<Awaited<ReturnType<typeof syncStatusAction>>, { ok: true }>['data']>;

/** The keys of the sync queries; invalidating `syncKeys.remote` refreshes the panel and the badge. */
export const syncKeys = {
  all: ['sync'] as const,
  remote: ['sync', 'remote'] as const,
  job: ['sync', 'job'] as const,
};

/** The remote's state, looked at again every REMOTE_POLL_MS and after every sync. */
export function remoteStateOptions() {
  return queryOptions({
    queryKey: syncKeys.remote,
    queryFn: async () => unwrapAction(await remoteStateAction({})),
    refetchInterval: REMOTE_POLL_MS,
  });
}

/** The sync job's status; polled while `polling` (a sync is going), else read once. */
export function syncJobOptions(polling: boolean) {
  return queryOptions({
    queryKey: syncKeys.job,
    queryFn: async () => unwrapAction(await syncStatusAction({})),
    refetchInterval: polling ? SYNC_POLL_MS : false,
    refetchOnWindowFocus: false,
  });
}

/** Starts a sync (or returns the running one); throws an ActionError on an expected failure. */
export async function startSync(): Promise<{ job: SyncJobData; started: boolean }> {
  return unwrapAction(await startSyncAction({}));
}
