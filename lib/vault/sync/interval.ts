import { VaultError } from '../errors';

const MIN_INTERVAL_MS = 10_000;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a `--sync-every` value: `30s`, `5m`, `1h`, or a bare number of seconds (`90`); returns
 * milliseconds. Anything else, or less than 10 seconds, is `invalid_input` saying what is accepted.
 */
export function parseSyncInterval(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([smh]?)$/i.exec(String(text ?? '').trim());
  if (!match) {
    throw new VaultError('invalid_input', `"${text}" is not an interval: write 30s, 5m, 1h or a number of seconds.`, { field: 'sync-every' });
  }
  const ms = Number(match[1]) * UNIT_MS[(match[2] || 's').toLowerCase()];
  if (!Number.isFinite(ms) || ms < MIN_INTERVAL_MS) {
    throw new VaultError('invalid_input', `Sync at most every 10 seconds (got ${text}).`, { field: 'sync-every' });
  }
  return Math.round(ms);
}
