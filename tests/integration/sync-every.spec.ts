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
        const run = lucid(
          tv,
          [verb, '--vault', tv.root, '--no-build', '--sync-every', interval].filter((a) => verb === 'serve' || a !== '--no-build'),
        );
        expect(run.code, `${verb} ${interval}`).toBe(2);
        expect(run.stderr, `${verb} ${interval}`).toContain(`lucid: --sync-every "${interval}": `);
        expect(run.stdout).not.toContain('Open: http');
      }
    }
  });

  it('lucid mcp --sync-every 10s starts the schedule, says so, and stops with its client', async () => {
    const tv = makeTempVault(MCP_VAULT_FILES);
    vaults.push(tv);
    const server = await spawnStdioServer(tv, { args: ['--sync-every', '10s'] });
    servers.push(server);
    await stderrMatches(server, /syncing with the vault's remote every 10s/);
    await closedAndGone(server);
  });

  // The schedule's ticks themselves (each distinct error once, never two runs at once) are proven on
  // a timer the test fires by hand (sync-schedule.spec.ts); here the MCP server runs it for real on a
  // short interval (runStdioServer takes the interval in ms; only the CLI's parser has the 10 s floor,
  // proven above), and every wait is for an event of the server: a line on its stderr, a tick's
  // rewrite of .lucid/sync.json.
  it('the MCP server syncs on its schedule: a failure is printed once, then commits pushed from another clone arrive, and it stops with its client', async () => {
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

    const entry = path.join(tv.tempDir('entry'), 'mcp-every-tick.mts');
    fs.writeFileSync(
      entry,
      `import { runStdioServer } from ${JSON.stringify(path.resolve('mcp/server.ts'))};\n` +
        "await runStdioServer({ vaultRoot: process.argv[2], env: process.env, fallbackUser: 'Test Person', syncEvery: { text: '50 ms', ms: 50 } });\n",
    );
    const server = await spawnStdioServer(tv, { command: { command: process.execPath, args: ['--import', 'tsx', entry, tv.root] } });
    servers.push(server);
    await stderrMatches(server, /lucid mcp: sync failed: /);
    const syncFile = path.join(tv.root, '.lucid', 'sync.json');
    expect((JSON.parse(fs.readFileSync(syncFile, 'utf8')) as { lastError: string | null }).lastError).toBeTruthy();
    // Two more ticks rewrite sync.json: the first of them has ended, line and all, before the second
    // began (never two at once), and it printed nothing new.
    await rewrites(syncFile, 2);
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

    await stderrMatches(server, /synced with origin \([a-z-]+\): 1 commit received/);
    expect(fs.existsSync(path.join(tv.root, 'from-the-other-clone.md'))).toBe(true);
    expect(git(tv.root, ['merge-base', '--is-ancestor', theirs, 'HEAD'])).toBe('');
    expect(server.stderr()).toContain('sync works again (origin)');
    expect(server.stderr().indexOf('sync works again (origin)')).toBeLessThan(server.stderr().indexOf('synced with origin'));

    await closedAndGone(server);
  }, 90_000);
});

/** Resolves once the server's stderr holds a match of `pattern` (on its own data events, no polling). */
function stderrMatches(server: StdioServer, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const stream = server.transport.stderr;
    const check = () => {
      if (!pattern.test(server.stderr())) return;
      stream?.off('data', onData);
      resolve();
    };
    // Listeners run in order: the support's own listener (which appends to stderr()) came first.
    const onData = () => check();
    stream?.on('data', onData);
    check();
  });
}

/** Resolves once `file` was replaced (renamed over) `count` times, seen by watching its folder. */
function rewrites(file: string, count: number): Promise<void> {
  const inode = () => {
    try {
      return fs.statSync(file).ino;
    } catch {
      return null;
    }
  };
  let seen = inode();
  let changes = 0;
  return new Promise((resolve) => {
    const watcher = fs.watch(path.dirname(file), () => {
      const now = inode();
      if (now === seen) return;
      seen = now;
      changes += 1;
      if (changes < count) return;
      watcher.close();
      resolve();
    });
  });
}

/** Closes the client and waits until the server's process is gone (its 'close' event). */
async function closedAndGone(server: StdioServer): Promise<void> {
  const pid = server.transport.pid;
  expect(pid).toBeTypeOf('number');
  await server.client.close();
  servers.splice(servers.indexOf(server), 1);
  await server.exited;
  expect(() => process.kill(pid as number, 0)).toThrow();
}
