import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listInbox, remoteState, syncVault } from '../../lib/vault/index';
import { type SyncClone, syncVaultsEachTest } from '../support/sync-vaults';

/** lucid sync on real git: a bare repository and clones in temp folders. */

const sync = syncVaultsEachTest({ 'notes/welcome.md': '# Welcome\n', 'notes/shared.md': '# Shared\n\none\ntwo\nthree\n' });
const setup = (count = 2) => sync.setup(undefined, count);
const open = (clone: SyncClone) => sync.open(clone);

const lines = (text: string) => text.split('\n');
const editIds = (text: string) => [...text.matchAll(/\^(e[a-z2-7]{12})\s*$/gm)].map((m) => m[1]);

describe('syncVault', () => {
  it('fast-forwards to the remote and pushes nothing when the clone has nothing new', async () => {
    const { clones } = await setup();
    const a = await open(clones[0]);
    // A long-lived process (the MCP server, the dashboard): a watcher keeps its listing and search index.
    const b = await sync.open(clones[1], { watch: true });
    expect(await b.search('zeppelin')).toEqual([]);
    await a.edit({
      actor: 'agent:alpha',
      op: 'create',
      path: 'notes/from-a.md',
      reason: 'a note',
      changes: [{ path: 'notes/from-a.md', content: '# From A\n\nzeppelin\n' }],
    });
    const pushedA = await syncVault(a);
    expect(pushedA).toMatchObject({ outcome: 'pushed', pushed: true, received: 0 });
    const before = clones[1].head();
    const report = await syncVault(b);
    expect(report).toMatchObject({ outcome: 'fast-forward', received: 1, pushed: false, before, head: clones[0].head(), conflicts: [], refused: [] });
    expect(clones[1].head()).toBe(clones[0].head());
    expect(clones[1].read('notes/from-a.md')).toBe('# From A\n\nzeppelin\n');
    expect(clones[1].git(['status', '--porcelain'])).toBe('');
    expect((await b.search('zeppelin')).map((hit) => hit.path)).toEqual(['notes/from-a.md']);
    expect((await b.listFiles()).map((f) => f.path)).toContain('notes/from-a.md');
    expect((await b.log({})).map((c) => c.actor)).toContain('agent:alpha');
    expect(clones[1].git(['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
    expect((await b.readNote('notes/from-a.md')).body).toContain('From A');
  });

  it('merges disjoint edits of two clones into one merge commit with both parents, its trailers and its changelog line', async () => {
    const { clones } = await setup();
    const [a, b] = [await open(clones[0]), await open(clones[1])];
    await a.edit({ actor: 'agent:alpha', op: 'create', path: 'notes/a.md', reason: 'from a', changes: [{ path: 'notes/a.md', content: '# A\n' }] });
    await syncVault(a);
    await b.edit({ actor: 'agent:beta', op: 'create', path: 'notes/b.md', reason: 'from b', changes: [{ path: 'notes/b.md', content: '# B\n' }] });
    const localHead = clones[1].head();
    const report = await syncVault(b);
    expect(report).toMatchObject({ outcome: 'merged', received: 1, pushed: true, conflicts: [] });
    const g = clones[1].git;
    expect(g(['rev-list', '--parents', '-n', '1', 'HEAD']).trim().split(' ').slice(1)).toEqual([localHead, clones[0].head()]);
    const message = g(['log', '-1', '--format=%B']);
    expect(message).toMatch(/^sync origin\/main/);
    expect(message).toContain('Lucid-Actor: human:Person 2');
    expect(message).toContain('Lucid-Op: sync');
    expect(message).toMatch(/Lucid-Edit: e[a-z2-7]{12}/);
    expect(message).toMatch(/Lucid-Machine: \S+/);
    expect(clones[1].read('notes/a.md')).toBe('# A\n');
    expect(clones[1].read('notes/b.md')).toBe('# B\n');
    expect(g(['status', '--porcelain'])).toBe('');
    const changelog = clones[1].read('changelog.md');
    expect(changelog).toContain('agent:alpha · create [[notes/a]]');
    expect(changelog).toContain('agent:beta · create [[notes/b]]');
    expect(lines(changelog).find((l) => l.startsWith('- '))).toContain('· sync ');
    expect(new Set(editIds(changelog)).size).toBe(editIds(changelog).length);
    // The remote has the merge; the other clone fast-forwards to it.
    expect(sync.current()?.bareGit(['rev-parse', 'main']).trim()).toBe(clones[1].head());
    expect((await syncVault(a)).outcome).toBe('fast-forward');
    expect(clones[0].read('notes/b.md')).toBe('# B\n');
    // The commit index follows the new history: the remote's commit and the merge are listed.
    const log = await b.log({});
    expect(log.map((c) => c.actor)).toEqual(expect.arrayContaining(['agent:alpha', 'agent:beta', 'human:Person 2']));
    expect(log.some((c) => c.op === 'sync')).toBe(true);
    expect(await listInbox(b)).toEqual([]);
  });
  it('pushes to an empty bare repository (no branch there yet: nothing to bring in)', async () => {
    const world = await setup(1);
    const [clone] = world.clones;
    const empty = `${world.dir}/empty.git`;
    world.bareGit(['init', '-q', '--bare', '-b', 'main', empty]);
    clone.git(['remote', 'add', 'backup', empty]);
    const vault = await open(clone);
    const report = await syncVault(vault, { remote: 'backup' });
    expect(report).toMatchObject({ remote: 'backup', outcome: 'pushed', pushed: true, received: 0 });
    expect(clone.git(['--git-dir', empty, 'rev-parse', 'main']).trim()).toBe(clone.head());
    expect(await remoteState(vault, 'backup')).toMatchObject({ remote: 'backup', url: empty, ahead: 0, behind: 0, lastError: null });
  });
  it('syncs a vault kept in a folder of a larger repository, conflicts and changelog included', async () => {
    const world = await setup(1);
    const [first] = world.clones;
    // Move the vault into a folder of the repository: the sync works on the vault's paths inside it.
    const tracked = first.git(['ls-tree', '--name-only', 'HEAD']).split('\n').filter(Boolean);
    fs.mkdirSync(path.join(first.root, 'vault'));
    first.git(['mv', ...tracked, 'vault/']);
    first.write('README.md', '# The repository\n');
    first.git(['add', '-A']);
    first.git(['commit', '-q', '-m', 'the vault in a folder']);
    first.git(['push', '-q', 'origin', 'main']);
    const second = await world.addClone();
    const a = await sync.open(first, { root: `${first.root}/vault` });
    const b = await sync.open(second, { root: `${second.root}/vault` });
    await a.edit({
      actor: 'agent:alpha',
      op: 'update',
      path: 'notes/shared.md',
      reason: 'a',
      changes: [{ path: 'notes/shared.md', content: '# Shared (A)\n' }],
    });
    await syncVault(a);
    await b.edit({
      actor: 'agent:beta',
      op: 'update',
      path: 'notes/shared.md',
      reason: 'b',
      changes: [{ path: 'notes/shared.md', content: '# Shared (B)\n' }],
    });
    const report = await syncVault(b);
    expect(report.outcome).toBe('merged');
    expect(report.conflicts.map((c) => c.path)).toEqual(['notes/shared.md']);
    expect(report.conflicts[0].inbox.startsWith('inbox/')).toBe(true);
    expect(second.read('vault/notes/shared.md')).toBe('# Shared (A)\n');
    expect(second.read(`vault/${report.conflicts[0].inbox}`)).toContain('# Shared (B)');
    expect(second.read('vault/changelog.md')).toContain('· sync [[changelog]]');
    expect(second.git(['status', '--porcelain'])).toBe('');
  });
});
