import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { withVaultLock } from '../../lib/vault/write/lock';
import type { SyncReport } from '../../lib/vault/index';
import { makeSyncVaults, type SyncVaults } from '../support/sync-vaults';

/** `lucid sync` through the real binary: progress on stderr, a summary or the JSON report on stdout, errors that say what to do. */

const BIN = path.resolve('bin/lucid');
let world: SyncVaults | null = null;
afterEach(() => {
  world?.cleanup();
  world = null;
});

function lucid(args: string[], env: Record<string, string | undefined>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(BIN, args, { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('lucid sync', () => {
  it('syncs two clones: a summary on stdout, progress on stderr, the report with --json, --no-push keeps it local', async () => {
    world = await makeSyncVaults(2);
    const [a, b] = world.clones;
    a.write('notes/from-a.md', '# From A\n');
    a.git(['add', '-A']);
    a.git(['commit', '-q', '-m', 'from a']);
    const pushed = await lucid(['sync', '--vault', a.root], world.env);
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(pushed.stdout).toContain('Pushed your commits to origin/main.');
    expect(pushed.stderr).toContain('fetching origin/main');
    expect(pushed.stderr).toContain('pushing');

    b.write('notes/draft.md', '# Draft\n');
    const local = await lucid(['sync', '--vault', b.root, '--no-push', '--json'], world.env);
    expect(local.code, local.stderr).toBe(0);
    const report = JSON.parse(local.stdout) as SyncReport;
    expect(report).toMatchObject({ remote: 'origin', branch: 'main', outcome: 'merged', received: 1, pushed: false, committedFirst: ['notes/draft.md'] });
    expect(local.stderr).toContain('committing your uncommitted notes first');
    expect(b.read('notes/from-a.md')).toBe('# From A\n');
    expect(world.bareGit(['rev-parse', 'main']).trim()).toBe(a.head());
  }, 60_000);

  it('exits 1 with what to do when the vault has no remote, or not the one named', async () => {
    world = await makeSyncVaults(1);
    const [a] = world.clones;
    const wrong = await lucid(['sync', '--vault', a.root, '--remote', 'backup'], world.env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('no remote named "backup"');
    a.git(['remote', 'remove', 'origin']);
    const none = await lucid(['sync', '--vault', a.root], world.env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('git remote add origin <url>');
    expect(none.stdout).toBe('');
    const help = await lucid(['sync', '--help'], world.env);
    expect(help.stdout).toContain('lucid sync [--vault DIR] [--remote NAME] [--no-push] [--json]');
  }, 60_000);
  it('waits for no one: while a schedule or the Sync button syncs the vault, it says so and exits 1 without fetching', async () => {
    world = await makeSyncVaults(2);
    const [a, b] = world.clones;
    a.write('notes/from-a.md', '# From A\n');
    a.git(['add', '-A']);
    a.git(['commit', '-q', '-m', 'from a']);
    a.git(['push', '-q', 'origin', 'main']);
    const tracking = b.git(['rev-parse', 'origin/main']).trim();
    // The lock a running `--sync-every` schedule or Sync button holds (syncExclusively).
    const busy = await withVaultLock(path.join(b.root, '.lucid', 'sync'), () => lucid(['sync', '--vault', b.root], world?.env ?? {}));
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('A sync of this vault is already running');
    expect(b.git(['rev-parse', 'origin/main']).trim()).toBe(tracking);
    expect(b.exists('notes/from-a.md')).toBe(false);
  }, 60_000);
  it("prints no terminal control characters a remote's names or link targets carry", async () => {
    world = await makeSyncVaults(2);
    const [a, b] = world.clones;
    const name = 'notes/\u001b[2Jred\u0007.md';
    fs.mkdirSync(path.join(a.root, 'notes'), { recursive: true });
    fs.symlinkSync('\u001b]0;owned\u0007../../etc/passwd', path.join(a.root, name));
    a.git(['add', '-A']);
    a.git(['commit', '-q', '-m', 'a hostile link']);
    a.git(['push', '-q', 'origin', 'main']);
    const synced = await lucid(['sync', '--vault', b.root], world.env);
    expect(synced.code, synced.stderr).toBe(0);
    expect(synced.stdout).toContain('red');
    expect(synced.stdout).toContain('symbolic link');
    expect(synced.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
  }, 60_000);
});
