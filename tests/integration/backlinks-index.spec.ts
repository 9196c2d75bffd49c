import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initVault, openVault, type Vault } from '../../lib/vault/index';
import { NoteReader } from '../../lib/vault/read/reader';
import { nodeFs } from '../../lib/vault/fs';
import { copyFixture, FIXTURE_VAULTS, haveFixtures, testGitEnv } from '../support/fixtures';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/**
 * vault.backlinks answers from the search index's links table; the in-memory link graph
 * (NoteReader.backlinks, which parses every note) is the reference it must equal for every note,
 * after files come, go and are renamed.
 */
async function expectSameBacklinks(vault: Vault): Promise<number> {
  const graph = await new NoteReader(vault.root, vault.layout, nodeFs).linkGraph();
  const notes = (await vault.listFiles()).map((f) => f.path).filter((p) => p.toLowerCase().endsWith('.md'));
  let linked = 0;
  for (const note of notes) {
    const expected = graph.backlinks.get(note) ?? [];
    expect(await vault.backlinks(note), note).toEqual(expected);
    if (expected.length > 0) linked += 1;
  }
  return linked;
}

describe('backlinks from the index equal the link graph', () => {
  let temp: TempVault;
  let vault: Vault;
  afterEach(() => {
    vault?.close();
    temp?.cleanup();
  });

  it('on a vault with every kind of link, then as files come, go and are renamed', async () => {
    temp = makeTempVault({
      'alpha.md': '---\nproject: "[[projects/Atlas]]"\n---\n# Alpha\nSee [[Beta]] and [[beta|B]] and [[ALPHA#Top]] and [[#Top]].\n![[diagram.png]]\n',
      'notes/gamma.md': 'Links: [[zeta]], [up](../alpha.md), [[notes/gamma]], [[Missing One]].\n`[[not a link]]`\n',
      'notes/deep/epsilon.md': 'Same-folder rule: [[zeta]]. Path: [[notes/gamma]]. Embed ![[Beta]].\n',
      'far/away/zeta.md': 'The only zeta, for now.\n',
      'projects/atlas.md': '---\ntype: project\nname: Atlas\nstatus: active\n---\nAbout [[alpha]].\n',
      'changelog.md': '# Changelog\n\n- 2026-01-01 00:00 · human:x · update [[alpha]] · why ^e0000000000000\n',
      'delta.md': 'Delta links back to [[Alpha]] twice: [[alpha]].\n',
    });
    vault = await temp.open();
    expect(await expectSameBacklinks(vault)).toBeGreaterThan(2);
    expect(await vault.backlinks('alpha.md')).toEqual([
      { from: 'delta.md', line: 1 },
      { from: 'delta.md', line: 1 },
      { from: 'notes/gamma.md', line: 1 },
      { from: 'projects/atlas.md', line: 1 },
    ]);

    // A note named like an unresolved link makes it resolve; a closer namesake takes links over.
    temp.write('Beta.md', 'Beta.\n');
    temp.write('Missing One.md', 'Now it exists.\n');
    temp.write('notes/deep/zeta.md', 'A closer zeta.\n');
    temp.write('diagram.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47]));
    expect(await vault.backlinks('Beta.md')).toEqual([
      { from: 'alpha.md', line: 2 },
      { from: 'alpha.md', line: 2 },
      { from: 'notes/deep/epsilon.md', line: 1 },
    ]);
    expect((await vault.backlinks('notes/deep/zeta.md')).map((b) => b.from)).toEqual(['notes/deep/epsilon.md']);
    expect((await vault.backlinks('far/away/zeta.md')).map((b) => b.from)).toEqual(['notes/gamma.md']);
    await expectSameBacklinks(vault);

    // Removing a note breaks its links or sends them to the next namesake.
    fs.rmSync(path.join(temp.root, 'notes/deep/zeta.md'));
    fs.rmSync(path.join(temp.root, 'Missing One.md'));
    expect((await vault.backlinks('far/away/zeta.md')).map((b) => b.from)).toEqual(['notes/deep/epsilon.md', 'notes/gamma.md']);
    await expectSameBacklinks(vault);

    // A rename is a removal and an addition: links by the old name break, links by the new one resolve.
    fs.renameSync(path.join(temp.root, 'Beta.md'), path.join(temp.root, 'notes/Missing One.md'));
    expect(await vault.backlinks('notes/Missing One.md')).toEqual([{ from: 'notes/gamma.md', line: 1 }]);
    await expectSameBacklinks(vault);

    // A folder renamed takes its notes' paths with it; a note's own edit re-resolves its links.
    fs.renameSync(path.join(temp.root, 'notes'), path.join(temp.root, 'archive'));
    temp.write('delta.md', 'Now only [[projects/atlas]].\n');
    await expectSameBacklinks(vault);
    expect(await vault.backlinks('alpha.md')).toEqual([
      { from: 'archive/gamma.md', line: 1 },
      { from: 'projects/atlas.md', line: 1 },
    ]);
  });

  it('follows Lucid writes and leaves the changelog out', async () => {
    temp = makeTempVault({ 'a.md': 'A.\n', 'b.md': 'B.\n' });
    vault = await temp.open();
    expect(await vault.backlinks('a.md')).toEqual([]);
    await vault.edit({ actor: 'agent:test', op: 'update', path: 'b.md', reason: 'link a', changes: [{ path: 'b.md', content: 'B links [[a]].\n' }] });
    expect(await vault.backlinks('a.md')).toEqual([{ from: 'b.md', line: 1 }]);
    await expectSameBacklinks(vault);
  });

  it('rebuilds an index of the previous version with its links', async () => {
    temp = makeTempVault({ 'a.md': 'A.\n', 'b.md': '[[a]]\n' });
    vault = await temp.open();
    await vault.syncSearch();
    vault.close();
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(path.join(temp.root, '.lucid', 'search.sqlite'));
    db.prepare("UPDATE meta SET value = '2' WHERE key = 'schema_version'").run();
    db.exec('DELETE FROM links');
    db.close();
    vault = await temp.open();
    expect(await vault.backlinks('a.md')).toEqual([{ from: 'b.md', line: 1 }]);
  });
});

describe.skipIf(!haveFixtures)('backlinks from the index on the real vaults', () => {
  for (const name of FIXTURE_VAULTS) {
    it(`${name}: equal the link graph for every note`, async () => {
      const { root, cleanup } = copyFixture(name);
      const env = { ...testGitEnv(), LUCID_USER: 'tester' };
      try {
        await initVault({ dir: root, env, fallbackUser: 'tester' });
        // A clock that stands still: one change check, then every backlinks call is the lookup alone.
        const now = new Date();
        const vault = await openVault({ root, env, fallbackUser: 'tester', clock: () => now });
        try {
          expect(await expectSameBacklinks(vault)).toBeGreaterThan(0);
        } finally {
          vault.close();
        }
      } finally {
        cleanup();
      }
    }, 240_000);
  }
});
