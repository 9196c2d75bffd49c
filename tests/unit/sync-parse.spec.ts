import { describe, expect, it } from 'vitest';
import { isVaultError, parseSyncInterval } from '../../lib/vault/index';
import { editIdsIn, unionChangelog } from '../../lib/vault/sync/changelog-union';
import { stripCredentials } from '../../lib/vault/sync/remote';

describe('parseSyncInterval', () => {
  it('reads seconds, minutes, hours and bare seconds', () => {
    expect(parseSyncInterval('30s')).toBe(30_000);
    expect(parseSyncInterval('5m')).toBe(300_000);
    expect(parseSyncInterval('1h')).toBe(3_600_000);
    expect(parseSyncInterval('90')).toBe(90_000);
    expect(parseSyncInterval(' 2M ')).toBe(120_000);
  });

  it('refuses what is not an interval, and anything under 10 seconds', () => {
    for (const text of ['', 'soon', '5 minutes', '-5m', '1d', '5m30s']) {
      let error: unknown;
      try {
        parseSyncInterval(text);
      } catch (e) {
        error = e;
      }
      expect(isVaultError(error, 'invalid_input'), text).toBe(true);
    }
    expect(() => parseSyncInterval('9s')).toThrow(/at most every 10 seconds/);
    expect(parseSyncInterval('10s')).toBe(10_000);
  });
});

describe('stripCredentials', () => {
  it('takes the user and password out of a URL and leaves other forms alone', () => {
    expect(stripCredentials('https://ada:hunter2@github.com/team/vault.git')).toBe('https://github.com/team/vault.git');
    expect(stripCredentials('https://token@gitlab.example/team/vault.git')).toBe('https://gitlab.example/team/vault.git');
    expect(stripCredentials('ssh://git@host:2222/vault.git')).toBe('ssh://host:2222/vault.git');
    expect(stripCredentials('git@github.com:team/vault.git')).toBe('git@github.com:team/vault.git');
    expect(stripCredentials('/srv/git/vault.git')).toBe('/srv/git/vault.git');
  });
});

const line = (stamp: string, id: string, what = 'update [[notes/a]]') => `- ${stamp} · agent:x · ${what} · r ^${id}`;

describe('unionChangelog', () => {
  it('keeps every line of both sides once by edit id, newest first, under the first title', () => {
    const ours = ['# Changelog', '', line('2026-11-20 10:00', 'eaaaaaaaaaaaa'), line('2026-11-15 09:00', 'ebbbbbbbbbbbb')].join('\n');
    const theirs = ['# Changelog', '', line('2026-11-21 08:00', 'ecccccccccccc'), line('2026-11-15 09:00', 'ebbbbbbbbbbbb')].join('\n');
    expect(unionChangelog([ours, theirs])).toBe(
      [
        '# Changelog',
        '',
        line('2026-11-21 08:00', 'ecccccccccccc'),
        line('2026-11-20 10:00', 'eaaaaaaaaaaaa'),
        line('2026-11-15 09:00', 'ebbbbbbbbbbbb'),
        '',
      ].join('\n'),
    );
  });

  it('leaves out lines whose edit id is dropped (kept in an archive), keeps ties in order and a person’s own lines', () => {
    const text = [
      '# Changelog',
      '',
      line('2026-12-01 09:00', 'eaaaaaaaaaaaa'),
      line('2026-12-01 09:00', 'ebbbbbbbbbbbb'),
      line('2026-11-30 09:00', 'ecccccccccccc'),
      '',
      'A note of mine.',
    ].join('\n');
    const merged = unionChangelog([text], new Set(['ecccccccccccc']));
    expect(merged).toBe(
      ['# Changelog', '', line('2026-12-01 09:00', 'eaaaaaaaaaaaa'), line('2026-12-01 09:00', 'ebbbbbbbbbbbb'), '', 'A note of mine.', ''].join('\n'),
    );
    expect([...editIdsIn(merged)]).toEqual(['eaaaaaaaaaaaa', 'ebbbbbbbbbbbb']);
  });
});
