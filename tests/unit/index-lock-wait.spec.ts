import { afterEach, describe, expect, it, vi } from 'vitest';
import { isVaultError } from '../../lib/vault/errors';
import { assertWritableRepo, type GitRepo } from '../../lib/vault/git/repo';

// The wait for another git process's .git/index.lock is bounded by the clock, not by the machine's
// speed: on a clock the test moves, the check gives up once 2 s have passed (a fixed number of
// looks at the lock), and goes on as soon as the lock is gone. No git process is started before.

const repo = { root: '/vault', top: '/vault', prefix: '', gitDir: '/vault/.git', env: {}, run: async () => '' } as GitRepo;

afterEach(() => {
  vi.useRealTimers();
});

describe("the wait for a person's git to let go of index.lock", () => {
  it('gives up after 2 s of the clock with `locked`, naming the lock, having looked at it a bounded number of times', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    let looks = 0;
    const git: string[][] = [];
    const fs = {
      existsSync: (p: string) => {
        if (p.endsWith('index.lock')) looks += 1;
        return p === '/vault/.git/index.lock';
      },
    };
    const outcome = assertWritableRepo(
      {
        ...repo,
        run: async (i) => {
          git.push([...i.args]);
          return '';
        },
      },
      fs,
    ).then(
      () => null,
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(1_900);
    let settled = false;
    void outcome.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    const error = await outcome;
    expect(isVaultError(error, 'locked')).toBe(true);
    expect((error as Error).message).toContain('.git/index.lock');
    // One look every 50 ms for 2 s, one more to name it: the wait ends on the clock.
    expect(looks).toBeGreaterThan(1);
    expect(looks).toBeLessThanOrEqual(2_000 / 50 + 2);
    expect(git).toEqual([]);
  });

  it('goes on as soon as the lock is gone, without waiting out the 2 s', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    let looks = 0;
    const fs = {
      existsSync: (p: string) => {
        if (!p.endsWith('index.lock')) return false;
        looks += 1;
        return looks <= 3;
      },
    };
    const git: string[][] = [];
    const outcome = assertWritableRepo(
      {
        ...repo,
        run: async (i) => {
          git.push([...i.args]);
          return i.args[0] === 'symbolic-ref' ? 'refs/heads/main\n' : '';
        },
      },
      fs,
    );
    await vi.advanceTimersByTimeAsync(150);
    await expect(outcome).resolves.toBeUndefined();
    expect(looks).toBe(5);
    expect(git.map((args) => args[0])).toContain('symbolic-ref');
  });
});
