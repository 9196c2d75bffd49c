import { describe, expect, it } from 'vitest';
import { moltTrailer, parseMoltTrailer } from '../../lib/vault/git/commit-message';

describe('the Lucid-Molt trailer', () => {
  it('reads back what it writes, a name with spaces included', () => {
    for (const [name, from, to] of [
      ['deploy', 3, 4],
      ['release checklist', 0, 1],
      ['v2 -> v3 migration', 9, 10],
    ] as const) {
      const [key, value] = moltTrailer(name, from, to);
      expect(key).toBe('Lucid-Molt');
      expect(parseMoltTrailer(value)).toEqual({ skill: name, from, to });
    }
  });

  it('reads a value with spaces around it, and refuses what is not a molt', () => {
    expect(parseMoltTrailer('  deploy 1->2 \n')).toEqual({ skill: 'deploy', from: 1, to: 2 });
    for (const value of [undefined, '', 'deploy', '1->2', 'deploy 1-2', 'deploy ->2', 'deploy 1->', 'deploy 1->2x', ' 1->2']) {
      expect(parseMoltTrailer(value), String(value)).toBeNull();
    }
  });
});
