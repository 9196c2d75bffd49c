import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isVaultError,
  type SyncReport,
  type SyncRun,
  type SyncScheduleOptions,
  startSyncSchedule,
  syncExclusively,
  type Vault,
  VaultError,
} from '../../lib/vault/index';
import { makeTempVault, type TempVault } from '../support/temp-vault';

// No sleeps and no clock: the schedule's waits are a timer the test fires by hand, each sync run
// ends when the test says so, and every check is on the order of events.

function report(overrides: Partial<SyncReport> = {}): SyncReport {
  return {
    remote: 'origin',
    branch: 'main',
    outcome: 'up-to-date',
    before: 'a'.repeat(40),
    head: 'a'.repeat(40),
    received: 0,
    pushed: false,
    committedFirst: [],
    conflicts: [],
    refused: [],
    warnings: [],
    ...overrides,
  };
}

/** The events of a test in order; `next(match)` resolves when the next event that `match` accepts is pushed. */
function eventLog() {
  const events: string[] = [];
  const waiters: { match: (e: string) => boolean; resolve: () => void }[] = [];
  return {
    events,
    push(event: string) {
      events.push(event);
      for (const w of waiters.splice(0)) {
        if (w.match(event)) w.resolve();
        else waiters.push(w);
      }
    },
    next(match: (e: string) => boolean): Promise<void> {
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
  };
}

/** The schedule's timer, by hand: `fire()` runs the pending wait; `armed()` resolves once a new wait is set. */
function manualTimer(log: ReturnType<typeof eventLog>) {
  let pending: { run: () => void; ms: number } | null = null;
  const timer: NonNullable<SyncScheduleOptions['timer']> = (run, ms) => {
    const wait = { run, ms };
    pending = wait;
    log.push(`armed ${ms}`);
    return {
      cancel: () => {
        if (pending === wait) pending = null;
        log.push('cancelled');
      },
    };
  };
  return {
    timer,
    pending: () => pending,
    fire() {
      const wait = pending;
      if (!wait) throw new Error('no wait is pending');
      pending = null;
      wait.run();
    },
    armed: () => log.next((e) => e.startsWith('armed')),
  };
}

/** A stand-in for syncVault whose every run waits until the test ends it; records starts, ends and overlap. */
function controlledSync(log: ReturnType<typeof eventLog>, name: string, outcome: () => SyncReport | Error = () => report()) {
  const finishers: (() => void)[] = [];
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  let auto = false;
  const sync: SyncRun = async () => {
    active += 1;
    maxActive = Math.max(maxActive, active);
    runs += 1;
    const n = runs;
    log.push(`${name} start ${n}`);
    if (!auto) await new Promise<void>((resolve) => finishers.push(resolve));
    active -= 1;
    log.push(`${name} end ${n}`);
    const result = outcome();
    if (result instanceof Error) throw result;
    return result;
  };
  return {
    sync,
    runs: () => runs,
    maxActive: () => maxActive,
    started: (n: number) => log.next((e) => e === `${name} start ${n}`),
    /** Ends the oldest run in progress. */
    finish() {
      const next = finishers.shift();
      if (!next) throw new Error(`no run of ${name} is in progress`);
      next();
    },
    /** From now on runs end at once. */
    endAtOnce() {
      auto = true;
    },
  };
}

let tv: TempVault;
let vault: Vault;
afterEach(async () => {
  await vault?.close();
  tv?.cleanup();
});

async function fresh() {
  tv = makeTempVault({ 'a.md': '# A\n' });
  vault = await tv.open();
}

describe('startSyncSchedule', () => {
  it('runs one interval after the start, then one interval after each run ends, never two at once, and stops on close', async () => {
    await fresh();
    const log = eventLog();
    const clock = manualTimer(log);
    const runner = controlledSync(log, 'sync');
    const schedule = startSyncSchedule(vault, { everyMs: 100, log: () => undefined, sync: runner.sync, timer: clock.timer });
    // The first run waits one interval from the start; nothing ran yet.
    expect(log.events).toEqual(['armed 100']);

    clock.fire();
    await runner.started(1);
    // While a run goes on, no wait is set: a second run cannot start beside it.
    expect(clock.pending()).toBeNull();
    const armedAgain = clock.armed();
    runner.finish();
    await armedAgain;
    clock.fire();
    await runner.started(2);
    expect(log.events).toEqual(['armed 100', 'sync start 1', 'sync end 1', 'armed 100', 'sync start 2']);
    expect(runner.maxActive()).toBe(1);

    // stop waits for the run in progress: it resolves only after that run ended, and nothing is armed after it.
    const stopped = schedule.stop().then(() => log.push('stopped'));
    await Promise.resolve();
    expect(log.events.at(-1)).toBe('sync start 2');
    runner.finish();
    await stopped;
    expect(log.events.slice(5)).toEqual(['sync end 2', 'stopped']);
    expect(clock.pending()).toBeNull();
    expect(runner.runs()).toBe(2);
  });

  it('a stop between runs cancels the pending wait: no run starts after it', async () => {
    await fresh();
    const log = eventLog();
    const clock = manualTimer(log);
    const runner = controlledSync(log, 'sync');
    const schedule = startSyncSchedule(vault, { everyMs: 100, log: () => undefined, sync: runner.sync, timer: clock.timer });
    await schedule.stop();
    expect(log.events).toEqual(['armed 100', 'cancelled']);
    expect(clock.pending()).toBeNull();
    expect(runner.runs()).toBe(0);
  });

  it('prints each distinct error once, says when syncing works again, and prints a recurring error again after that', async () => {
    await fresh();
    const outcomes: (SyncReport | Error)[] = [
      new VaultError('io_error', 'fetch failed: could not read from remote repository'),
      new VaultError('io_error', 'fetch failed: could not read from remote repository'),
      new VaultError('io_error', 'fetch failed: could not read from remote repository'),
      new VaultError('conflict', 'your unpushed commit cannot be replayed; run git status'),
      report({ outcome: 'fast-forward', received: 2 }),
      report(),
      new VaultError('io_error', 'fetch failed: could not read from remote repository'),
    ];
    let i = 0;
    const log = eventLog();
    const clock = manualTimer(log);
    const runner = controlledSync(log, 'sync', () => outcomes[Math.min(i++, outcomes.length - 1)]);
    runner.endAtOnce();
    const lines: string[] = [];
    const schedule = startSyncSchedule(vault, { everyMs: 20, log: (line) => lines.push(line), sync: runner.sync, timer: clock.timer });
    // Each tick by hand; the next wait is set only once the run and its line are done.
    for (let tick = 0; tick < outcomes.length + 2; tick += 1) {
      const armed = clock.armed();
      clock.fire();
      await armed;
    }
    await schedule.stop();
    expect(runner.runs()).toBe(outcomes.length + 2);
    expect(lines).toEqual([
      'sync failed: fetch failed: could not read from remote repository',
      'sync failed: your unpushed commit cannot be replayed; run git status',
      'sync works again (origin)',
      'synced with origin (fast-forward): 2 commits received',
      'sync failed: fetch failed: could not read from remote repository',
    ]);
  });

  it('skips a tick while another sync of the vault runs (the Sync button) instead of running beside it', async () => {
    await fresh();
    const log = eventLog();
    const clock = manualTimer(log);
    const button = controlledSync(log, 'button');
    const scheduled = controlledSync(log, 'scheduled');
    scheduled.endAtOnce();
    const lines: string[] = [];
    const running = syncExclusively(vault, {}, button.sync);
    await button.started(1);
    const schedule = startSyncSchedule(vault, { everyMs: 50, log: (line) => lines.push(line), sync: scheduled.sync, timer: clock.timer });
    // A tick while the button's sync runs is skipped, silently, and the next one is armed.
    let armed = clock.armed();
    clock.fire();
    await armed;
    expect(scheduled.runs()).toBe(0);
    button.finish();
    await running;
    armed = clock.armed();
    clock.fire();
    await armed;
    await schedule.stop();
    expect(log.events.filter((e) => !e.startsWith('armed') && e !== 'cancelled')).toEqual([
      'button start 1',
      'button end 1',
      'scheduled start 1',
      'scheduled end 1',
    ]);
    expect(lines).toEqual([]);
  });

  it('never keeps the process alive: a process that closes its vault exits with the schedule still armed', () => {
    tv = makeTempVault({ 'a.md': '# A\n' });
    const script = [
      `import { openVault, startSyncSchedule } from ${JSON.stringify(path.resolve('lib/vault/index.ts'))};`,
      `const vault = await openVault({ root: ${JSON.stringify(tv.root)}, env: process.env });`,
      `startSyncSchedule(vault, { everyMs: 3_600_000, log: console.error, sync: async () => { throw new Error('ran'); } });`,
      'await vault.close();',
      "console.log('closed');",
    ].join('\n');
    // An armed timer that held the process would keep it an hour; the child is killed long before
    // (status null), so a process that exits on its own (status 0) is the proof.
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: tv.env as NodeJS.ProcessEnv,
      encoding: 'utf8',
      timeout: 50_000,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('closed');
    expect(result.signal).toBeNull();
    expect(result.status).toBe(0);
  });
});

describe('syncExclusively', () => {
  it('refuses a second sync of the same vault while one runs in this process, then allows the next', async () => {
    await fresh();
    const log = eventLog();
    const runner = controlledSync(log, 'sync');
    const first = syncExclusively(vault, {}, runner.sync);
    await runner.started(1);
    const second = await syncExclusively(vault, {}, runner.sync).catch((error: unknown) => error);
    expect(isVaultError(second, 'locked')).toBe(true);
    expect((second as Error).message).toMatch(/already running/);
    runner.finish();
    await first;
    runner.endAtOnce();
    await syncExclusively(vault, {}, runner.sync);
    expect(runner.runs()).toBe(2);
  });

  it("refuses while another process holds the vault's sync lock, and passes the engine's own errors through", async () => {
    await fresh();
    const lockDir = path.join(vault.stateDir(), 'sync.lock');
    fs.mkdirSync(lockDir);
    const runner = controlledSync(eventLog(), 'sync');
    runner.endAtOnce();
    const refused = await syncExclusively(vault, {}, runner.sync).catch((error: unknown) => error);
    expect(isVaultError(refused, 'locked')).toBe(true);
    expect((refused as Error).message).toMatch(/already running/);
    expect(runner.runs()).toBe(0);
    fs.rmdirSync(lockDir);

    const failing: SyncRun = async () => {
      throw new VaultError('invalid_input', 'This vault has no remote: add one with `git remote add origin <url>`.');
    };
    const error = await syncExclusively(vault, {}, failing).catch((e: unknown) => e);
    expect(isVaultError(error, 'invalid_input')).toBe(true);
    expect((error as Error).message).toContain('git remote add origin');
    // The lock is released after a failure: the next sync runs.
    await syncExclusively(vault, {}, runner.sync);
    expect(runner.runs()).toBe(1);
    expect(fs.existsSync(lockDir)).toBe(false);
  });
});
