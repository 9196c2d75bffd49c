import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seededIds } from '../../lib/vault/ids';
import { openVault, type Vault } from '../../lib/vault/vault';
import { DEFAULT_START, makeTempVault, type TempVault } from '../support/temp-vault';

// @parcel/watcher on Linux watches a folder created or moved in, but not the folders already inside
// it (parcel-bundler/watcher#97), and after a folder is renamed it reports its subfolders' events
// under their old paths. Later edits there must still reach the listing and the search index.

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(async () => {
  for (const vault of opened.splice(0)) await vault.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

async function open(tv: TempVault): Promise<Vault> {
  const vault = await openVault({ root: tv.root, env: tv.env, clock: () => new Date(DEFAULT_START), ids: seededIds(7), watch: true });
  opened.push(vault);
  return vault;
}

async function paths(vault: Vault, query: string): Promise<string[]> {
  return (await vault.search(query)).map((hit) => hit.path);
}

async function until(check: () => Promise<boolean>, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the file watcher keeps following folders that came with subfolders', () => {
  it('sees later edits in the subfolders of a folder created at once, and of a folder renamed', async () => {
    const tv = makeTempVault({ 'notes/deep/beta.md': '# Beta\n\nA note about lanterns.\n', 'other.md': 'Other.\n' });
    vaults.push(tv);
    const vault = await open(tv);
    await paths(vault, 'lanterns');

    // mkdir -p and a note at once: the innermost folder exists before the watch on the outermost.
    fs.mkdirSync(path.join(tv.root, 'journal/2026/11'), { recursive: true });
    tv.write('journal/2026/11/walk.md', '# Walk\n\nSaw a dipper on the stones.\n');
    await until(async () => (await paths(vault, 'dipper')).join() === 'journal/2026/11/walk.md', 'the note in the new folder is found');
    await new Promise((resolve) => setTimeout(resolve, 300));
    tv.write('journal/2026/11/later.md', '# Later\n\nA kingfisher on the branch.\n');
    await until(async () => (await paths(vault, 'kingfisher')).join() === 'journal/2026/11/later.md', 'a note added later in the nested folder is found');

    fs.renameSync(path.join(tv.root, 'notes'), path.join(tv.root, 'archive'));
    await until(async () => (await paths(vault, 'lanterns')).join() === 'archive/deep/beta.md', 'the renamed folder is followed');
    await new Promise((resolve) => setTimeout(resolve, 300));
    tv.write('archive/deep/beta.md', '# Beta\n\nA note about otters now.\n');
    await until(async () => (await paths(vault, 'otters')).join() === 'archive/deep/beta.md', 'an edit in the renamed folder’s subfolder is found');
  });

  it('follows a link pointed at another note: an edit of its new target reaches the link', async () => {
    const tv = makeTempVault({ 'a.md': '# A\n\nAbout herons.\n', 'b.md': '# B\n\nAbout lanterns.\n' });
    vaults.push(tv);
    fs.symlinkSync('a.md', path.join(tv.root, 'l.md'));
    const vault = await open(tv);
    expect(await paths(vault, 'herons')).toEqual(['a.md', 'l.md']);

    fs.rmSync(path.join(tv.root, 'l.md'));
    fs.symlinkSync('b.md', path.join(tv.root, 'l.md'));
    await until(async () => (await paths(vault, 'lanterns')).join() === 'b.md,l.md', 'the link reads its new target');
    await new Promise((resolve) => setTimeout(resolve, 100));
    tv.write('b.md', '# B\n\nAbout otters, at length.\n');
    await until(async () => (await paths(vault, 'otters')).join() === 'b.md,l.md', 'an edit of the new target reaches the link');
  });
});
