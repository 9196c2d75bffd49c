import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isVaultError, type SyncReport, type SyncRun, startSyncSchedule, syncExclusively, type Vault, VaultError } from '../../lib/vault/index';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** A stand-in for syncVault that records when each run starts and ends and how many ran at once. */
function recordingSync(durationMs: number, outcome: () => SyncReport | Error = () => report()) {
  const runs: { start: number; end: number }[] = [];
  let active = 0;
  let maxActive = 0;
  const sync: SyncRun = async () => {
    active += 1;
    maxActive = Math.max(maxActive, active);
    const run = { start: Date.now(), end: 0 };
    runs.push(run);
    await sleep(durationMs);
    run.end = Date.now();
    active -= 1;
    const result = outcome();
    if (result instanceof Error) throw result;
    return result;
  };
  return { sync, runs, maxActive: () => maxActive };
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
    const { sync, runs, maxActive } = recordingSync(150);
    const started = Date.now();
    const schedule = startSyncSchedule(vault, { everyMs: 100, log: () => undefined, sync });
    await sleep(60);
    expect(runs).toHaveLength(0);
    await sleep(700);
    expect(runs.length).toBeGreaterThanOrEqual(2);
    expect(runs[0].start - started).toBeGreaterThanOrEqual(95);
    for (let i = 1; i < runs.length; i += 1) {
      if (runs[i - 1].end === 0) continue;
      expect(runs[i].start - runs[i - 1].end).toBeGreaterThanOrEqual(95);
    }
    expect(maxActive()).toBe(1);
    await schedule.stop();
    // stop waited for the run in progress: nothing is running, and nothing starts after it.
    expect(runs.every((r) => r.end > 0)).toBe(true);
    const count = runs.length;
    await sleep(400);
    expect(runs).toHaveLength(count);
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
    const { sync, runs } = recordingSync(0, () => outcomes[Math.min(i++, outcomes.length - 1)]);
    const lines: string[] = [];
    const schedule = startSyncSchedule(vault, { everyMs: 20, log: (line) => lines.push(line), sync });
    await expect.poll(() => runs.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(outcomes.length + 2);
    await schedule.stop();
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
    const button = recordingSync(400);
    const scheduled = recordingSync(0);
    const lines: string[] = [];
    const running = syncExclusively(vault, {}, button.sync);
    const schedule = startSyncSchedule(vault, { everyMs: 50, log: (line) => lines.push(line), sync: scheduled.sync });
    await sleep(300);
    expect(scheduled.runs).toHaveLength(0);
    await running;
    await expect.poll(() => scheduled.runs.length, { timeout: 5_000 }).toBeGreaterThan(0);
    expect(scheduled.runs[0].start).toBeGreaterThanOrEqual(button.runs[0].end);
    await schedule.stop();
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
    const started = Date.now();
    const result = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: tv.env as NodeJS.ProcessEnv,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('closed');
    expect(result.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(25_000);
  });
});

describe('syncExclusively', () => {
  it('refuses a second sync of the same vault while one runs in this process, then allows the next', async () => {
    await fresh();
    const { sync, runs } = recordingSync(200);
    const first = syncExclusively(vault, {}, sync);
    const second = await syncExclusively(vault, {}, sync).catch((error: unknown) => error);
    expect(isVaultError(second, 'locked')).toBe(true);
    expect((second as Error).message).toMatch(/already running/);
    await first;
    await syncExclusively(vault, {}, sync);
    expect(runs).toHaveLength(2);
  });

  it("refuses while another process holds the vault's sync lock, and passes the engine's own errors through", async () => {
    await fresh();
    const lockDir = path.join(vault.stateDir(), 'sync.lock');
    fs.mkdirSync(lockDir);
    const { sync, runs } = recordingSync(0);
    const refused = await syncExclusively(vault, {}, sync).catch((error: unknown) => error);
    expect(isVaultError(refused, 'locked')).toBe(true);
    expect((refused as Error).message).toMatch(/already running/);
    expect(runs).toHaveLength(0);
    fs.rmdirSync(lockDir);

    const failing: SyncRun = async () => {
      throw new VaultError('invalid_input', 'This vault has no remote: add one with `git remote add origin <url>`.');
    };
    const error = await syncExclusively(vault, {}, failing).catch((e: unknown) => e);
    expect(isVaultError(error, 'invalid_input')).toBe(true);
    expect((error as Error).message).toContain('git remote add origin');
    // The lock is released after a failure: the next sync runs.
    await syncExclusively(vault, {}, sync);
    expect(runs).toHaveLength(1);
    expect(fs.existsSync(lockDir)).toBe(false);
  });
});
