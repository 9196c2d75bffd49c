import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const BIN = path.resolve('bin/lucid');
const made: TempVault[] = [];
afterEach(() => {
  for (const tv of made.splice(0)) tv.cleanup();
});

/** The real CLI on a temp vault, as a person runs it. */
function lucid(tv: TempVault, args: string[]) {
  const result = spawnSync(BIN, [...args, '--vault', tv.root], { encoding: 'utf8', env: tv.env as NodeJS.ProcessEnv, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function json<T>(run: { code: number | null; stdout: string; stderr: string }): T {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as T;
}

// Each call is a Node process (about ten of them here): slow on a busy machine.
describe('lucid skill', { timeout: 240_000 }, () => {
  it('lists the versions, shows one, and restores it as one molt by the person', () => {
    const tv = makeTempVault();
    made.push(tv);
    const session = json<{ session: string }>(lucid(tv, ['session', 'start', '--agent', 'cli-agent', '--task', 'skills', '--json'])).session;
    const steps = ['1. Look.\n', '1. Look twice.\n', '1. Look twice.\n2. Leap.\n'];
    const commits = steps.map(
      (content, i) =>
        json<{ commit: string }>(
          lucid(tv, [
            'molt',
            'look-first',
            '--session',
            session,
            '--content',
            content,
            '--reason',
            `step ${i + 1}`,
            ...(i === 0 ? ['--trigger', 'before leaping'] : []),
            '--json',
          ]),
        ).commit,
    );

    const history = lucid(tv, ['skill', 'history', 'look-first']);
    expect(history.code, history.stderr).toBe(0);
    const lines = history.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^v3 .* ${commits[2].slice(0, 7)}  agent:cli-agent  molt  step 3$`));
    expect(lines[2]).toMatch(/^v1 .* step 1$/);

    const shown = json<{ text: string; version: number }>(lucid(tv, ['skill', 'show', 'look-first', '--version', '1', '--json']));
    expect(shown.version).toBe(1);
    expect(shown.text).toBe(tv.git(['show', `${commits[0]}:skills/look-first.md`]));

    const noReason = lucid(tv, ['skill', 'restore', 'look-first', '--version', '1']);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain('--reason');
    const head = tv.head();
    const stale = lucid(tv, ['skill', 'restore', 'look-first', '--version', '1', '--reason', 'simpler', '--expected-hash', '0'.repeat(64)]);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/changed since you opened it/);
    expect(tv.head()).toBe(head);

    const restored = json<{ version: number; restored: number; commit: string }>(
      lucid(tv, ['skill', 'restore', 'look-first', '--version', '1', '--reason', 'simpler', '--json']),
    );
    expect(restored).toMatchObject({ version: 4, restored: 1 });
    expect(tv.git(['rev-list', '--count', `${head}..HEAD`]).trim()).toBe('1');
    expect(tv.git(['log', '-1', '--format=%(trailers:key=Lucid-Molt,valueonly)']).trim()).toBe('look-first 3->4');
    expect(tv.git(['log', '-1', '--format=%(trailers:key=Lucid-Actor,valueonly)']).trim()).toMatch(/^human:/);
    expect(tv.read('skills/look-first.md')).toMatch(/\n---\n\n?1\. Look\.\n$/);
  });

  it('says what to do for an unknown skill or verb', () => {
    const tv = makeTempVault();
    made.push(tv);
    const missing = lucid(tv, ['skill', 'history', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No skill nope/);
    expect(lucid(tv, ['skill', 'frob', 'x']).code).toBe(2);
  });
});
