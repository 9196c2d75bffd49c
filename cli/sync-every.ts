import { isVaultError, parseSyncInterval } from '../lib/vault/index';
import { UsageError } from './io';

/** A `--sync-every` interval: as given (for messages) and in milliseconds. */
export interface SyncEvery {
  text: string;
  ms: number;
}

/** The `--sync-every` option of `lucid serve` and `lucid mcp`. */
export const syncEveryOption = { 'sync-every': { type: 'string' as const } };

/** The lines `--help` prints for `--sync-every`. */
export const SYNC_EVERY_HELP =
  '  --sync-every I  sync the vault with its git remote every I (30s, 5m, 1h, or seconds; at least 10 s) while\n' +
  '                  this runs, as `lucid sync` does: the first sync one interval after the start, never two at\n' +
  '                  once; a failure is printed once on stderr and kept for the dashboard. Off by default.';

/** The interval `--sync-every` asks for, or undefined when not given; a usage error when it is not one. */
export function syncEveryOf(values: Record<string, unknown>): SyncEvery | undefined {
  const text = values['sync-every'];
  if (typeof text !== 'string') return undefined;
  try {
    return { text, ms: parseSyncInterval(text) };
  } catch (error) {
    if (isVaultError(error, 'invalid_input')) throw new UsageError(`--sync-every ${JSON.stringify(text)}: ${error.message}`);
    throw error;
  }
}
