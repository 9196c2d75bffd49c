'use server';

import { z } from 'zod';
import { gatedAction } from '@/lib/server/action';
import { fetchRemoteState } from '@/lib/server/data-sync';
import { startSyncJob, syncJobStatus } from '@/lib/server/sync-jobs';
import { getVault } from '@/lib/server/vault';

/** Starts a sync with the vault's remote (fetch, integrate, push); while one started here runs, returns that one. */
export const startSyncAction = gatedAction(z.strictObject({}), async () => startSyncJob(await getVault()));

/** The running sync's step, or how the last one ended; null when none was started since the server started. */
export const syncStatusAction = gatedAction(z.strictObject({}), async () => syncJobStatus(await getVault()));

/** The remote's state (ahead, behind, last sync, last error), read from refs and .lucid/sync.json without a fetch. */
export const remoteStateAction = gatedAction(z.strictObject({}), () => fetchRemoteState());
