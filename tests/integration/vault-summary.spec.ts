import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs, type VaultFs } from '../../lib/vault/fs';
import { initVault, summarizeVault, type Vault } from '../../lib/vault/index';
import { makeTempVault, type TempVault } from '../support/temp-vault';

// The overview's "vault now" figures: counted from each note's type, kept per file stamp (in
// memory and in .lucid/), so a summary reads only the notes added or changed since the last one.

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

const PROPOSAL =
  '---\ntype: inbox\nproposed_by: agent:alpha\naction: create\ntarget: notes/idea.md\nreason: an idea\ncreated: 2026-11-20T10:10:10Z\n---\nWhy.\n';

const FILES = {
  'people/ana.md': '---\ntype: person\nname: Ana\n---\n# Ana\n',
  'projects/atlas.md': '---\ntype: project\nname: Atlas\nstatus: active\n---\n',
  'decisions/db.md': '---\ntype: decision\ndate: 2026-11-02\nproject: "[[projects/atlas]]"\nstatus: accepted\n---\nPostgres.\n',
  'notes/plain.md': '# Plain\n\ntext\n',
  'notes/broken.md': '---\ntype: [unclosed\n---\nbody\n',
};

/** A vault whose note reads are recorded, by file name (the reader opens them through a folder descriptor). */
async function countedVault(tv: TempVault): Promise<{ vault: Vault; reads: () => string[] }> {
  const seen: string[] = [];
  const fs: VaultFs = {
    ...nodeFs,
    openRead: async (p) => {
      if (p.endsWith('.md')) seen.push(path.basename(p));
      return nodeFs.openRead(p);
    },
  };
  const vault = await tv.open({ fs });
  opened.push(vault);
  return { vault, reads: () => seen.splice(0) };
}

async function installed(): Promise<TempVault> {
  const tv = makeTempVault(FILES);
  vaults.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  return tv;
}

describe('summarizeVault', () => {
  it('counts notes by their type, the unparseable ones and the pending inbox items', async () => {
    const tv = await installed();
    const { vault } = await countedVault(tv);
    // In the layout's inbox (init may have named it otherwise) and outside it: only the first is pending.
    mkdirSync(path.join(tv.root, vault.layout.inbox), { recursive: true });
    writeFileSync(path.join(tv.root, vault.layout.inbox, '2026-11-20-101010-idea.md'), PROPOSAL);
    writeFileSync(path.join(tv.root, 'notes/copied-proposal.md'), PROPOSAL);
    const summary = await summarizeVault(vault);
    const mdFiles = tv
      .git(['ls-files', '--', '*.md'])
      .split('\n')
      .filter((p) => p !== '');
    expect(summary.notes).toBe(mdFiles.length + 2);
    expect(summary.notesByType).toMatchObject({ person: 1, project: 1, decision: 1, inbox: 2 });
    expect(summary.unparseable).toBe(1);
    expect(summary.pendingInbox).toBe(1);
    expect(summary.notesByType.other).toBe(mdFiles.length - 3);
  });

  it('reads a note again only when it changed, and follows notes added and removed', async () => {
    const tv = await installed();
    const { vault, reads } = await countedVault(tv);
    await summarizeVault(vault);
    expect(reads().length).toBeGreaterThanOrEqual(Object.keys(FILES).length);

    const before = await summarizeVault(vault);
    expect(reads()).toEqual([]);

    writeFileSync(path.join(tv.root, 'notes/plain.md'), '---\ntype: person\nname: Plain\n---\nnow a person\n');
    writeFileSync(path.join(tv.root, 'people/bo.md'), '---\ntype: person\nname: Bo\n---\n');
    rmSync(path.join(tv.root, 'decisions/db.md'));
    const after = await summarizeVault(vault);
    expect(reads().sort()).toEqual(['bo.md', 'plain.md']);
    expect(after.notes).toBe(before.notes);
    expect(after.notesByType.person).toBe(3);
    expect(after.notesByType.decision).toBe(0);
    expect(after.notesByType.other).toBe(before.notesByType.other - 1);
  });

  it('starts from what an earlier process stored in .lucid/, and ignores a damaged store', async () => {
    const tv = await installed();
    const first = await countedVault(tv);
    const expected = await summarizeVault(first.vault);
    const stored = path.join(tv.root, '.lucid', 'note-kinds.json');
    expect(JSON.parse(readFileSync(stored, 'utf8')).kinds.length).toBe(expected.notes);
    expect(tv.git(['status', '--porcelain'])).toBe('');

    const second = await countedVault(tv);
    expect(await summarizeVault(second.vault)).toEqual(expected);
    expect(second.reads()).toEqual([]);

    writeFileSync(stored, '{"version":1,"kinds":[["notes/plain.md",1,');
    const third = await countedVault(tv);
    expect(await summarizeVault(third.vault)).toEqual(expected);
    expect(third.reads().length).toBeGreaterThanOrEqual(Object.keys(FILES).length);
  });
});
