import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { seededIds } from '../../lib/vault/ids';
import { openVault, type OpenVaultOptions, type Vault } from '../../lib/vault/vault';
import type { SubscribeFn, WatchEvent } from '../../lib/vault/watch/watcher';
import { DEFAULT_START, makeTempVault, steppingClock, type TempVault } from '../support/temp-vault';

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(async () => {
  for (const vault of opened.splice(0)) await vault.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

const FILES = {
  'notes/alpha.md': '# Alpha\n\nThe heron nests by the river.\n',
  'notes/deep/beta.md': '# Beta\n\nA note about lanterns.\n',
  'projects/atlas.md': '---\ntype: project\nname: Atlas\nstatus: active\n---\n\n# Atlas\n',
};

function tempVault(files: Record<string, string> = FILES): TempVault {
  const tv = makeTempVault(files);
  vaults.push(tv);
  return tv;
}

/**
 * Opens with a clock frozen at one instant: without the watcher a search would then never compare
 * stamps again after its first (the 1-second rule), so only the watcher can bring a change in.
 */
async function open(tv: TempVault, options: Partial<OpenVaultOptions> = {}): Promise<Vault> {
  const vault = await openVault({ root: tv.root, env: tv.env, clock: () => new Date(DEFAULT_START), ids: seededIds(7), watch: true, ...options });
  opened.push(vault);
  return vault;
}

async function paths(vault: Vault, query: string): Promise<string[]> {
  return (await vault.search(query)).map((hit) => hit.path);
}

/** Lucid's own write of notes/alpha.md: the heron becomes a grebe. */
function editAlphaThroughLucid(vault: Vault): Promise<unknown> {
  return vault.edit({
    actor: vault.person,
    op: 'update',
    path: 'notes/alpha.md',
    reason: 'birds',
    changes: [{ path: 'notes/alpha.md', content: '# Alpha\n\nA grebe dives by the river.\n' }],
  });
}

/** A watcher whose events the test delivers by hand, as they come when the machine is busy. */
function drivenWatcher(): {
  subscribe: () => Promise<SubscribeFn>;
  emit: (error: Error | null, events: WatchEvent[]) => void;
  unsubscribed: () => number;
} {
  let listener: ((error: Error | null, events: WatchEvent[]) => unknown) | null = null;
  let unsubscribed = 0;
  const driven: SubscribeFn = async (_dir, callback) => {
    listener = callback;
    return { unsubscribe: async () => void unsubscribed++ };
  };
  return {
    subscribe: async () => driven,
    emit: (error, events) => {
      if (!listener) throw new Error('the vault has not subscribed to the watcher yet');
      listener(error, events);
    },
    unsubscribed: () => unsubscribed,
  };
}

// Captured before any test fakes the timers, so a wait below is always a real one.
const realSetTimeout = globalThis.setTimeout;

/**
 * Polls `check` until it holds, with no total of its own (the test's timeout is the only limit): the
 * listing applies a watcher's event on its own queue, which tells no one when it is done, so a
 * search is the only way to see it. The waits for the watcher's events themselves are events
 * ({@link observedParcel}).
 */
async function until(check: () => Promise<boolean>, _what: string): Promise<void> {
  while (!(await check())) await new Promise((resolve) => realSetTimeout(resolve, 25));
}

/**
 * The real @parcel/watcher, observed: each subscription the vault makes is numbered, and each batch of
 * events it delivers is recorded with its subscription's number (vault-relative paths) before the
 * vault gets it. `subscribed(n)` and `delivered(match)` resolve on those events.
 */
function observedParcel(root: string) {
  const batches: { subscription: number; paths: string[]; events: string[] }[] = [];
  let subscriptions = 0;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  const waitFor = async (holds: () => boolean) => {
    while (!holds()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const subscribe = async (): Promise<SubscribeFn> => {
    const real = (await import('@parcel/watcher')).subscribe as SubscribeFn;
    return async (dir, callback, options) => {
      const n = subscriptions + 1;
      const subscription = await real(
        dir,
        (error, events) => {
          const rels = events.map((e) => path.relative(root, e.path).split(path.sep).join('/'));
          batches.push({ subscription: n, paths: rels, events: events.map((e, i) => `${e.type} ${rels[i]}`) });
          wake();
          return callback(error, events);
        },
        options,
      );
      subscriptions = n;
      wake();
      return subscription;
    };
  };
  return {
    subscribe,
    batches,
    /** Resolves once the vault has made its `n`th subscription. */
    subscribed: (n: number) => waitFor(() => subscriptions >= n),
    /** Resolves with the first batch from `from` on that names `rel` (with an event of one of `types`, given them). */
    delivered: async (rel: string, from = 0, types?: WatchEvent['type'][]) => {
      const names = (b: (typeof batches)[number]) => (types ? types.some((type) => b.events.includes(`${type} ${rel}`)) : b.paths.includes(rel));
      await waitFor(() => batches.slice(from).some(names));
      return batches.slice(from).find(names) as (typeof batches)[number];
    },
  };
}

describe('the file watcher keeps the listing and the search index up to date', () => {
  it('reports watching, and lists what a walk lists (dot-folders, node_modules and temp files left out)', async () => {
    const tv = tempVault({
      ...FILES,
      '.obsidian/workspace.md': 'x',
      'node_modules/pkg/readme.md': 'x',
      'notes/.lucid-tmp-abcdefghij': 'x',
      'img/logo.png': 'png',
    });
    fs.symlinkSync(path.join(tv.root, 'notes/alpha.md'), path.join(tv.root, 'notes/alias.md'));
    const outside = tv.tempDir('outside');
    fs.writeFileSync(path.join(outside, 'secret.md'), 'outside');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(tv.root, 'notes/leak.md'));
    const walked = await openVault({ root: tv.root, env: tv.env });
    opened.push(walked);
    const vault = await open(tv);
    expect(vault.watchState()).toEqual({ mode: 'watching' });
    expect(walked.watchState()).toEqual({ mode: 'off' });
    const listed = (await vault.listFiles()).map((f) => f.path);
    expect(listed).toEqual((await walked.listFiles()).map((f) => f.path));
    expect(listed).toEqual(['img/logo.png', 'notes/alias.md', 'notes/alpha.md', 'notes/deep/beta.md', 'projects/atlas.md']);
  });

  it('sees a note a person adds, edits and removes in another program', async () => {
    const tv = tempVault();
    const vault = await open(tv);
    expect(await paths(vault, 'heron')).toEqual(['notes/alpha.md']);

    tv.write('notes/gamma.md', '# Gamma\n\nOtters play in the weir.\n');
    await until(async () => (await paths(vault, 'otters')).includes('notes/gamma.md'), 'the new note is found');

    tv.write('notes/alpha.md', '# Alpha\n\nThe kingfisher nests by the river.\n');
    await until(async () => (await paths(vault, 'kingfisher')).includes('notes/alpha.md'), 'the edit is found');
    expect(await paths(vault, 'heron')).toEqual([]);

    fs.rmSync(path.join(tv.root, 'notes/gamma.md'));
    await until(async () => (await paths(vault, 'otters')).length === 0, 'the removed note is gone');
    expect((await vault.listFiles()).map((f) => f.path)).not.toContain('notes/gamma.md');
  });

  it('follows a file renamed, and a folder renamed, created with notes in it, and removed', async () => {
    const tv = tempVault();
    const vault = await open(tv);
    await paths(vault, 'lanterns');

    fs.renameSync(path.join(tv.root, 'notes/alpha.md'), path.join(tv.root, 'notes/heron.md'));
    await until(async () => (await paths(vault, 'heron')).join() === 'notes/heron.md', 'the renamed file is found under its new name');

    fs.renameSync(path.join(tv.root, 'notes'), path.join(tv.root, 'archive'));
    await until(async () => (await paths(vault, 'lanterns')).join() === 'archive/deep/beta.md', 'the renamed folder is followed');
    const listed = (await vault.listFiles()).map((f) => f.path);
    expect(listed.filter((p) => p.startsWith('notes/'))).toEqual([]);
    expect(listed).toContain('archive/heron.md');

    // Created with its notes at once (mkdir -p, then writes before the watch on the new folder exists).
    tv.write('journal/2026/11/walk.md', '# Walk\n\nSaw a dipper on the stones.\n');
    await until(async () => (await paths(vault, 'dipper')).join() === 'journal/2026/11/walk.md', 'the note in a new folder is found');

    fs.rmSync(path.join(tv.root, 'archive'), { recursive: true });
    await until(async () => (await paths(vault, 'lanterns')).length === 0, 'the removed folder is gone');
    // Its other files' events may come in a later batch than beta.md's: wait for them too.
    await until(async () => (await vault.listFiles()).every((f) => !f.path.startsWith('archive/')), 'every file of the removed folder is gone');
  });

  it("answers a search with Lucid's own write at once, and its later event reads nothing again", async () => {
    const tv = tempVault();
    let reads = 0;
    const { nodeFs } = await import('../../lib/vault/fs');
    const counting = {
      ...nodeFs,
      readFd: (fd: number) => {
        reads++;
        return nodeFs.readFd(fd);
      },
    };
    // The events are delivered by hand, after the search.
    const watcher = drivenWatcher();
    const vault = await open(tv, { fs: counting, watcher: { subscribe: watcher.subscribe } });
    await paths(vault, 'heron');
    await editAlphaThroughLucid(vault);
    expect(await paths(vault, 'grebe')).toEqual(['notes/alpha.md']);
    const after = reads;
    // What @parcel/watcher reports for the temp file renamed over the note and the changelog line.
    const events: WatchEvent[] = ['changelog.md', 'notes/alpha.md'].map((rel) => ({ type: 'create', path: path.join(tv.root, rel) }));
    watcher.emit(null, events);
    // The stamps are known already: nothing is left to compare, the index is not even asked.
    expect(await vault.syncSearch()).toEqual({ added: 0, updated: 0, removed: 0, unchanged: 0 });
    expect(await paths(vault, 'grebe')).toEqual(['notes/alpha.md']);
    expect(reads).toBe(after);
  });

  it('tells onListingChange the paths of each batch once the listing has them, and nothing after the unsubscribe', async () => {
    const tv = tempVault();
    const watcher = drivenWatcher();
    const vault = await open(tv, { watcher: { subscribe: watcher.subscribe } });
    const told: string[][] = [];
    const stop = vault.onListingChange((changed) => told.push(changed));
    fs.writeFileSync(path.join(tv.root, 'notes/gamma.md'), '# Gamma\n\nA kingfisher.\n');
    fs.rmSync(path.join(tv.root, 'notes/deep/beta.md'));
    watcher.emit(null, [
      { type: 'create', path: path.join(tv.root, 'notes/gamma.md') },
      { type: 'delete', path: path.join(tv.root, 'notes/deep/beta.md') },
    ]);
    await until(async () => told.length > 0, 'the listener is told');
    expect(told).toEqual([['notes/deep/beta.md', 'notes/gamma.md']]);
    expect(await paths(vault, 'kingfisher')).toEqual(['notes/gamma.md']);
    // An event that changes nothing in the listing tells nobody.
    watcher.emit(null, [{ type: 'update', path: path.join(tv.root, 'notes/gamma.md') }]);
    stop();
    fs.writeFileSync(path.join(tv.root, 'notes/delta.md'), '# Delta\n');
    watcher.emit(null, [{ type: 'create', path: path.join(tv.root, 'notes/delta.md') }]);
    await until(async () => (await vault.search('delta')).length > 0, 'the listing has delta');
    expect(told).toHaveLength(1);
  });

  it("sees Lucid's own write at once with the real watcher", async () => {
    const tv = tempVault();
    const vault = await open(tv);
    await paths(vault, 'heron');
    await editAlphaThroughLucid(vault);
    expect(await paths(vault, 'grebe')).toEqual(['notes/alpha.md']);
    expect(await paths(vault, 'heron')).toEqual([]);
  });

  it('falls back to checking every stamp, and says so once, when the watcher cannot start', async () => {
    const tv = tempVault();
    const warnings: string[] = [];
    const failing: SubscribeFn = () => Promise.reject(Object.assign(new Error('inotify_add_watch failed: No space left on device'), { code: 'ENOSPC' }));
    const vault = await openVault({
      root: tv.root,
      env: tv.env,
      clock: steppingClock(DEFAULT_START, 1500),
      watch: true,
      watcher: { subscribe: async () => failing },
      onWarning: (message) => warnings.push(message),
    });
    opened.push(vault);
    expect(vault.watchState().mode).toBe('polling');
    expect(vault.watchState().reason).toMatch(/No space left on device/);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Not watching .* No space left on device.*every file's stamp/);
    expect(await paths(vault, 'heron')).toEqual(['notes/alpha.md']);
    tv.write('notes/alpha.md', '# Alpha\n\nA wagtail by the river.\n');
    // Today's behaviour: the next search more than a second later compares every stamp.
    expect(await paths(vault, 'wagtail')).toEqual(['notes/alpha.md']);
    expect(warnings).toHaveLength(1);
  });

  it('falls back when the native module does not load, and when the running watcher reports an error', async () => {
    const tv = tempVault();
    const warnings: string[] = [];
    const unloadable = await openVault({
      root: tv.root,
      env: tv.env,
      watch: true,
      watcher: { subscribe: () => Promise.reject(new Error('No prebuild or local build of @parcel/watcher found')) },
      onWarning: (message) => warnings.push(message),
    });
    opened.push(unloadable);
    expect(unloadable.watchState()).toEqual({ mode: 'polling', reason: expect.stringMatching(/could not be loaded.*No prebuild/) });

    const watcher = drivenWatcher();
    const vault = await openVault({
      root: tv.root,
      env: tv.env,
      clock: steppingClock(DEFAULT_START, 1500),
      watch: true,
      watcher: { subscribe: watcher.subscribe },
      onWarning: (message) => warnings.push(message),
    });
    opened.push(vault);
    expect(vault.watchState()).toEqual({ mode: 'watching' });
    expect(await paths(vault, 'heron')).toEqual(['notes/alpha.md']);
    tv.write('notes/alpha.md', '# Alpha\n\nA curlew by the river.\n');
    // No event came: the watcher's listing does not know the edit yet.
    expect(await paths(vault, 'curlew')).toEqual([]);
    watcher.emit(new Error('Event queue overflowed'), []);
    expect(vault.watchState()).toEqual({ mode: 'polling', reason: expect.stringMatching(/reported an error.*overflowed/) });
    expect(watcher.unsubscribed()).toBe(1);
    expect(await paths(vault, 'curlew')).toEqual(['notes/alpha.md']);
    expect(warnings).toHaveLength(2);
  });

  it('skips the network file systems where events from elsewhere never come', async () => {
    const tv = tempVault();
    const vault = await open(tv, { watcher: { unwatchable: async () => 'the vault is on a network file system (NFS)' } });
    expect(vault.watchState()).toEqual({ mode: 'polling', reason: 'the vault is on a network file system (NFS)' });
  });

  it('applies events that arrive during the first walk', async () => {
    const tv = tempVault();
    const watcher = drivenWatcher();
    const { nodeFs } = await import('../../lib/vault/fs');
    const notesDir = path.join(tv.root, 'notes');
    let walked = false;
    const racing = {
      ...nodeFs,
      readdirSync: (dir: string) => {
        const entries = nodeFs.readdirSync(dir);
        // A person saves a note in a folder the first walk has just read: only its event brings it in.
        if (dir === notesDir && !walked) {
          walked = true;
          tv.write('notes/late.md', '# Late\n\nA swift over the roofs.\n');
          watcher.emit(null, [{ type: 'create', path: path.join(notesDir, 'late.md') }]);
        }
        return entries;
      },
    };
    const vault = await open(tv, { fs: racing, watcher: { subscribe: watcher.subscribe } });
    expect(walked).toBe(true);
    expect(await paths(vault, 'swift')).toEqual(['notes/late.md']);
    fs.rmSync(path.join(notesDir, 'late.md'));
    watcher.emit(null, [{ type: 'delete', path: path.join(notesDir, 'late.md') }]);
    expect(await paths(vault, 'swift')).toEqual([]);
  });
});

describe('closing', () => {
  it('close() stops the watcher and leaves no handle open', async () => {
    const tv = tempVault();
    const script = `
      import { openVault } from ${JSON.stringify(path.resolve('lib/vault/vault.ts'))};
      const vault = await openVault({ root: ${JSON.stringify(tv.root)}, env: process.env, watch: true });
      if (vault.watchState().mode !== 'watching') throw new Error('not watching: ' + JSON.stringify(vault.watchState()));
      await vault.search('heron');
      await vault.close();
      console.log('closed');
    `;
    const { execFileSync } = await import('node:child_process');
    // The process ends by itself within the timeout only when nothing is left holding the event loop.
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      env: tv.env as NodeJS.ProcessEnv,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(out.trim()).toBe('closed');
  });
});

// @parcel/watcher on Linux watches a folder created or moved in, but not the folders already inside
// it (parcel-bundler/watcher#97), and after a folder is renamed it reports its subfolders' events
// under their old paths. Later edits there must still reach the listing and the search index.
describe('the file watcher keeps following folders that came with subfolders', () => {
  it('sees later edits in the subfolders of a folder created at once, and of a folder renamed', async () => {
    const tv = tempVault({ 'notes/deep/beta.md': '# Beta\n\nA note about lanterns.\n', 'other.md': 'Other.\n' });
    const parcel = observedParcel(tv.root);
    const vault = await open(tv, { watcher: { subscribe: parcel.subscribe } });
    await paths(vault, 'lanterns');
    await parcel.subscribed(1);

    // mkdir -p and a note at once: the innermost folder exists before the watch on the outermost.
    fs.mkdirSync(path.join(tv.root, 'journal/2026/11'), { recursive: true });
    tv.write('journal/2026/11/walk.md', '# Walk\n\nSaw a dipper on the stones.\n');
    await until(async () => (await paths(vault, 'dipper')).join() === 'journal/2026/11/walk.md', 'the note in the new folder is found');
    // The vault subscribed anew, so the nested folder is watched: a later note there comes as an event
    // of that new subscription (not from the walk that follows it).
    await parcel.subscribed(2);
    let from = parcel.batches.length;
    tv.write('journal/2026/11/later.md', '# Later\n\nA kingfisher on the branch.\n');
    expect((await parcel.delivered('journal/2026/11/later.md', from)).subscription).toBeGreaterThanOrEqual(2);
    await until(async () => (await paths(vault, 'kingfisher')).join() === 'journal/2026/11/later.md', 'a note added later in the nested folder is found');

    const before = parcel.batches.map((b) => b.subscription).at(-1) ?? 0;
    fs.renameSync(path.join(tv.root, 'notes'), path.join(tv.root, 'archive'));
    await until(async () => (await paths(vault, 'lanterns')).join() === 'archive/deep/beta.md', 'the renamed folder is followed');
    await parcel.subscribed(before + 1);
    from = parcel.batches.length;
    tv.write('archive/deep/beta.md', '# Beta\n\nA note about otters now.\n');
    expect((await parcel.delivered('archive/deep/beta.md', from)).subscription).toBeGreaterThan(before);
    await until(async () => (await paths(vault, 'otters')).join() === 'archive/deep/beta.md', 'an edit in the renamed folder’s subfolder is found');
  });

  it('follows a link pointed at another note: an edit of its new target reaches the link', async () => {
    const tv = tempVault({ 'a.md': '# A\n\nAbout herons.\n', 'b.md': '# B\n\nAbout lanterns.\n' });
    fs.symlinkSync('a.md', path.join(tv.root, 'l.md'));
    const parcel = observedParcel(tv.root);
    const vault = await open(tv, { watcher: { subscribe: parcel.subscribe } });
    expect(await paths(vault, 'herons')).toEqual(['a.md', 'l.md']);

    const relinked = parcel.batches.length;
    fs.rmSync(path.join(tv.root, 'l.md'));
    fs.symlinkSync('b.md', path.join(tv.root, 'l.md'));
    await until(async () => (await paths(vault, 'lanterns')).join() === 'b.md,l.md', 'the link reads its new target');
    // The link's own create event has come (a search may see the new link from its delete event
    // already; a watcher that merged the two within one batch reports an update).
    await parcel.delivered('l.md', relinked, ['create', 'update']);
    // The edit of the target comes in a batch of its own, which names b.md only: the link is
    // refreshed because the vault follows it, not because its own event came along.
    const from = parcel.batches.length;
    tv.write('b.md', '# B\n\nAbout otters, at length.\n');
    expect((await parcel.delivered('b.md', from)).paths).not.toContain('l.md');
    await until(async () => (await paths(vault, 'otters')).join() === 'b.md,l.md', 'an edit of the new target reaches the link');
  });
});

describe('a burst of events that may have overflowed inotify', () => {
  it('walks the vault once the burst is quiet, and finds what no event named', async () => {
    const tv = tempVault();
    const watcher = drivenWatcher();
    const vault = await open(tv, { watcher: { subscribe: watcher.subscribe } });
    expect(await paths(vault, 'kestrel')).toEqual([]);
    // A checkout wrote this note, and its event was among those the kernel's queue dropped.
    tv.write('notes/lost.md', '# Lost\n\nA kestrel hovers over the field.\n');
    const send = watcher.emit;
    const burst = (from: number, count: number) =>
      Array.from({ length: count }, (_, i): WatchEvent => ({ type: 'delete', path: path.join(tv.root, 'gone', `n${from + i}.md`) }));
    // The burst's quiet time runs on a clock the test moves: past it, a small batch is taken at its
    // word (no walk: the unnamed note stays unseen), a big one ends in a walk.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      send(null, burst(0, 100));
      vi.advanceTimersByTime(10_000);
      expect(await paths(vault, 'kestrel')).toEqual([]);
      for (let i = 0; i < 5; i++) send(null, burst(1000 * (i + 1), 1000));
      vi.advanceTimersByTime(10_000);
    } finally {
      vi.useRealTimers();
    }
    await until(async () => (await paths(vault, 'kestrel')).join() === 'notes/lost.md', 'the walk after the burst finds the note no event named');
  });
});
