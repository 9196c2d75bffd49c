import nodePath from 'node:path';
import { isVaultError, VaultError } from '../errors';
import { syncVault } from '../sync/sync';
import type { SyncOptions, SyncReport } from '../sync/types';
import type { Vault } from '../vault';
import { withVaultLock } from '../write/lock';

/** The sync a schedule or a button runs (syncVault; tests pass their own). */
export type SyncRun = (vault: Vault, options: SyncOptions) => Promise<SyncReport>;

// Syncs running in this process, by vault root: kept on globalThis so a bundler that loads this
// module twice (the dashboard's route bundles) still sees one set.
const store = globalThis as unknown as { lucidSyncsRunning?: Set<string> };
const running = (store.lucidSyncsRunning ??= new Set<string>());

/** The message of the `locked` error a sync gets while another sync of the vault runs. */
const BUSY_MESSAGE =
  'A sync of this vault is already running (a Sync button, a `--sync-every` schedule or another lucid sync). Wait until it ends, then try again.';

/**
 * Runs one sync of `vault` unless another is running, in this process or in any other Lucid
 * process on this vault (a lock in `.lucid/`, taken without waiting): then it throws VaultError
 * `locked` at once and nothing is fetched. The dashboard's Sync button, `lucid sync` and the `--sync-every`
 * schedules go through here, so two syncs never run side by side.
 */
export async function syncExclusively(vault: Vault, options: SyncOptions = {}, sync: SyncRun = syncVault): Promise<SyncReport> {
  if (running.has(vault.root)) throw new VaultError('locked', BUSY_MESSAGE);
  running.add(vault.root);
  let started = false;
  try {
    return await withVaultLock(
      nodePath.join(vault.stateDir(), 'sync'),
      () => {
        started = true;
        return sync(vault, options);
      },
      { waitMs: 0 },
    );
  } catch (error) {
    if (!started && isVaultError(error, 'locked')) throw new VaultError('locked', BUSY_MESSAGE);
    throw error;
  } finally {
    running.delete(vault.root);
  }
}

/** Options of {@link startSyncSchedule}. */
export interface SyncScheduleOptions {
  /** Milliseconds between the end of one run and the start of the next; the first run is one interval after the start. */
  everyMs: number;
  /** The remote (default: syncVault's default). */
  remote?: string;
  /** Where lines for the person go (stderr): each distinct error once, and what a sync brought. */
  log: (message: string) => void;
  /** The sync to run (default syncVault, through {@link syncExclusively}). */
  sync?: SyncRun;
  /** What waits `ms` before a run (default: an unref'd setTimeout); tests pass their own and run each tick by hand. */
  timer?: ScheduleTimer;
}

/** Calls `run` once after `ms`, unless cancelled first. */
type ScheduleTimer = (run: () => void, ms: number) => { cancel(): void };

/** The real wait: a timer that never keeps the process alive. */
const unrefTimer: ScheduleTimer = (run, ms) => {
  const handle = setTimeout(run, ms);
  handle.unref();
  return { cancel: () => clearTimeout(handle) };
};

/** A running schedule. */
export interface SyncSchedule {
  /** Stops the timer; resolves once a run in progress has ended, or after `waitMs` (default 10 s), whichever is first. */
  stop: (waitMs?: number) => Promise<void>;
}

/** One line for a sync that changed something; null when it found nothing to do. */
function describeSync(report: SyncReport): string | null {
  if (report.outcome === 'up-to-date' && !report.pushed && report.conflicts.length === 0) return null;
  const parts = [`${report.received} ${report.received === 1 ? 'commit' : 'commits'} received`];
  if (report.pushed) parts.push('pushed');
  if (report.conflicts.length > 0) parts.push(`${report.conflicts.length} ${report.conflicts.length === 1 ? 'conflict' : 'conflicts'} in the inbox`);
  if (report.refused.length > 0) parts.push(`${report.refused.length} refused`);
  if (report.warnings.length > 0) parts.push(`${report.warnings.length} ${report.warnings.length === 1 ? 'warning' : 'warnings'}`);
  return `synced with ${report.remote} (${report.outcome}): ${parts.join(', ')}`;
}

/**
 * Syncs `vault` every `everyMs` in this process (`lucid serve --sync-every`, `lucid mcp
 * --sync-every`): the first run one interval after the start, the next one interval after the
 * previous ended, so runs never overlap; a run that finds another sync going is skipped. A failed
 * run's message goes to `log` once until a different one comes or a run succeeds (syncVault keeps
 * the last in `.lucid/sync.json`). The timer never keeps the process alive.
 */
export function startSyncSchedule(vault: Vault, options: SyncScheduleOptions): SyncSchedule {
  const sync = options.sync ?? syncVault;
  const wait = options.timer ?? unrefTimer;
  let timer: { cancel(): void } | null = null;
  let current: Promise<void> | null = null;
  let stopped = false;
  let lastError: string | null = null;

  const runOnce = async () => {
    try {
      const report = await syncExclusively(vault, options.remote ? { remote: options.remote } : {}, sync);
      if (lastError !== null) options.log(`sync works again (${report.remote})`);
      lastError = null;
      const line = describeSync(report);
      if (line) options.log(line);
    } catch (error) {
      if (isVaultError(error, 'locked') && (error as Error).message === BUSY_MESSAGE) return;
      const message = isVaultError(error) ? error.message : `unexpected error: ${(error as Error)?.message ?? String(error)}`;
      if (message !== lastError) options.log(`sync failed: ${message}`);
      lastError = message;
    }
  };

  const arm = () => {
    if (stopped) return;
    timer = wait(() => {
      timer = null;
      current = runOnce().finally(() => {
        current = null;
        arm();
      });
    }, options.everyMs);
  };
  arm();

  return {
    async stop(waitMs = 10_000) {
      stopped = true;
      timer?.cancel();
      timer = null;
      if (!current) return;
      let cap: NodeJS.Timeout | undefined;
      await Promise.race([current, new Promise<void>((resolve) => (cap = setTimeout(resolve, waitMs).unref()))]);
      clearTimeout(cap);
    },
  };
}
