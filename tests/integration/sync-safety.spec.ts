import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isVaultError, remoteState, syncVault } from '../../lib/vault/index';
import { type SyncClone, syncVaultsEachTest } from '../support/sync-vaults';
import { snapshot, type VaultSnapshot } from '../support/temp-vault';

/** A remote's content is untrusted; a person's commits are never rewritten; failures change nothing. */

const sync = syncVaultsEachTest({ 'notes/welcome.md': '# Welcome\n', 'notes/shared.md': '# Shared\n' });
const setup = sync.setup;
const open = (clone: SyncClone) => sync.open(clone);

/** Commits files as a person of the clone would with plain git, then pushes. */
function pushRaw(clone: SyncClone, files: Record<string, string | null>, message: string): void {
  clone.git(['pull', '-q', '--ff-only', 'origin', 'main']);
  for (const [rel, text] of Object.entries(files)) {
    if (text === null) clone.git(['rm', '-q', '-r', '--', rel]);
    else {
      clone.write(rel, text);
      clone.git(['add', '-f', '--', rel]);
    }
  }
  clone.git(['commit', '-q', '-m', message]);
  clone.git(['push', '-q', 'origin', 'main']);
}

/** A snapshot without Lucid's own state (sync.json records the failure). */
function withoutState(shot: VaultSnapshot): VaultSnapshot {
  const files = Object.fromEntries(Object.entries(shot.files).filter(([rel]) => !rel.startsWith('.lucid/')));
  return { ...shot, files };
}

describe('syncVault and untrusted remote content', () => {
  it('refuses .lucid entries, takes a symlink out of the vault and a 10 MB note as reported, and changes nothing outside the vault', async () => {
    const world = await setup();
    const { clones } = world;
    const outside = world.tempDir('outside');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'keep me\n');
    const outsideBefore = snapshotDir(outside);
    fs.symlinkSync(outside, path.join(clones[0].root, 'link-out'));
    const big = `---\ntype: decision\n---\n\n${'x'.repeat(10 * 1024 * 1024)}\n`;
    pushRaw(
      clones[0],
      {
        '.lucid/evil.json': '{"pwned": true}\n',
        '.lucid/commits.sqlite': 'not a database',
        'notes/huge.md': big,
        'notes/bad.md': '---\ntype: decision\nstatus: sideways\n---\n\n# Bad\n',
        'notes/Shared.md': '# Shared, other case\n',
      },
      'hostile',
    );
    clones[0].git(['add', 'link-out']);
    clones[0].git(['commit', '-q', '-m', 'a link out']);
    clones[0].git(['push', '-q', 'origin', 'main']);
    const b = await open(clones[1]);
    const report = await syncVault(b);
    expect(report.outcome).toBe('merged');
    expect(report.refused.map((r) => r.path).sort()).toEqual(['.lucid/commits.sqlite', '.lucid/evil.json']);
    expect(fs.existsSync(path.join(clones[1].root, '.lucid/evil.json'))).toBe(false);
    expect(clones[1].git(['ls-tree', '-r', '--name-only', 'HEAD', '--', '.lucid'])).toBe('');
    const warned = Object.fromEntries(report.warnings.map((w) => [w.path, w.why]));
    expect(warned['link-out']).toMatch(/symbolic link/);
    expect(warned['notes/huge.md']).toMatch(/MiB/);
    expect(warned['notes/bad.md']).toMatch(/rules/);
    expect(Object.keys(warned)).toEqual(expect.arrayContaining(['notes/Shared.md']));
    expect(fs.lstatSync(path.join(clones[1].root, 'link-out')).isSymbolicLink()).toBe(true);
    expect(snapshotDir(outside)).toEqual(outsideBefore);
    // The vault still works: the huge note is listed, the search index and reads do not follow the link.
    expect((await b.listFiles()).map((f) => f.path)).toContain('notes/huge.md');
    await b.search('welcome');
    // Then the link is replaced by a folder of the same name: git writes into the vault, never through the old link.
    pushRaw(clones[0], { 'link-out': null }, 'drop the link');
    pushRaw(clones[0], { 'link-out/pwned.md': '# Pwned?\n', 'link-out/secret.txt': 'overwritten\n' }, 'a folder where the link was');
    const second = await syncVault(b);
    expect(second.outcome).toBe('fast-forward');
    expect(fs.lstatSync(path.join(clones[1].root, 'link-out')).isDirectory()).toBe(true);
    expect(clones[1].read('link-out/pwned.md')).toBe('# Pwned?\n');
    expect(snapshotDir(outside)).toEqual(outsideBefore);
    expect(clones[1].git(['status', '--porcelain'])).toBe('');
  });
});

describe('syncVault and a person’s own commits', () => {
  it('never rewrites an unpushed local commit: its sha stays an ancestor of HEAD, unchanged', async () => {
    const { clones } = await setup();
    const [a, b] = [await open(clones[0]), await open(clones[1])];
    await a.edit({ actor: 'agent:alpha', op: 'create', path: 'notes/a.md', reason: 'a', changes: [{ path: 'notes/a.md', content: '# A\n' }] });
    await syncVault(a);
    clones[1].write('notes/mine.md', '# Mine\n');
    clones[1].git(['add', 'notes/mine.md']);
    clones[1].git(['commit', '-q', '-m', 'my own commit']);
    const mine = clones[1].head();
    const raw = clones[1].git(['cat-file', '-p', mine]);
    const report = await syncVault(b, { push: false });
    expect(report).toMatchObject({ outcome: 'merged', pushed: false });
    expect(clones[1].git(['merge-base', '--is-ancestor', mine, 'HEAD'])).toBe('');
    expect(clones[1].git(['rev-parse', 'HEAD^1']).trim()).toBe(mine);
    expect(clones[1].git(['cat-file', '-p', mine])).toBe(raw);
    expect(sync.current()?.bareGit(['rev-parse', 'main']).trim()).toBe(clones[0].head());
    const state = await remoteState(b);
    expect(state).toMatchObject({ remote: 'origin', branch: 'main', ahead: 2, behind: 0 });
  });

  it('refuses a detached HEAD, a merge in progress and a held index.lock, saying what to run, and changes nothing', async () => {
    const { clones } = await setup();
    const b = await open(clones[1]);
    const gitDir = path.join(clones[1].root, '.git');
    fs.writeFileSync(path.join(gitDir, 'MERGE_HEAD'), `${clones[1].head()}\n`);
    let error = await syncVault(b).catch((e: unknown) => e);
    expect(isVaultError(error, 'repo_state')).toBe(true);
    expect((error as Error).message).toMatch(/merge is in progress/);
    fs.unlinkSync(path.join(gitDir, 'MERGE_HEAD'));
    fs.writeFileSync(path.join(gitDir, 'index.lock'), '');
    error = await syncVault(b).catch((e: unknown) => e);
    expect(isVaultError(error, 'locked')).toBe(true);
    expect((error as Error).message).toContain('index.lock');
    fs.unlinkSync(path.join(gitDir, 'index.lock'));
    clones[1].git(['checkout', '-q', '--detach']);
    const before = snapshot(clones[1].root);
    error = await syncVault(b).catch((e: unknown) => e);
    expect(isVaultError(error, 'repo_state')).toBe(true);
    expect((error as Error).message).toMatch(/git switch/);
    expect(withoutState(snapshot(clones[1].root))).toEqual(withoutState(before));
  });
});

describe('syncVault and files nobody committed', () => {
  it('stops, changing nothing, when bringing the remote in would overwrite a file that is not a note and nobody committed', async () => {
    const { clones } = await setup();
    pushRaw(clones[0], { 'assets/photo.bin': 'remote bytes', 'assets/config.json': '{"a": 2}\n' }, 'assets');
    const b = await open(clones[1]);
    clones[1].write('assets/photo.bin', 'my own bytes');
    const before = snapshot(clones[1].root);
    const error = await syncVault(b).catch((e: unknown) => e);
    expect(isVaultError(error, 'conflict')).toBe(true);
    expect((error as Error).message).toContain('assets/photo.bin');
    expect((error as Error).message).toMatch(/Nothing of it was brought in/);
    expect(withoutState(snapshot(clones[1].root))).toEqual(withoutState(before));
    expect(clones[1].read('assets/photo.bin')).toBe('my own bytes');
  });
});

describe('syncVault without a usable remote', () => {
  it('says how to add a remote when there is none, names the remotes for a wrong name, and changes nothing', async () => {
    const { clones } = await setup();
    const b = await open(clones[1]);
    const before = snapshot(clones[1].root);
    let error = await syncVault(b, { remote: 'upstream' }).catch((e: unknown) => e);
    expect(isVaultError(error, 'invalid_input')).toBe(true);
    expect((error as Error).message).toContain('no remote named "upstream" (it has origin)');
    clones[1].git(['remote', 'remove', 'origin']);
    error = await syncVault(b).catch((e: unknown) => e);
    expect(isVaultError(error, 'invalid_input')).toBe(true);
    expect((error as Error).message).toContain('git remote add origin <url>');
    expect(snapshot(clones[1].root).head).toBe(before.head);
    expect(snapshot(clones[1].root).status).toBe(before.status);
    expect((await remoteState(b)).remote).toBeNull();
    expect((await remoteState(b)).lastError).toContain('git remote add origin');
  });

  it('fails fast with git’s message and a credentials hint on an unreachable remote, records it, strips credentials from the URL', async () => {
    const world = await setup();
    const { clones } = world;
    const b = await open(clones[1]);
    clones[1].git(['remote', 'set-url', 'origin', path.join(world.dir, 'missing.git')]);
    const before = snapshot(clones[1].root);
    const error = await syncVault(b).catch((e: unknown) => e);
    expect(isVaultError(error, 'io_error')).toBe(true);
    expect((error as Error).message).toMatch(/Could not fetch from origin/);
    expect((error as Error).message).toMatch(/credential helper/);
    expect(withoutState(snapshot(clones[1].root))).toEqual(withoutState(before));
    clones[1].git(['remote', 'set-url', 'origin', 'https://ada:hunter2@git.example.invalid/team/vault.git']);
    const state = await remoteState(b);
    expect(state.url).toBe('https://git.example.invalid/team/vault.git');
    expect(state.lastError).toMatch(/Could not fetch/);
    expect(state.lastSync).toBeNull();
  });
  it("reaches the remote through the person's proxy (https_proxy and the like pass through to fetch and push)", async () => {
    const world = await setup();
    const { clones } = world;
    const requests: string[] = [];
    const proxy = net.createServer((socket) => {
      socket.once('data', (chunk) => {
        requests.push(chunk.toString('latin1').split('\r\n')[0]);
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const port = (proxy.address() as net.AddressInfo).port;
      clones[1].git(['remote', 'set-url', 'origin', 'http://git.example.invalid/team/vault.git']);
      const b = await clones[1].open({ env: { ...world.env, http_proxy: `http://127.0.0.1:${port}` } });

      const error = await syncVault(b).catch((e: unknown) => e);
      expect(isVaultError(error, 'io_error'), String(error)).toBe(true);
      expect(requests.some((r) => r.includes('git.example.invalid/team/vault.git'))).toBe(true);
    } finally {
      proxy.close();
    }
  });
});

/** sha256-free snapshot of a plain folder: every file's bytes by relative path. */
function snapshotDir(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const abs = path.join(current, entry.name);
      if (entry.isDirectory()) walk(abs);
      else out[path.relative(dir, abs)] = fs.readFileSync(abs, 'utf8');
    }
  };
  walk(dir);
  return out;
}
