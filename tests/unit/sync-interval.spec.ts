import { describe, expect, it } from 'vitest';
import { isVaultError, parseSyncInterval } from '../../lib/vault/index';

describe('parseSyncInterval (--sync-every)', () => {
  it('reads seconds, minutes and hours, and a bare number as seconds', () => {
    expect(parseSyncInterval('30s')).toBe(30_000);
    expect(parseSyncInterval('5m')).toBe(300_000);
    expect(parseSyncInterval('1h')).toBe(3_600_000);
    expect(parseSyncInterval('90')).toBe(90_000);
    expect(parseSyncInterval('10s')).toBe(10_000);
  });

  it('refuses what is not an interval, and anything under 10 seconds, with invalid_input', () => {
    for (const text of ['', 'abc', '5x', 'm', '-5m', '9s', '9', '0', '5 minutes later']) {
      let error: unknown = null;
      try {
        parseSyncInterval(text);
      } catch (e) {
        error = e;
      }
      expect(isVaultError(error, 'invalid_input'), JSON.stringify(text)).toBe(true);
    }
  });
});
