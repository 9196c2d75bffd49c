import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { spawnGit, type GitRunner } from '../../lib/vault/git/runner';
import { commitUncommitted, countUncommitted, listUncommitted, openVault } from '../../lib/vault/index';
import { addedChangelogLines, freeze, pathsOf, trailersOf, vaultRejection, vaultsPerTest } from '../support/revert-vault';
import { TEST_EMAIL, TEST_PERSON } from '../support/temp-vault';

/** A person's uncommitted work: listed with its diff, committed as theirs in one commit, never discarded. */

const GHP = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;

const { setUp, keep } = vaultsPerTest({ 'notes/a.md': 'alpha\n', 'notes/b.md': 'beta\n', 'notes/c.md': 'gamma\n', 'notes/d.md': 'delta\n' });

describe('uncommitted work', () => {
  it('lists modified, added, deleted and renamed notes with their diff; leaves out other files; changes nothing', async () => {
    const { tv, vault } = await setUp();
    tv.write('notes/a.md', 'alpha, edited in Obsidian\n');
    tv.write('notes/new.md', 'a new note\nsecond line');
    tv.git(['rm', '-q', '--cached', 'notes/c.md']);
    tv.git(['mv', 'notes/d.md', 'notes/d-moved.md']);
    fs.rmSync(`${tv.root}/notes/c.md`);
    tv.write('.obsidian/workspace.json', '{}\n');
    tv.write('notes/picture.png', 'not a note');
    const before = freeze(tv);
    const files = await listUncommitted(vault);
    expect(files.map((f) => [f.path, f.status])).toEqual([
      ['notes/a.md', 'modified'],
      ['notes/c.md', 'deleted'],
      ['notes/d-moved.md', 'renamed'],
      ['notes/new.md', 'added'],
    ]);
    const diff = Object.fromEntries(files.map((f) => [f.path, f.diff]));
    expect(diff['notes/a.md']).toContain('-alpha\n+alpha, edited in Obsidian');
    expect(diff['notes/c.md']).toContain('-gamma');
    expect(diff['notes/d-moved.md']).toContain('rename to notes/d-moved.md');
    expect(diff['notes/new.md']).toContain('+++ b/notes/new.md\n@@ -0,0 +1,2 @@\n+a new note\n+second line\n\\ No newline at end of file');
    expect(freeze(tv)).toEqual(before);
  });

  it('counts what it would list from one git status, without a diff, and changes nothing', async () => {
    const { tv } = await setUp();
    tv.write('notes/a.md', 'alpha, edited in Obsidian\n');
    tv.write('notes/new.md', 'a new note\n');
    tv.git(['mv', 'notes/d.md', 'notes/d-moved.md']);
    fs.rmSync(`${tv.root}/notes/c.md`);
    tv.write('.obsidian/workspace.json', '{}\n');
    tv.write('notes/picture.png', 'not a note');
    const processes: string[][] = [];
    const git: GitRunner = async (invocation) => {
      processes.push([...invocation.args]);
      return spawnGit(invocation);
    };
    const counted = await openVault({ root: tv.root, env: tv.env, git });
    keep(counted);
    const before = freeze(tv);
    processes.length = 0;
    expect(await countUncommitted(counted)).toBe(4);
    expect(processes.map((args) => args[0])).toEqual(['status']);
    expect(await countUncommitted(counted)).toBe((await listUncommitted(counted)).length);
    expect(freeze(tv)).toEqual(before);
    fs.writeFileSync(`${tv.root}/notes/c.md`, 'gamma\n');
    tv.git(['mv', 'notes/d-moved.md', 'notes/d.md']);
    tv.git(['checkout', '--', 'notes/a.md']);
    fs.rmSync(`${tv.root}/notes/new.md`);
    expect(await countUncommitted(counted)).toBe(0);
  });

  it('masks secrets in the diff', async () => {
    const { tv, vault } = await setUp();
    tv.write('notes/a.md', `alpha\ntoken ${GHP}\n`);
    const [file] = await listUncommitted(vault);
    expect(file.diff).not.toContain(GHP);
    expect(file.diff).toContain('ghp_');
  });

  it('commits the chosen files exactly as they are on disk, as the person, in one commit with one changelog line', async () => {
    const { tv, vault } = await setUp();
    tv.write('notes/a.md', 'alpha, edited\n');
    tv.write('notes/new.md', 'new\n');
    fs.rmSync(`${tv.root}/notes/c.md`);
    tv.write('notes/b.md', 'beta, edited but not chosen\n');
    const count = tv.commitCount();
    const result = await commitUncommitted(vault, { paths: ['notes/a.md', 'notes/new.md', 'notes/c.md'], reason: 'my morning edits' });
    expect(result).not.toBeNull();
    expect(tv.commitCount()).toBe(count + 1);
    expect(tv.head()).toBe(result?.commit);
    expect(pathsOf(tv, tv.head())).toEqual(['changelog.md', 'notes/a.md', 'notes/c.md', 'notes/new.md']);
    expect(trailersOf(tv, tv.head())).toMatchObject({ 'Lucid-Actor': `human:${TEST_PERSON}`, 'Lucid-Op': 'update', 'Lucid-Edit': result?.editId });
    expect(tv.git(['log', '-1', '--format=%an <%ae>']).trim()).toBe(`${TEST_PERSON} <${TEST_EMAIL}>`);
    const lines = addedChangelogLines(tv);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`human:${TEST_PERSON} · update [[notes/a]] · my morning edits`);
    expect(tv.read('notes/a.md')).toBe('alpha, edited\n');
    expect(tv.read('notes/new.md')).toBe('new\n');
    expect(tv.exists('notes/c.md')).toBe(false);
    expect(tv.read('notes/b.md')).toBe('beta, edited but not chosen\n');
    expect(freeze(tv).status).toBe(' M notes/b.md\n');
  });

  it('refuses paths that are not uncommitted notes, committing nothing and keeping every byte', async () => {
    const { tv, vault } = await setUp();
    tv.write('notes/a.md', 'alpha, edited\n');
    const before = freeze(tv);
    for (const paths of [['notes/a.md', 'notes/b.md'], ['notes/missing.md'], ['changelog.md'], ['.obsidian/app.json'], ['../outside.md']]) {
      const error = await vaultRejection(commitUncommitted(vault, { paths }));
      expect(['invalid_input', 'invalid_path'], paths.join()).toContain(error.code);
      expect(freeze(tv)).toEqual(before);
    }
    expect(await commitUncommitted(vault, { paths: [] })).toBeNull();
    expect(tv.read('notes/a.md')).toBe('alpha, edited\n');
  });

  it('refuses to commit what looks like a secret, and keeps the file as it is', async () => {
    const { tv, vault } = await setUp();
    tv.write('notes/a.md', `alpha\ntoken ${GHP}\n`);
    const before = freeze(tv);
    const error = await vaultRejection(commitUncommitted(vault, { paths: ['notes/a.md'] }));
    expect(error.code).toBe('forbidden');
    expect(error.message).not.toContain(GHP);
    expect(freeze(tv)).toEqual(before);
  });

  it('commits exactly the bytes it checked: a save with a secret landing during the commit stays on disk, uncommitted', async () => {
    const { tv, vault } = await setUp();
    tv.write('notes/a.md', 'alpha, checked\n');
    const run = vault.repo.run;
    let saved = false;
    vault.repo.run = async (call) => {
      // Deterministic: the save lands after the secret check, as the commit's temporary index is built.
      if (!saved && call.args[0] === 'read-tree') {
        saved = true;
        tv.write('notes/a.md', `alpha\ntoken ${GHP}\n`);
      }
      return run(call);
    };
    await commitUncommitted(vault, { paths: ['notes/a.md'] });
    vault.repo.run = run;
    expect(saved).toBe(true);
    expect(tv.git(['show', 'HEAD:notes/a.md'])).toBe('alpha, checked\n');
    expect(tv.git(['log', '-p', '--all'])).not.toContain(GHP);
    expect(tv.read('notes/a.md')).toBe(`alpha\ntoken ${GHP}\n`);
    expect(tv.git(['status', '--porcelain', '--', 'notes/a.md'])).toBe(' M notes/a.md\n');
  });
});
