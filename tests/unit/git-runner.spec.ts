import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { isVaultError } from '../../lib/vault/errors';
import { runGit } from '../../lib/vault/git/repo';
import { createGitRunner, type GitInvocation } from '../../lib/vault/git/runner';

const invocation = (args: string[] = ['status']): GitInvocation => ({ args, cwd: process.cwd(), env: {} });

/** A stand-in for a child process that finishes only when the test says so (or is killed). */
class FakeChild extends EventEmitter {
  stdout = new PassThrough();
  stderr = new PassThrough();
  stdin = new PassThrough();
  killedWith: string | null = null;
  exit(code: number | null, signal: NodeJS.Signals | null = null) {
    this.emit('close', code, signal);
  }
  kill(signal: NodeJS.Signals) {
    this.killedWith = signal;
    return true;
  }
}

function fakeSpawn() {
  const live = new Set<FakeChild>();
  let started = 0;
  let maxLive = 0;
  const spawn = () => {
    const child = new FakeChild();
    started += 1;
    live.add(child);
    maxLive = Math.max(maxLive, live.size);
    child.on('close', () => live.delete(child));
    return child as unknown as ChildProcessWithoutNullStreams;
  };
  return {
    spawn,
    live,
    get started() {
      return started;
    },
    get maxLive() {
      return maxLive;
    },
  };
}

describe('the git runner', () => {
  it('never runs more than six processes, even when a new run arrives between a release and the waiter waking up', async () => {
    const fake = fakeSpawn();
    const run = createGitRunner({ spawn: fake.spawn });
    const total = 60;
    let launched = 0;
    const launch = (): Promise<void> => {
      launched += 1;
      // Each finished run starts the next one at once, in the same microtask burst as other releases.
      return run(invocation()).then(() => (launched < total ? launch() : undefined));
    };
    const runs: Promise<void>[] = [];
    for (let i = 0; i < 20; i += 1) runs.push(launch());
    const all = Promise.all(runs);
    let done = false;
    void all.then(() => {
      done = true;
    });
    // Every turn finishes all running processes in one go, as when several git processes exit together.
    while (!done) {
      await new Promise((resolve) => setImmediate(resolve));
      for (const child of [...fake.live]) child.exit(0);
    }
    await all;
    expect(fake.started).toBe(total);
    expect(fake.maxLive).toBe(6);
  });

  it('honours a smaller limit given to the factory', async () => {
    const fake = fakeSpawn();
    const run = createGitRunner({ spawn: fake.spawn, maxProcesses: 2 });
    const runs = Array.from({ length: 7 }, () => run(invocation()));
    while (fake.started < 7) {
      await new Promise((resolve) => setImmediate(resolve));
      expect(fake.live.size).toBeLessThanOrEqual(2);
      for (const child of [...fake.live]) child.exit(0);
    }
    for (const child of [...fake.live]) child.exit(0);
    await Promise.all(runs);
    expect(fake.maxLive).toBe(2);
  });

  it('kills a process that outlives its timeout with SIGKILL, rejects with an io_error naming the command, and frees its slot', async () => {
    const fake = fakeSpawn();
    const run = createGitRunner({ spawn: fake.spawn, maxProcesses: 1, timeoutMs: 20 });
    const hung = run(invocation(['commit-tree', 'abc']));
    const error = await hung.catch((e: unknown) => e);
    expect(isVaultError(error, 'io_error')).toBe(true);
    expect((error as Error).message).toMatch(/^git commit-tree was stopped after 0\.02 s/);
    const [child] = [...fake.live];
    expect(child.killedWith).toBe('SIGKILL');
    // The only slot is free again although the killed child never reported 'close'.
    const next = run({ ...invocation(['status']), timeoutMs: 5_000 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.started).toBe(2);
    [...fake.live][1].stdout.write('ok\n');
    [...fake.live][1].exit(0);
    await expect(next).resolves.toBe('ok\n');
  });

  it('takes a timeout per invocation', async () => {
    const fake = fakeSpawn();
    const run = createGitRunner({ spawn: fake.spawn });
    await expect(run({ ...invocation(['fetch']), timeoutMs: 10 })).rejects.toThrow('git fetch was stopped after 0.01 s');
  });

  it('kills a real waiting process after the timeout (through child_process.spawn)', async () => {
    // The real spawn, watched: the process must end by the runner's SIGKILL, not by running out
    // (an hour of `sleep` would never end on its own within the test).
    const children: ChildProcessWithoutNullStreams[] = [];
    const watched = ((...args: Parameters<typeof spawn>) => {
      const child = spawn(...args) as ChildProcessWithoutNullStreams;
      children.push(child);
      return child;
    }) as unknown as typeof spawn;
    const run = createGitRunner({ command: 'sleep', timeoutMs: 50, spawn: watched });
    await expect(run({ args: ['3600'], cwd: process.cwd(), env: { PATH: process.env.PATH ?? '' } })).rejects.toThrow('git 3600 was stopped after 0.05 s');
    expect(children).toHaveLength(1);
    const [child] = children;
    if (child.exitCode === null && child.signalCode === null) await new Promise((resolve) => child.once('close', resolve));
    expect(child.signalCode).toBe('SIGKILL');
  });

  it('reports a process killed by a signal as killed, not as "no output"', async () => {
    const fake = fakeSpawn();
    const run = createGitRunner({ spawn: fake.spawn });
    const pending = run(invocation(['log']));
    await new Promise((resolve) => setImmediate(resolve));
    [...fake.live][0].exit(null, 'SIGKILL');
    await expect(pending).rejects.toThrow('git log was killed by SIGKILL');
  });

  it('reports a real process killed by a signal', async () => {
    const run = createGitRunner({ command: 'sh' });
    await expect(run({ args: ['-c', 'kill -TERM $$'], cwd: process.cwd(), env: { PATH: process.env.PATH ?? '' } })).rejects.toThrow(
      'git -c was killed by SIGTERM',
    );
  });

  it('resolves with stdout and rejects a non-zero exit with its stderr', async () => {
    const run = createGitRunner({ command: 'sh' });
    const env = { PATH: process.env.PATH ?? '' };
    await expect(run({ args: ['-c', 'cat'], cwd: process.cwd(), env, input: 'from stdin' })).resolves.toBe('from stdin');
    await expect(run({ args: ['-c', 'echo nope >&2; exit 3'], cwd: process.cwd(), env })).rejects.toThrow('git -c failed (exit 3): nope');
  });

  it('keeps the timeout message when the repository layer reports the failure', async () => {
    const fake = fakeSpawn();
    const run = createGitRunner({ spawn: fake.spawn, timeoutMs: 10 });
    const error = await runGit({ root: process.cwd(), env: {}, run }, ['log']).catch((e: unknown) => e);
    expect(isVaultError(error, 'io_error')).toBe(true);
    expect((error as Error).message).toMatch(/^git log was stopped after 0\.01 s/);
  });
});
