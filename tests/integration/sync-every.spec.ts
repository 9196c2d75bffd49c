import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_VAULT_FILES, type StdioServer, spawnStdioServer } from '../support/mcp';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const BIN = path.resolve('bin/lucid');

const vaults: TempVault[] = [];
const servers: StdioServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.client.close().catch(() => undefined)));
  for (const tv of vaults.splice(0)) tv.cleanup();
});

function lucid(tv: TempVault, args: string[]) {
  const result = spawnSync(BIN, args, {
    cwd: tv.root,
    env: { ...tv.env, LUCID_USER: 'Test Person' } as unknown as NodeJS.ProcessEnv,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('--sync-every', () => {
  it('is documented in the help of lucid serve and lucid mcp', () => {
    const tv = makeTempVault();
    vaults.push(tv);
    for (const verb of ['serve', 'mcp']) {
      const help = lucid(tv, [verb, '--help']);
      expect(help.code, verb).toBe(0);
      expect(help.stdout, verb).toContain(`[--sync-every I]`);
      expect(help.stdout, verb).toMatch(/--sync-every I\s+sync the vault with its git remote every I \(30s, 5m, 1h/);
      expect(help.stdout, verb).toContain('Off by default');
    }
  });

  it('refuses an interval it cannot read, or under 10 seconds, before anything starts', () => {
    const tv = makeTempVault();
    vaults.push(tv);
    for (const verb of ['serve', 'mcp']) {
      for (const interval of ['often', '5s']) {
        const started = Date.now();
        const run = lucid(
          tv,
          [verb, '--vault', tv.root, '--no-build', '--sync-every', interval].filter((a) => verb === 'serve' || a !== '--no-build'),
        );
        expect(run.code, `${verb} ${interval}`).toBe(2);
        expect(run.stderr, `${verb} ${interval}`).toContain(`lucid: --sync-every "${interval}": `);
        expect(run.stdout).not.toContain('Open: http');
        expect(Date.now() - started).toBeLessThan(30_000);
      }
    }
  });

  it('lucid mcp syncs on the schedule: a failure is printed once, then commits pushed from another clone arrive, and it stops with its client', async () => {
    const tv = makeTempVault(MCP_VAULT_FILES);
    vaults.push(tv);
    const bare = path.join(tv.tempDir('bare'), 'team.git');
    const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, env: tv.env as NodeJS.ProcessEnv, encoding: 'utf8', stdio: 'pipe' });
    git(tv.root, ['init', '-q', '--bare', '-b', 'main', bare]);
    git(tv.root, ['push', '-q', bare, 'main']);
    // First a remote that does not answer: every tick fails with the same message.
    git(tv.root, ['remote', 'add', 'origin', path.join(tv.tempDir('gone'), 'missing.git')]);
    git(tv.root, ['config', 'branch.main.remote', 'origin']);
    git(tv.root, ['config', 'branch.main.merge', 'refs/heads/main']);

    const server = await spawnStdioServer(tv, { args: ['--sync-every', '10s'] });
    servers.push(server);
    expect(server.stderr()).toContain("syncing with the vault's remote every 10s");
    await expect.poll(() => server.stderr(), { timeout: 30_000, interval: 250 }).toMatch(/lucid mcp: sync failed: /);
    const state = JSON.parse(fs.readFileSync(path.join(tv.root, '.lucid', 'sync.json'), 'utf8')) as { lastError: string | null };
    expect(state.lastError).toBeTruthy();
    // A second tick with the same error prints nothing new.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    expect(server.stderr().match(/sync failed: /g)).toHaveLength(1);

    git(tv.root, ['remote', 'set-url', 'origin', bare]);
    const other = path.join(tv.tempDir('other'), 'clone');
    git(tv.root, ['clone', '-q', bare, other]);
    git(other, ['config', 'user.name', 'Other Person']);
    git(other, ['config', 'user.email', 'other@example.invalid']);
    fs.writeFileSync(path.join(other, 'from-the-other-clone.md'), '# From the other clone\n');
    git(other, ['add', '-A']);
    git(other, ['commit', '-q', '-m', 'a note from the other clone']);
    git(other, ['push', '-q', 'origin', 'main']);
    const theirs = git(other, ['rev-parse', 'HEAD']).trim();

    await expect.poll(() => fs.existsSync(path.join(tv.root, 'from-the-other-clone.md')), { timeout: 30_000, interval: 250 }).toBe(true);
    expect(git(tv.root, ['merge-base', '--is-ancestor', theirs, 'HEAD'])).toBe('');
    await expect.poll(() => server.stderr(), { timeout: 5_000 }).toContain('sync works again (origin)');
    expect(server.stderr()).toMatch(/synced with origin \([a-z-]+\): 1 commit received/);

    const pid = server.transport.pid;
    expect(pid).toBeTypeOf('number');
    await server.client.close();
    servers.splice(0);
    const alive = () => {
      try {
        process.kill(pid as number, 0);
        return true;
      } catch {
        return false;
      }
    };
    await expect.poll(alive, { timeout: 15_000, interval: 100 }).toBe(false);
  }, 90_000);
});
