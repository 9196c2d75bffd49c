import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acceptInboxItem,
  endSession,
  initVault,
  isVaultError,
  moltSkill,
  openVault,
  planRevert,
  proposeToInbox,
  rejectInboxItem,
  revertEdit,
  startSession,
  type Vault,
} from '../../lib/vault/index';
import { revertEditAs } from '../../lib/vault/history/revert';
import {
  addedChangelogLines,
  agentEdit,
  FIVE_LINES,
  freeze,
  pathsOf,
  trailersOf,
  type TempVault,
  vaultRejection,
  vaultsPerTest,
} from '../support/revert-vault';
import { makeTempVault, TEST_PERSON } from '../support/temp-vault';

/** VAULT-FORMAT's revert table, row by row, on crafted histories in fresh temp vaults, checked with raw git. */

const { setUp, keep, keepTemp } = vaultsPerTest({ 'notes/a.md': FIVE_LINES });

async function refusal(vault: Vault, ref: string, code: string): Promise<string> {
  const plan = await planRevert(vault, ref);
  expect(plan.ok).toBe(false);
  expect(plan.refused).not.toBeNull();
  const error = await revertEdit(vault, { ref }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(isVaultError(error, code as never)).toBe(true);
  return plan.refused ?? '';
}

/** The id of the inbox item at `inboxPath`: its file name without .md. */
const itemId = (inboxPath: string) => path.basename(inboxPath, '.md');

/** The last commit is one revert: one commit, its changelog line, the person as actor. */
function expectOneRevert(tv: TempVault, before: number, commit: string, reverts: [string, string]) {
  expect(tv.commitCount()).toBe(before + 1);
  expect(tv.head()).toBe(commit);
  expect(trailersOf(tv, commit)).toMatchObject({ 'Lucid-Actor': `human:${TEST_PERSON}`, [reverts[0]]: reverts[1] });
  expect(addedChangelogLines(tv)).toHaveLength(1);
  expect(freeze(tv).status).toBe('');
}

describe('reverting each kind of edit', () => {
  it('create: deletes the note when it is unchanged since', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/new.md', '# New\n', 'create');
    const count = tv.commitCount();
    const plan = await planRevert(vault, c.editId);
    expect(plan).toMatchObject({ ok: true, paths: ['notes/new.md'] });
    expect(plan.message).toContain('delete notes/new.md');
    expect(plan.patch).toContain('deleted file mode');
    const result = await revertEdit(vault, { ref: c.editId });
    expect(tv.exists('notes/new.md')).toBe(false);
    expect(pathsOf(tv, result.commit)).toEqual(['changelog.md', 'notes/new.md']);
    expectOneRevert(tv, count, result.commit, ['Lucid-Reverts', c.editId]);
  });

  it('create: refuses, saying so, when the note changed since', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/new.md', '# New\n', 'create');
    await agentEdit(vault, 'notes/new.md', '# New\n\nmore\n');
    const before = freeze(tv);
    expect(await refusal(vault, c.editId, 'forbidden')).toContain('notes/new.md was changed since it was created');
    expect(freeze(tv)).toEqual(before);
  });

  it('append: restores the earlier content', async () => {
    const { tv, vault } = await setUp();
    const c = await vault.edit({
      actor: 'agent:writer',
      op: 'append',
      path: 'notes/a.md',
      reason: 'append',
      changes: [{ path: 'notes/a.md', content: (note) => `${note?.text ?? ''}six\n` }],
    });
    const count = tv.commitCount();
    const result = await revertEdit(vault, { ref: c.editId });
    expect(tv.read('notes/a.md')).toBe(FIVE_LINES);
    expectOneRevert(tv, count, result.commit, ['Lucid-Reverts', c.editId]);
  });

  it('delete: restores the file, byte for byte', async () => {
    const text = '---\ntitle: "Kept"\n---\r\nCRLF body\r\nno newline at the end';
    const { tv, vault } = await setUp({ 'notes/kept.md': text });
    const c = await agentEdit(vault, 'notes/kept.md', null, 'delete');
    const count = tv.commitCount();
    const result = await revertEdit(vault, { ref: c.editId });
    expect(tv.read('notes/kept.md')).toBe(text);
    expect(tv.git(['rev-parse', 'HEAD:notes/kept.md']).trim()).toBe(tv.git(['rev-parse', `${c.commit}~1:notes/kept.md`]).trim());
    expectOneRevert(tv, count, result.commit, ['Lucid-Reverts', c.editId]);
  });

  it('a rename (archive): the note comes back to its earlier location with its earlier text', async () => {
    const body = `${'a line that stays the same\n'.repeat(12)}`;
    const { tv, vault } = await setUp({ 'notes/old.md': `# Old\n\n${body}` });
    const c = await vault.edit({
      actor: 'agent:writer',
      op: 'archive',
      path: 'archive/old.md',
      reason: 'archived',
      changes: [
        { path: 'notes/old.md', content: null },
        { path: 'archive/old.md', content: `# Old (archived)\n\n${body}` },
      ],
    });
    expect(tv.git(['show', '--format=', '--name-status', '-M', c.commit])).toMatch(/^R\d+\tnotes\/old\.md\tarchive\/old\.md$/m);
    const count = tv.commitCount();
    const plan = await planRevert(vault, c.editId);
    expect(plan.paths.sort()).toEqual(['archive/old.md', 'notes/old.md']);
    expect(plan.patch).toContain('rename from archive/old.md');
    const result = await revertEdit(vault, { ref: c.editId });
    expect(tv.exists('archive/old.md')).toBe(false);
    expect(tv.read('notes/old.md')).toBe(`# Old\n\n${body}`);
    expectOneRevert(tv, count, result.commit, ['Lucid-Reverts', c.editId]);
  });

  it('molt: a new molt (version + 1) whose text is the earlier version’s, merged with a later molt of other lines', async () => {
    const { tv, vault } = await setUp();
    const { session } = await startSession(vault, { agent: 'skiller', task: 'write a skill' });
    await moltSkill(vault, { session, name: 'triage', content: 'step one\nstep two\nstep three\nstep four\n', trigger: 'when CI fails', reason: 'first' });
    const v2 = await moltSkill(vault, { session, name: 'triage', content: 'step one\nstep TWO, wrongly\nstep three\nstep four\n', reason: 'second' });
    await moltSkill(vault, { session, name: 'triage', content: 'step one\nstep TWO, wrongly\nstep three\nstep four, better\n', reason: 'third' });
    await endSession(vault, { session, summary: 'done', outcome: 'done' });
    const count = tv.commitCount();
    const plan = await planRevert(vault, v2.edit_id);
    expect(plan.ok).toBe(true);
    expect(plan.message).toContain('molt skills/triage.md to version 4');
    const result = await revertEdit(vault, { ref: v2.edit_id });
    const text = tv.read('skills/triage.md');
    expect(text).toContain('version: 4\n');
    expect(text).toMatch(/\n\nstep one\nstep two\nstep three\nstep four, better\n$/);
    expect(trailersOf(tv, result.commit)).toMatchObject({ 'Lucid-Op': 'molt', 'Lucid-Molt': 'triage 3->4', 'Lucid-Reverts': v2.edit_id });
    expectOneRevert(tv, count, result.commit, ['Lucid-Reverts', v2.edit_id]);
    expect(addedChangelogLines(tv)[0]).toContain('· molt [[skills/triage]] ·');
  });

  it('molt: a later molt of the same lines is a conflict', async () => {
    const { tv, vault } = await setUp();
    const { session } = await startSession(vault, { agent: 'skiller', task: 'write a skill' });
    await moltSkill(vault, { session, name: 'triage', content: 'step one\nstep two\n', trigger: 'when CI fails', reason: 'first' });
    const v2 = await moltSkill(vault, { session, name: 'triage', content: 'step one\nstep 2\n', reason: 'second' });
    const v3 = await moltSkill(vault, { session, name: 'triage', content: 'step one\nstep II\n', reason: 'third' });
    const before = freeze(tv);
    const plan = await planRevert(vault, v2.edit_id);
    expect(plan.blockers).toEqual([
      expect.objectContaining({ kind: 'conflict', path: 'skills/triage.md', laterEdits: [expect.objectContaining({ edit: v3.edit_id })] }),
    ]);
    expect(freeze(tv)).toEqual(before);
  });

  it('the molt that created a skill (version 1), unchanged since: deleted as a create is, its text kept in git and brought back by reverting the revert', async () => {
    const { tv, vault } = await setUp();
    const { session } = await startSession(vault, { agent: 'skiller', task: 'write a skill' });
    const v1 = await moltSkill(vault, { session, name: 'triage', content: 'step one\nstep two\n', trigger: 'when CI fails', reason: 'first' });
    expect(v1).toMatchObject({ status: 'written', version: 1, previous_version: 0 });
    expect(trailersOf(tv, v1.commit)).toMatchObject({ 'Lucid-Op': 'molt', 'Lucid-Molt': 'triage 0->1' });
    const text = tv.read('skills/triage.md');
    const count = tv.commitCount();
    const plan = await planRevert(vault, v1.edit_id);
    expect(plan).toMatchObject({ ok: true, paths: ['skills/triage.md'] });
    expect(plan.message).toContain('delete skills/triage.md');
    const result = await revertEdit(vault, { ref: v1.edit_id });
    expect(tv.exists('skills/triage.md')).toBe(false);
    expect(pathsOf(tv, result.commit)).toEqual(['changelog.md', 'skills/triage.md']);
    expectOneRevert(tv, count, result.commit, ['Lucid-Reverts', v1.edit_id]);
    // There is no earlier version to molt back to: the revert is a plain revert, not a molt.
    expect(trailersOf(tv, result.commit)['Lucid-Op']).toBe('revert');
    expect(trailersOf(tv, result.commit)['Lucid-Molt']).toBeUndefined();
    // Nothing is lost: version 1 stays in git, and reverting the revert brings it back byte for byte.
    expect(tv.git(['show', `${v1.commit}:skills/triage.md`])).toBe(text);
    await revertEdit(vault, { ref: result.editId });
    expect(tv.read('skills/triage.md')).toBe(text);
  });

  it('the molt that created a skill, molted since: refused as a changed create, and every later version stays', async () => {
    const { tv, vault } = await setUp();
    const { session } = await startSession(vault, { agent: 'skiller', task: 'write a skill' });
    const v1 = await moltSkill(vault, { session, name: 'triage', content: 'step one\nstep two\n', trigger: 'when CI fails', reason: 'first' });
    await moltSkill(vault, { session, name: 'triage', content: 'step one\nstep two, better\n', reason: 'second' });
    const before = freeze(tv);
    expect(await refusal(vault, v1.edit_id, 'forbidden')).toContain('skills/triage.md was changed since it was created');
    expect(freeze(tv)).toEqual(before);
    expect(tv.read('skills/triage.md')).toMatch(/version: 2\n[\s\S]*step two, better\n$/);
  });

  it('accept: restores the target and puts the proposal back in the inbox', async () => {
    const { tv, vault } = await setUp();
    const { session } = await startSession(vault, { agent: 'proposer', task: 'propose' });
    const proposal = await proposeToInbox(vault, {
      session,
      target: 'notes/a.md',
      action: 'update',
      content: 'one\ntwo\nthree, proposed\nfour\nfive\n',
      reason: 'better',
    });
    const inbox = proposal.inbox_path;
    const inboxText = tv.read(inbox);
    const accept = await acceptInboxItem(vault, { id: itemId(inbox), reason: 'accepted' });
    expect(tv.read('notes/a.md')).toBe('one\ntwo\nthree, proposed\nfour\nfive\n');
    expect(tv.exists(inbox)).toBe(false);
    expect(trailersOf(tv, accept.commit)).toMatchObject({ 'Lucid-Op': 'accept', 'Lucid-Session': session });
    const count = tv.commitCount();
    const result = await revertEdit(vault, { ref: accept.editId });
    expect(tv.read('notes/a.md')).toBe(FIVE_LINES);
    expect(tv.read(inbox)).toBe(inboxText);
    expect(pathsOf(tv, result.commit)).toEqual(['changelog.md', inbox, 'notes/a.md'].sort());
    expectOneRevert(tv, count, result.commit, ['Lucid-Reverts', accept.editId]);
  });

  it('reject: puts the proposal back in the inbox', async () => {
    const { tv, vault } = await setUp();
    const { session } = await startSession(vault, { agent: 'proposer', task: 'propose' });
    const proposal = await proposeToInbox(vault, { session, target: 'notes/z.md', action: 'create', content: '# Z\n', reason: 'new' });
    const inboxText = tv.read(proposal.inbox_path);
    const reject = await rejectInboxItem(vault, { id: itemId(proposal.inbox_path), reason: 'no' });
    expect(tv.exists(proposal.inbox_path)).toBe(false);
    expect(trailersOf(tv, reject.commit)['Lucid-Op']).toBe('reject');
    const count = tv.commitCount();
    const result = await revertEdit(vault, { ref: reject.editId });
    expect(tv.read(proposal.inbox_path)).toBe(inboxText);
    expect(tv.exists('notes/z.md')).toBe(false);
    expectOneRevert(tv, count, result.commit, ['Lucid-Reverts', reject.editId]);
  });

  it('revert: reverting a revert re-applies the original edit', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'one\nTWO\nthree\nfour\nfive\n');
    const first = await revertEdit(vault, { ref: c.editId });
    expect(tv.read('notes/a.md')).toBe(FIVE_LINES);
    const count = tv.commitCount();
    const second = await revertEdit(vault, { ref: first.editId });
    expect(tv.read('notes/a.md')).toBe('one\nTWO\nthree\nfour\nfive\n');
    expectOneRevert(tv, count, second.commit, ['Lucid-Reverts', first.editId]);
  });

  it("a person's own commit: reverses its note changes, names its sha, and the line says how many files", async () => {
    const { tv, vault } = await setUp({ 'notes/a.md': FIVE_LINES, 'notes/b.md': 'bee\n' });
    tv.write('notes/a.md', 'changed by hand\n');
    tv.write('notes/b.md', 'bee, by hand\n');
    tv.write('notes/c.md', 'new by hand\n');
    tv.write('.obsidian/app.json', '{"theme": "dark"}\n');
    tv.git(['add', '-A']);
    tv.git(['commit', '-q', '-m', 'my own edits']);
    const sha = tv.head();
    const count = tv.commitCount();
    const plan = await planRevert(vault, sha);
    expect(plan).toMatchObject({ ok: true, foreign: true, edit: null, op: null, actor: `human:${TEST_PERSON}`, subject: 'my own edits' });
    expect(plan.paths.sort()).toEqual(['notes/a.md', 'notes/b.md', 'notes/c.md']);
    expect(plan.message).toContain('.obsidian/app.json');
    const result = await revertEdit(vault, { ref: sha });
    expect(tv.read('notes/a.md')).toBe(FIVE_LINES);
    expect(tv.read('notes/b.md')).toBe('bee\n');
    expect(tv.exists('notes/c.md')).toBe(false);
    expect(tv.read('.obsidian/app.json')).toBe('{"theme": "dark"}\n');
    expectOneRevert(tv, count, result.commit, ['Lucid-Reverts-Commit', sha]);
    expect(trailersOf(tv, result.commit)['Lucid-Op']).toBe('revert');
    expect(addedChangelogLines(tv)[0]).toContain('(3 files)');
  });

  it('refuses a merge commit, the init commit and a commit that only touched the changelog, with a reason', async () => {
    const { tv, vault } = await setUp();
    const init = tv.git(['log', '-1', '--format=%H', '--grep=^Lucid-Op: init$']).trim();
    expect(await refusal(vault, init, 'forbidden')).toContain('init');

    tv.git(['checkout', '-q', '-b', 'side']);
    tv.write('notes/side.md', 'side\n');
    tv.git(['add', '-A']);
    tv.git(['commit', '-q', '-m', 'side']);
    tv.git(['checkout', '-q', 'main']);
    tv.write('notes/main.md', 'main\n');
    tv.git(['add', '-A']);
    tv.git(['commit', '-q', '-m', 'main']);
    tv.git(['merge', '-q', '--no-edit', 'side']);
    const merge = tv.head();
    expect(await refusal(vault, merge, 'forbidden')).toContain('merge commit');

    tv.write('changelog.md', `${tv.read('changelog.md')}\nA person's note in the changelog.\n`);
    tv.git(['commit', '-q', '-am', 'changelog by hand']);
    const before = freeze(tv);
    expect(await refusal(vault, tv.head(), 'forbidden')).toContain('only touched the changelog');
    expect(freeze(tv)).toEqual(before);
  });

  it('a commit whose changes are already undone is refused as nothing to do', async () => {
    const { vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'x\n');
    await agentEdit(vault, 'notes/a.md', FIVE_LINES);
    expect(await refusal(vault, c.editId, 'invalid_input')).toContain('already undone');
  });

  it('is made only by a person: another actor is refused before anything is read, and nothing changes', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'one\nTWO\nthree\nfour\nfive\n');
    const before = freeze(tv);
    for (const actor of ['agent:writer', 'human:', 'Test Person']) {
      const error = await vaultRejection(revertEditAs(vault, { ref: c.editId }, actor));
      expect(error.code).toBe('invalid_input');
    }
    expect(freeze(tv)).toEqual(before);
    const result = await revertEditAs(vault, { ref: c.editId }, 'human:Grace Hopper');
    expect(trailersOf(tv, result.commit)).toMatchObject({ 'Lucid-Actor': 'human:Grace Hopper', 'Lucid-Reverts': c.editId });
  });

  it('works on a vault that is a folder of a larger repository', async () => {
    const tv = makeTempVault({ 'outside.md': 'outside\n', 'vault/notes/a.md': FIVE_LINES });
    keepTemp(tv);
    await initVault({ dir: `${tv.root}/vault`, env: tv.env });
    const inner = await openVault({ root: `${tv.root}/vault`, env: tv.env });
    keep(inner);
    const c = await agentEdit(inner, 'notes/a.md', 'one\nTWO\nthree\nfour\nfive\n');
    const plan = await planRevert(inner, c.editId);
    expect(plan.paths).toEqual(['notes/a.md']);
    expect(plan.patch).toContain('--- a/notes/a.md');
    const result = await revertEdit(inner, { ref: c.editId });
    expect(tv.read('vault/notes/a.md')).toBe(FIVE_LINES);
    expect(pathsOf(tv, result.commit)).toEqual(['vault/changelog.md', 'vault/notes/a.md']);
    expect(tv.read('outside.md')).toBe('outside\n');
  });
});
