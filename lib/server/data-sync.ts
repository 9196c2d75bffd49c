import 'server-only';
import { inboxIdOf, isVaultError, type RemoteState, remoteState, type SyncReport } from '@/lib/vault';
import { getVault } from './vault';

// The remote's state for the overview's Remote panel and the navigation's badge. remoteState reads
// refs and .lucid/sync.json only (no fetch): it costs a page a few git reads, never the network.

/** A sync's report as the dashboard shows it: each conflict with the id of its inbox item. */
export interface SyncReportView {
  remote: string;
  branch: string;
  outcome: SyncReport['outcome'];
  head: string;
  received: number;
  pushed: boolean;
  committedFirst: string[];
  conflicts: { path: string; inboxId: string }[];
  refused: { path: string; why: string }[];
  warnings: { path: string; why: string }[];
}

/** The remote's state as the panel and the badge show it. */
export interface RemoteView extends Omit<RemoteState, 'lastReport'> {
  lastReport: SyncReportView | null;
  /** The `--sync-every` interval `lucid serve` was started with, as given (`5m`), or null. */
  schedule: string | null;
  /** Why the state could not be read (an expected failure, in words), or null. */
  problem: string | null;
}

/** The report in the dashboard's shape (a small DTO, nothing more than the page shows). */
export function syncReportView(report: SyncReport): SyncReportView {
  return {
    remote: report.remote,
    branch: report.branch,
    outcome: report.outcome,
    head: report.head,
    received: report.received,
    pushed: report.pushed,
    committedFirst: [...report.committedFirst],
    conflicts: report.conflicts.map((c) => ({ path: c.path, inboxId: inboxIdOf(c.inbox) })),
    refused: report.refused.map((r) => ({ path: r.path, why: r.why })),
    warnings: report.warnings.map((w) => ({ path: w.path, why: w.why })),
  };
}

const EMPTY: Omit<RemoteView, 'schedule' | 'problem'> = {
  remote: null,
  url: null,
  branch: null,
  ahead: 0,
  behind: 0,
  lastSync: null,
  lastError: null,
  lastReport: null,
};

/** The vault's remote as of the last fetch, the last sync and its report, and the server's schedule. */
export async function fetchRemoteState(): Promise<RemoteView> {
  const schedule = process.env.LUCID_SYNC_EVERY || null;
  try {
    const state = await remoteState(await getVault());
    return { ...state, lastReport: state.lastReport && syncReportView(state.lastReport), schedule, problem: null };
  } catch (error) {
    if (isVaultError(error)) return { ...EMPTY, schedule, problem: error.message };
    throw error;
  }
}
