import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startSession, writeNote } from '../../lib/vault/index';
import { VaultError } from '../../lib/vault/errors';
import type { Vault } from '../../lib/vault/vault';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const NOTE = 'notes/a.md';
const MB = 1 << 20;

const vaults: TempVault[] = [];
const opened: Vault[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const vault of opened.splice(0)) vault.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

async function openTemp(files: Record<string, string>, options?: Parameters<TempVault['open']>[0]): Promise<{ tv: TempVault; vault: Vault }> {
  const tv = makeTempVault(files);
  vaults.push(tv);
  const vault = await tv.open(options);
  opened.push(vault);
  return { tv, vault };
}

describe('an append to a note of a million blank lines', () => {
  // The old `text.replace(/(\r?\n)*$/, eol)` retried from each blank line to the text after them: 18 s
  // for 100,000 lines, long enough to lose the vault lock. What is checked here is the text written.
  it('keeps every blank line, in the middle and at the end, and adds the section after them', async () => {
    const blank = '\n'.repeat(MB);
    const text = `Idea.\n${blank}End.\n\n\n`;
    const { tv, vault } = await openTemp({ [NOTE]: text });
    const session = (await startSession(vault, { agent: 'tester', task: 'append to a long note' })).session;

    await writeNote(vault, { session, path: NOTE, mode: 'append', content: 'Second idea.', reason: 'one more idea' });

    const written = tv.read(NOTE);
    expect(written.endsWith(`Idea.\n${blank}End.\n\n\nSecond idea.\n`)).toBe(true);
    expect(written.length - (written.indexOf('Idea.\n') + `Idea.\n${blank}End.\n\n\nSecond idea.\n`.length)).toBe(0);
    expect(tv.git(['status', '--porcelain']).trim()).toBe('');
  }, 120_000);

  it('keeps a \\r that no \\n follows, after 1 MB of \\r\\n', async () => {
    const text = `Idea.\r\n${'\r\n'.repeat(MB / 2)}End.\r${'\r\n'.repeat(MB / 2)}`;
    const { tv, vault } = await openTemp({ [NOTE]: text });
    const session = (await startSession(vault, { agent: 'tester', task: 'append to a long note' })).session;

    await writeNote(vault, { session, path: NOTE, mode: 'append', content: 'Second idea.', reason: 'one more idea' });

    expect(tv.read(NOTE)).toBe(`${text}Second idea.\r\n`);
  }, 120_000);
});

/**
 * Starts a second process that writes `NOTE` through its own vault (staleMs 2 s), and writes
 * `marker` from inside its compose step, i.e. once it holds the vault lock.
 */
function startSecondWriter(tv: TempVault, marker: string): ChildProcess {
  const vaultModule = path.join(PROJECT_ROOT, 'lib', 'vault', 'vault.ts');
  const idsModule = path.join(PROJECT_ROOT, 'lib', 'vault', 'ids.ts');
  const script = `
    import { writeFileSync } from 'node:fs';
    import { openVault } from ${JSON.stringify(vaultModule)};
    import { seededIds } from ${JSON.stringify(idsModule)};
    const vault = await openVault({ root: ${JSON.stringify(tv.root)}, env: process.env, ids: seededIds(99), lock: { staleMs: 2000, waitMs: 60000 } });
    const result = await vault.edit({
      actor: 'agent:second', op: 'append', path: ${JSON.stringify(NOTE)}, reason: 'the second writer',
      changes: [{ path: ${JSON.stringify(NOTE)}, content: (now) => { writeFileSync(${JSON.stringify(marker)}, ''); return (now?.text ?? '') + 'second\\n'; } }],
    });
    process.stdout.write(JSON.stringify(result));
    vault.close();
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    env: tv.env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; out: string; err: string }> {
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, out, err })));
}

describe('long synchronous work under the vault lock', () => {
  it('a write whose compose step blocks past the stale time while another process takes the lock over fails with nothing written; the other write commits', async () => {
    const { tv, vault } = await openTemp({ [NOTE]: 'first\n', 'changelog.md': '# Changelog\n' }, { lock: { staleMs: 2000 } });
    const marker = path.join(tv.tempDir('marker'), 'second-holds-the-lock');
    const commits = tv.commitCount();
    let second: Promise<{ code: number | null; out: string; err: string }> | null = null;

    let caught: unknown = null;
    try {
      await vault.edit({
        actor: 'agent:first',
        op: 'append',
        path: NOTE,
        reason: 'the first writer',
        changes: [
          {
            path: NOTE,
            content: (now) => {
              second = exitOf(startSecondWriter(tv, marker));
              // Blocks the event loop, so this process's lock refresh cannot run, until the second
              // process has taken the lock over (it can once the lock is 2 s without a refresh).
              const giveUpAt = Date.now() + 90_000;
              while (!fs.existsSync(marker) && Date.now() < giveUpAt) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
              return `${now?.text ?? ''}first again\n`;
            },
          },
        ],
      });
    } catch (error) {
      caught = error;
    }
    expect(fs.existsSync(marker)).toBe(true);
    expect(caught).toBeInstanceOf(VaultError);
    expect((caught as VaultError).code).toBe('locked');
    expect((caught as VaultError).message).toMatch(/lost.*nothing was committed/);

    const done = await (second as unknown as Promise<{ code: number | null; out: string; err: string }>);
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    expect(JSON.parse(done.out).commit).toBe(tv.head());
    expect(tv.commitCount()).toBe(commits + 1);
    expect(tv.read(NOTE)).toBe('first\nsecond\n');
    expect(tv.git(['log', '-1', '--format=%an']).trim()).toBe('agent:second');
    expect(tv.git(['status', '--porcelain']).trim()).toBe('');

    // The first process goes on: its next write takes the lock and commits.
    const next = await vault.edit({
      actor: 'agent:first',
      op: 'append',
      path: NOTE,
      reason: 'again',
      changes: [{ path: NOTE, content: (now) => `${now?.text ?? ''}third\n` }],
    });
    expect(next.commit).toBe(tv.head());
    expect(tv.read(NOTE)).toBe('first\nsecond\nthird\n');
  }, 180_000);
});
