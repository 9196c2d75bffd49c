import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openVault, type IndexWorkers } from '../../lib/vault/index';
import { MIN_FILES_FOR_WORKERS } from '../../lib/vault/search/index-pool';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const SEARCH = path.resolve('lib/vault/search');

/** Enough notes for a sync to use its workers, of every kind the parser meets. */
function manyNotes(): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {
    'projects/atlas.md': '---\ntype: project\nname: Atlas\nstatus: active\n---\n# Atlas\n',
    'broken.md': '---\ntitle: [unclosed\n---\nBody with [[n1]] and #tag.\n',
    'binary.md': new Uint8Array([0, 1, 2, 3, 0, 255]),
    'pic.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
  };
  for (let i = 0; i < MIN_FILES_FOR_WORKERS + 50; i += 1) {
    files[`notes/f${i % 7}/n${i}.md`] =
      `---\ntitle: Note ${i}\naliases: [N${i}]\ntags: [t${i % 5}]\nproject: "[[projects/atlas]]"\ntype: decision\n---\n` +
      `# Heading ${i}\nLinks to [[n${(i + 1) % 60}]], [[N${i}|self]], ![[pic.png]], [md](../f${(i + 3) % 7}/n${(i + 3) % 60}.md) and [[gone ${i}]].\n#inline${i}\n`;
  }
  return files;
}

/** Everything the index stores, by path (row ids left out: they depend on the order notes were written). */
function dump(root: string): unknown {
  const db = new Database(path.join(root, '.lucid', 'search.sqlite'), { readonly: true });
  try {
    return {
      notes: db.prepare('SELECT path, hash, mtime_ms, size, title, type, project, folder FROM notes ORDER BY path').all(),
      text: db
        .prepare('SELECT n.path, f.title, f.aliases, f.headings, f.tags, f.fields, f.body FROM notes_fts f JOIN notes n ON n.id = f.rowid ORDER BY n.path')
        .all(),
      links: db
        .prepare('SELECT n.path, l.line, l.kind, l.target, l.key1, l.key2, l.resolved FROM links l JOIN notes n ON n.id = l.source ORDER BY n.path, l.rowid')
        .all(),
      files: db.prepare('SELECT path FROM files ORDER BY path').all(),
    };
  } finally {
    db.close();
  }
}

async function build(temp: TempVault, indexWorkers: IndexWorkers | null): Promise<unknown> {
  const vault = await openVault({ root: temp.root, env: temp.env, indexWorkers });
  try {
    await vault.syncSearch();
  } finally {
    vault.close();
  }
  const contents = dump(temp.root);
  temp.git(['clean', '-fdxq', '--', '.lucid']);
  return contents;
}

describe('the index build in worker threads', () => {
  let temp: TempVault;
  afterEach(() => temp?.cleanup());

  it('gives the same index contents as the build in process', async () => {
    temp = makeTempVault(manyNotes());
    const inProcess = await build(temp, null);
    const onFallback = vi.fn();
    const inWorkers = await build(temp, { script: path.join(SEARCH, 'index-worker-tsx.cjs'), onFallback });
    expect(onFallback).not.toHaveBeenCalled();
    expect(inWorkers).toEqual(inProcess);
    expect((inProcess as { notes: unknown[] }).notes.length).toBe(MIN_FILES_FOR_WORKERS + 53);
    expect((inProcess as { links: unknown[] }).links.length).toBeGreaterThan(2000);
  }, 120_000);

  it('runs the TypeScript worker with --import tsx, or says once that it parsed in process, with the same contents', async () => {
    temp = makeTempVault(manyNotes());
    const inProcess = await build(temp, null);
    const onFallback = vi.fn();
    const tsWorker = await build(temp, { script: path.join(SEARCH, 'index-worker.ts'), execArgv: ['--import', 'tsx'], onFallback });
    // Node 20 does not apply --import hooks to a worker's own loader (then the build falls back); later Nodes do.
    expect(onFallback.mock.calls.length).toBeLessThanOrEqual(1);
    expect(tsWorker).toEqual(inProcess);
  }, 120_000);

  it('falls back to parsing in process when the worker script is missing, and says so once', async () => {
    temp = makeTempVault(manyNotes());
    const inProcess = await build(temp, null);
    const onFallback = vi.fn();
    const missing = await build(temp, { script: path.join(SEARCH, 'no-such-worker.js'), onFallback });
    expect(onFallback).toHaveBeenCalledTimes(1);
    expect(onFallback.mock.calls[0][0]).toMatch(/parsed in the main thread/);
    expect(missing).toEqual(inProcess);
  }, 120_000);
});

describe('the index build reading notes in bulk', () => {
  let temp: TempVault;
  afterEach(() => temp?.cleanup());

  it('reads through links only where they lead inside the vault, and never a file outside', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i += 1) files[`notes/n${i}.md`] = `Plain note ${i}.\n`;
    files['notes/target.md'] = 'The linked quokka lives here.\n';
    temp = makeTempVault(files);
    const outside = temp.tempDir('outside');
    fs.writeFileSync(path.join(outside, 'secret.md'), 'OUTSIDE CANARY wombat\n');
    fs.mkdirSync(path.join(outside, 'folder'));
    fs.writeFileSync(path.join(outside, 'folder', 'inner.md'), 'OUTSIDE CANARY wombat in a folder\n');
    fs.symlinkSync(path.join(temp.root, 'notes', 'target.md'), path.join(temp.root, 'inside-link.md'));
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(temp.root, 'outside-link.md'));
    fs.symlinkSync(path.join(outside, 'folder'), path.join(temp.root, 'linked-folder'));
    const vault = await openVault({ root: temp.root, env: temp.env });
    try {
      const synced = await vault.syncSearch();
      expect(synced.added).toBe(62);
      expect((await vault.search('quokka')).map((h) => h.path).sort()).toEqual(['inside-link.md', 'notes/target.md']);
      expect(await vault.search('wombat')).toEqual([]);
    } finally {
      vault.close();
    }
  });
});
