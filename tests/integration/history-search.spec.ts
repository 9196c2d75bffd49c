import { afterEach, describe, expect, it } from 'vitest';
import { makeTempVault, type TempVault } from '../support/temp-vault';

let vault: TempVault;
afterEach(() => vault?.cleanup());

describe('history, diffs and search through the vault', () => {
  it("follows a note through a rename made outside Lucid, and shows each commit's diff", async () => {
    vault = makeTempVault({ 'notes/old name.md': '# Plan\n\nfirst draft\n' });
    const v = await vault.open();
    const note = await v.readNote('notes/old name.md');
    const edit = await v.edit({
      actor: 'agent:tester',
      op: 'update',
      path: note.path,
      reason: 'expand the plan',
      changes: [{ path: note.path, content: '# Plan\n\nsecond draft\n', expectedHash: note.hash }],
    });
    vault.git(['mv', 'notes/old name.md', 'notes/new name.md']);
    vault.git(['commit', '-q', '-m', 'rename by hand']);
    const history = await v.history('notes/new name.md');
    expect(history.map((c) => c.subject)).toEqual(['rename by hand', 'update notes/old name.md', 'initial']);
    expect(history[1]).toMatchObject({ actor: 'agent:tester', op: 'update', editId: edit.editId, reason: 'expand the plan' });
    const diff = await v.commitDiff(edit.commit);
    expect(diff.patch).toContain('-first draft');
    expect(diff.patch).toContain('+second draft');
    await expect(v.commitDiff('--output=/tmp/x')).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(v.commitDiff('0'.repeat(40))).rejects.toMatchObject({ code: 'not_found' });
    v.close();
  });

  it('shows one file of a commit when the vault is a folder inside a larger repository', async () => {
    vault = makeTempVault({ 'docs/vault/a.md': 'one\n', 'src/code.ts': 'x\n' });
    const { openVault } = await import('../../lib/vault/index');
    const v = await openVault({ root: `${vault.root}/docs/vault`, env: vault.env, fallbackUser: 'T' });
    const note = await v.readNote('a.md');
    const edit = await v.edit({
      actor: 'agent:tester',
      op: 'update',
      path: 'a.md',
      reason: 'r',
      changes: [{ path: 'a.md', content: 'two\n', expectedHash: note.hash }],
    });
    expect(vault.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n').sort()).toEqual(['docs/vault/a.md', 'docs/vault/changelog.md']);
    const diff = await v.commitDiff(edit.commit, { path: 'a.md' });
    expect(diff.patch).toContain('+two');
    expect(diff.patch).not.toContain('changelog');
    expect((await v.history('a.md')).map((c) => c.editId)).toContain(edit.editId);
    v.close();
  });

  it('the commit index answers by edit id and rebuilds when history is rewritten under it', async () => {
    vault = makeTempVault({ 'a.md': 'a\n' });
    const v = await vault.open();
    const note = await v.readNote('a.md');
    const edit = await v.edit({
      actor: 'agent:tester',
      op: 'append',
      path: 'a.md',
      reason: 'more',
      changes: [{ path: 'a.md', content: 'a\nb\n', expectedHash: note.hash }],
    });
    expect((await v.commits()).byEdit(edit.editId)?.sha).toBe(edit.commit);
    vault.git(['reset', '-q', '--hard', 'HEAD~1']);
    const index = await v.commits();
    expect(index.byEdit(edit.editId)).toBeNull();
    expect(index.count()).toBe(Number(vault.git(['rev-list', '--count', 'HEAD']).trim()));
    v.close();
  });

  it('search notices notes a person changed or added outside Lucid, and filters by type, project and folder', async () => {
    vault = makeTempVault({
      'projects/atlas.md': '---\ntype: project\nname: Atlas\nstatus: active\n---\n# Atlas\n\nBilling service.\n',
      'decisions/queue.md':
        '---\ntype: decision\ndate: 2026-11-01\nproject: "[[projects/atlas]]"\nstatus: accepted\n---\n# Use a durable queue\n\nInvoices are retried from a durable queue.\n',
      'Notes/misc.md': '# Misc\n\nNothing about invoices here, just retried words.\n',
    });
    let now = new Date(2026, 10, 15, 10, 0, 0).getTime();
    const v = await vault.open({ clock: () => new Date(now) });
    expect((await v.search('how are invoices retried?')).map((h) => h.path)).toContain('decisions/queue.md');
    expect((await v.search('invoices retried', { type: 'decision' })).map((h) => h.path)).toEqual(['decisions/queue.md']);
    expect((await v.search('invoices retried', { project: 'projects/atlas.md' })).map((h) => h.path)).toEqual(['decisions/queue.md']);
    expect((await v.search('invoices retried', { folder: 'Notes' })).map((h) => h.path)).toEqual(['Notes/misc.md']);
    vault.write('Notes/pasted.md', '# Pasted\n\nThe zeppelin budget was approved.\n');
    // Search re-reads the files at most once a second by the vault's clock: moving the clock
    // past that second stands in for waiting it out.
    now += 1_100;
    expect((await v.search('zeppelin')).map((h) => h.path)).toEqual(['Notes/pasted.md']);
    v.close();
  });
});
