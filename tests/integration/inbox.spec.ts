import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptInboxItem,
  countInbox,
  endSession,
  initVault,
  isEditedAccept,
  isVaultError,
  listInbox,
  proposeToInbox,
  rejectInboxItem,
  showInboxItem,
  startSession,
  type AcceptInput,
  type RejectInput,
  type Vault,
} from '../../lib/vault/index';
import { nodeFs, type VaultFs } from '../../lib/vault/fs';
import { changelogLines, filesOf, trailersOf } from '../support/mcp';
import { makeTempVault, sha256, snapshot as fullSnapshot, type TempVault, type VaultSnapshot } from '../support/temp-vault';

/** The inbox's operations on fresh temp repositories, checked with raw git. */

const A = '# A\n\none\ntwo\nthree\nfour\nfive\nsix\nseven\n';
const FILES = {
  'notes/a.md': A,
  'notes/b.md': '# B\n',
  'notes/c.md': '# C\n\nTo be deleted.\n',
  'decisions/d.md': '---\ntype: decision\ndate: 2026-11-01\nproject: "[[projects/atlas]]"\nstatus: accepted\n---\n\n# D\n',
  'projects/atlas.md': '---\ntype: project\nname: Atlas\nstatus: active\n---\n\n# Atlas\n',
};
const PERSON = 'human:Test Person';
const GHP = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

/** The vault's files, HEAD and git status; Lucid's local state in .lucid/ (indexes a read may refresh) left out. */
function snapshot(root: string): VaultSnapshot {
  const taken = fullSnapshot(root);
  return { ...taken, files: Object.fromEntries(Object.entries(taken.files).filter(([file]) => !file.startsWith('.lucid/'))) };
}

async function setup(): Promise<{ tv: TempVault; vault: Vault; session: string }> {
  const tv = makeTempVault(FILES);
  vaults.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  const vault = await tv.open();
  opened.push(vault);
  const { session } = await startSession(vault, { agent: 'test-agent', task: 'propose changes' });
  return { tv, vault, session };
}

type Proposal = { target: string; action: 'create' | 'update' | 'append' | 'delete'; content?: string; reason?: string };

async function propose(vault: Vault, session: string, p: Proposal): Promise<{ id: string; path: string }> {
  const result = await proposeToInbox(vault, { session, reason: `about ${p.target}`, content: '', ...p });
  return { id: path.basename(result.inbox_path, '.md'), path: result.inbox_path };
}

/** Exactly one new commit and one new changelog line, made by the person with `op`, touching exactly `files`. */
function expectOneDecision(tv: TempVault, before: { commits: number; lines: number }, op: string, files: string[]): Record<string, string> {
  expect(tv.commitCount()).toBe(before.commits + 1);
  expect(changelogLines(tv)).toHaveLength(before.lines + 1);
  expect(filesOf(tv)).toEqual([...files, 'changelog.md'].sort());
  const trailers = trailersOf(tv);
  expect(trailers['Lucid-Op']).toBe(op);
  expect(trailers['Lucid-Actor']).toBe(PERSON);
  expect(changelogLines(tv)[0]).toContain(` · ${PERSON} · ${op} [[`);
  expect(tv.git(['status', '--porcelain'])).toBe('');
  return trailers;
}

const counts = (tv: TempVault) => ({ commits: tv.commitCount(), lines: changelogLines(tv).length });

async function refusal(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (isVaultError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('accept', () => {
  it('applies each action in one commit with one changelog line, as the person, with the proposing session', async () => {
    const { tv, vault, session } = await setup();
    const create = await propose(vault, session, { target: 'notes/new.md', action: 'create', content: '# New\n\nfresh\n' });
    const update = await propose(vault, session, { target: 'notes/a.md', action: 'update', content: '# A\n\nrewritten\n' });
    const append = await propose(vault, session, { target: 'notes/b.md', action: 'append', content: 'more\n' });
    const remove = await propose(vault, session, { target: 'notes/c.md', action: 'delete' });
    expect(await countInbox(vault)).toBe(4);

    const shownAppend = await showInboxItem(vault, append.id);
    expect(shownAppend).toMatchObject({ current: '# B\n', result: '# B\n\nmore\n', targetChanged: false, merge: null, currentHash: sha256('# B\n') });
    expect(shownAppend.diff).toMatch(/^--- notes\/b\.md\n\+\+\+ notes\/b\.md\n@@/);
    expect(shownAppend.diff).toContain('+more');
    const shownDelete = await showInboxItem(vault, remove.id);
    expect(shownDelete).toMatchObject({ result: null, proposal: null });
    expect(shownDelete.diff).toContain('-To be deleted.');

    const cases: [typeof create, string, string | null][] = [
      [create, 'notes/new.md', '# New\n\nfresh\n'],
      [update, 'notes/a.md', '# A\n\nrewritten\n'],
      [append, 'notes/b.md', '# B\n\nmore\n'],
      [remove, 'notes/c.md', null],
    ];
    for (const [item, target, text] of cases) {
      const before = counts(tv);
      const result = await acceptInboxItem(vault, { id: item.id });
      expect(result).toMatchObject({ target, edited: false, commit: tv.head() });
      const trailers = expectOneDecision(tv, before, 'accept', [item.path, target]);
      expect(trailers['Lucid-Session']).toBe(session);
      expect(trailers['Lucid-Edit']).toBe(result.editId);
      const body = tv.git(['log', '-1', '--format=%B']);
      expect(body.split('\n')[0]).toBe(`accept ${target}`);
      expect(body).toContain(`${item.id} from agent:test-agent: about ${target}`);
      expect(tv.exists(item.path)).toBe(false);
      // null: the accepted item deleted the target.
      expect(tv.exists(target) ? tv.read(target) : null).toBe(text);
      expect(tv.git(['show', '--name-status', '--format=', 'HEAD', '--', item.path]).trim()).toBe(`D\t${item.path}`);
    }
    expect(await countInbox(vault)).toBe(0);
    expect(isEditedAccept((await vault.log({ limit: 1 }))[0] as { op: string | null; reason: string })).toBe(false);
  });

  it("an edited accept writes the person's text and says so in its reason", async () => {
    const { tv, vault, session } = await setup();
    const item = await propose(vault, session, { target: 'notes/a.md', action: 'update', content: '# A\n\nthe agent wrote this\n' });
    const before = counts(tv);
    const blind = await refusal(acceptInboxItem(vault, { id: item.id, text: '# A\n\nthe person wrote this\n' }));
    expect(blind.code).toBe('invalid_input');
    expect(blind.message).toMatch(/needs the hash of notes\/a\.md/);
    expect(counts(tv)).toEqual(before);
    const { currentHash } = await showInboxItem(vault, item.id);
    const result = await acceptInboxItem(vault, { id: item.id, text: '# A\n\nthe person wrote this\n', reason: 'shorter', expectedTargetHash: currentHash });
    expect(result.edited).toBe(true);
    expectOneDecision(tv, before, 'accept', [item.path, 'notes/a.md']);
    expect(tv.read('notes/a.md')).toBe('# A\n\nthe person wrote this\n');
    const [record] = await vault.log({ limit: 1 });
    expect(record.reason).toBe(`${item.id} from agent:test-agent (edited before accepting): shorter`);
    expect(isEditedAccept(record as { op: string | null; reason: string })).toBe(true);
    expect(changelogLines(tv)[0]).toContain('(edited before accepting)');
  });

  it('a second accept of the same item is not_found and says it was accepted', async () => {
    const { vault, session } = await setup();
    const item = await propose(vault, session, { target: 'notes/new.md', action: 'create', content: '# New\n' });
    await acceptInboxItem(vault, { id: item.id });
    const again = await refusal(acceptInboxItem(vault, { id: item.id }));
    expect(again.code).toBe('not_found');
    expect(again.message).toMatch(/already accepted by human:Test Person/);
    expect((await refusal(showInboxItem(vault, item.id))).message).toMatch(/already accepted/);
    expect((await refusal(showInboxItem(vault, '../notes/a'))).code).toBe('invalid_input');
  });

  it('a proposal that breaks its type is refused with the schema message and nothing changes; an edited version goes in', async () => {
    const { tv, vault } = await setup();
    tv.write(
      'inbox/2026-11-15-090000-d.md',
      `---\ntype: inbox\nproposed_by: agent:test-agent\naction: update\ntarget: decisions/d.md\nbase_blob: ${tv.git(['hash-object', 'decisions/d.md']).trim()}\nreason: status\ncreated: 2026-11-15T09:00:00+00:00\n---\n\nWhy.\n\n\`\`\`\`markdown\n---\ntype: decision\ndate: 2026-11-01\nproject: "[[projects/atlas]]"\nstatus: maybe\n---\n\n# D\n\`\`\`\`\n`,
    );
    tv.git(['add', '-A']);
    tv.git(['commit', '-q', '-m', 'a proposal written by hand']);
    const before = snapshot(tv.root);
    const refused = await refusal(acceptInboxItem(vault, { id: '2026-11-15-090000-d' }));
    expect(refused.code).toBe('schema_violation');
    expect(refused.message).toMatch(/decisions\/d\.md breaks the decision rules.*status.*Nothing changed/);
    expect(snapshot(tv.root)).toEqual(before);
    const fixed = FILES['decisions/d.md'].replace('status: accepted', 'status: proposed');
    const result = await acceptInboxItem(vault, { id: '2026-11-15-090000-d', text: fixed, expectedTargetHash: sha256(tv.read('decisions/d.md')) });
    expect(result.edited).toBe(true);
    expect(tv.read('decisions/d.md')).toBe(fixed);
  });

  it('an item with a problem is listed and can be rejected, never accepted', async () => {
    const { tv, vault } = await setup();
    tv.write(
      'inbox/broken.md',
      '---\ntype: inbox\nproposed_by: agent:x\naction: update\ntarget: notes/a.md\nreason: r\ncreated: 2026-11-15T09:00:00+00:00\n---\n\nNo block.\n',
    );
    const [listed] = await listInbox(vault);
    expect(listed).toMatchObject({ id: 'broken', problem: expect.stringMatching(/no fenced block/) });
    const before = snapshot(tv.root);
    expect((await refusal(acceptInboxItem(vault, { id: 'broken' }))).code).toBe('invalid_input');
    expect(snapshot(tv.root)).toEqual(before);
    await rejectInboxItem(vault, { id: 'broken', reason: 'unreadable' });
    expect(tv.exists('inbox/broken.md')).toBe(false);
    // The uncommitted file was saved as the person's first, then removed: nothing is lost from git.
    expect(tv.git(['show', 'HEAD~1:inbox/broken.md'])).toContain('No block.');
    expect(trailersOf(tv)['Lucid-Op']).toBe('reject');
  });
});

describe('forged arguments (catalog #11)', () => {
  it('ids outside the inbox, missing items, wrong types and an agent as the decider are refused; nothing changes', async () => {
    const { tv, vault, session } = await setup();
    const item = await propose(vault, session, { target: 'notes/a.md', action: 'update', content: '# A\n' });
    const before = snapshot(tv.root);
    const forged: [() => Promise<unknown>, string][] = [
      [() => acceptInboxItem(vault, { id: '../notes/a' }), 'invalid_input'],
      [() => acceptInboxItem(vault, { id: 'sub/../../notes/a' }), 'invalid_input'],
      [() => rejectInboxItem(vault, { id: '..\\notes\\a' }), 'invalid_input'],
      [() => rejectInboxItem(vault, { id: '.lucid' }), 'invalid_input'],
      [() => acceptInboxItem(vault, { id: 'missing-item' }), 'not_found'],
      [() => rejectInboxItem(vault, { id: 'missing-item' }), 'not_found'],
      [() => acceptInboxItem(vault, { id: 42 as unknown as string }), 'invalid_input'],
      [() => acceptInboxItem(vault, { id: item.id, text: 42 as unknown as string }), 'invalid_input'],
      [() => acceptInboxItem(vault, { id: item.id, expectedTargetHash: 'abc' }), 'invalid_input'],
      // Only the demo decides in another person's name (acceptInboxItemAs, not exported from lib/vault/index.ts).
      [() => acceptInboxItem(vault, { id: item.id, person: 'agent:test-agent' } as AcceptInput), 'forbidden'],
      [() => rejectInboxItem(vault, { id: item.id, person: 'agent:test-agent' } as RejectInput), 'forbidden'],
      [() => acceptInboxItem(vault, { id: item.id, person: 'human:Mallory' } as AcceptInput), 'forbidden'],
      [() => rejectInboxItem(vault, { id: item.id, person: 'human:Mallory' } as RejectInput), 'forbidden'],
      [() => rejectInboxItem(vault, { id: item.id, reason: { x: 1 } as unknown as string }), 'invalid_input'],
      [() => acceptInboxItem(vault, null as unknown as { id: string }), 'invalid_input'],
    ];
    for (const [work, code] of forged) {
      const refused = await refusal(work());
      expect(refused.code).toBe(code);
      expect(refused.message).not.toMatch(/^\s*at /m);
    }
    expect(snapshot(tv.root)).toEqual(before);
  });
});

describe('a proposal and its target', () => {
  it('when the target changed since base_blob: both changes and the merge are shown, a plain accept is refused, the merged text goes in', async () => {
    const { tv, vault, session } = await setup();
    const item = await propose(vault, session, { target: 'notes/a.md', action: 'update', content: A.replace('seven', 'SEVEN (agent)') });
    tv.write('notes/a.md', A.replace('one', 'ONE (person)'));
    tv.git(['commit', '-q', '-am', 'my own edit']);

    const shown = await showInboxItem(vault, item.id);
    expect(shown).toMatchObject({ targetChanged: true, base: A, current: A.replace('one', 'ONE (person)') });
    expect(shown.merge).toMatchObject({ conflicts: 0, text: A.replace('one', 'ONE (person)').replace('seven', 'SEVEN (agent)') });
    expect(shown.merge?.personDiff).toContain('+ONE (person)');
    expect(shown.merge?.agentDiff).toContain('+SEVEN (agent)');
    expect(shown.merge?.agentDiff).not.toContain('ONE (person)');
    expect(fs.readdirSync(path.join(tv.root, '.lucid')).filter((name) => name.startsWith('merge-'))).toEqual([]);

    const before = snapshot(tv.root);
    const plain = await refusal(acceptInboxItem(vault, { id: item.id }));
    expect(plain.code).toBe('conflict');
    expect(plain.message).toMatch(/changed since agent:test-agent proposed this.*merge/);
    expect(snapshot(tv.root)).toEqual(before);

    const counted = counts(tv);
    const result = await acceptInboxItem(vault, { id: item.id, text: shown.merge?.text, expectedTargetHash: shown.currentHash });
    expect(result.edited).toBe(true);
    expectOneDecision(tv, counted, 'accept', [item.path, 'notes/a.md']);
    expect(tv.read('notes/a.md')).toBe(shown.merge?.text);
  });

  it('a conflicting merge holds markers; text with markers is refused and nothing changes; the resolved text goes in', async () => {
    const { tv, vault, session } = await setup();
    const item = await propose(vault, session, { target: 'notes/a.md', action: 'update', content: A.replace('four', 'four, said the agent') });
    tv.write('notes/a.md', A.replace('four', 'four, said the person'));
    tv.git(['commit', '-q', '-am', 'my own edit']);
    const shown = await showInboxItem(vault, item.id);
    expect(shown.merge?.conflicts).toBe(1);
    expect(shown.merge?.text).toContain('<<<<<<< the note now\nfour, said the person\n=======\nfour, said the agent\n>>>>>>> the proposal\n');

    const before = snapshot(tv.root);
    const marked = await refusal(acceptInboxItem(vault, { id: item.id, text: shown.merge?.text, expectedTargetHash: shown.currentHash }));
    expect(marked.code).toBe('invalid_input');
    expect(marked.message).toMatch(/conflict markers.*nothing changed/);
    expect(snapshot(tv.root)).toEqual(before);

    const resolved = A.replace('four', 'four, said both');
    await acceptInboxItem(vault, { id: item.id, text: resolved, expectedTargetHash: shown.currentHash });
    expect(tv.read('notes/a.md')).toBe(resolved);
  });

  it("an accept with the person's text after the target moved since show is a conflict, and the save since stays", async () => {
    const { tv, vault, session } = await setup();
    const item = await propose(vault, session, { target: 'notes/a.md', action: 'update', content: A.replace('seven', 'SEVEN') });
    const shown = await showInboxItem(vault, item.id);
    tv.write('notes/a.md', A.replace('one', 'ONE saved since'));
    const before = counts(tv);
    const stale = await refusal(acceptInboxItem(vault, { id: item.id, text: A.replace('seven', 'SEVEN, edited'), expectedTargetHash: shown.currentHash }));
    expect(stale.code).toBe('conflict');
    expect(counts(tv)).toEqual(before);
    expect(tv.read('notes/a.md')).toBe(A.replace('one', 'ONE saved since'));
  });

  it('an item without base_blob on an existing target is never applied blindly: a plain accept is a conflict, the merge is shown', async () => {
    const { tv, vault } = await setup();
    tv.write(
      'inbox/2026-11-15-090000-a.md',
      '---\ntype: inbox\nproposed_by: agent:test-agent\naction: update\ntarget: notes/a.md\nreason: no base\ncreated: 2026-11-15T09:00:00+00:00\n---\n\nWhy.\n\n````markdown\n# A\n\nreplaced\n````\n',
    );
    tv.git(['add', '-A']);
    tv.git(['commit', '-q', '-m', 'a proposal without base_blob']);
    const before = snapshot(tv.root);
    const shown = await showInboxItem(vault, '2026-11-15-090000-a');
    expect(shown.targetChanged).toBe(true);
    expect(shown.merge).not.toBeNull();
    expect((await refusal(acceptInboxItem(vault, { id: '2026-11-15-090000-a' }))).code).toBe('conflict');
    expect(snapshot(tv.root)).toEqual(before);
    await acceptInboxItem(vault, { id: '2026-11-15-090000-a', text: '# A\n\nreplaced\n', expectedTargetHash: shown.currentHash });
    expect(tv.read('notes/a.md')).toBe('# A\n\nreplaced\n');
  });

  it('a stale expectedTargetHash is a conflict and nothing changes', async () => {
    const { tv, vault, session } = await setup();
    const item = await propose(vault, session, { target: 'notes/new.md', action: 'create', content: '# New\n' });
    const shown = await showInboxItem(vault, item.id);
    expect(shown.currentHash).toBeNull();
    const stale = await refusal(acceptInboxItem(vault, { id: item.id, expectedTargetHash: sha256('something else') }));
    expect(stale.code).toBe('conflict');
    expect(stale.message).toMatch(/notes\/new\.md changed since you looked at it \(it is absent now\)/);

    const other = await propose(vault, session, { target: 'notes/b.md', action: 'append', content: 'x\n' });
    const seen = await showInboxItem(vault, other.id);
    tv.write('notes/b.md', '# B\n\nchanged meanwhile\n');
    const before = snapshot(tv.root);
    const changed = await refusal(acceptInboxItem(vault, { id: other.id, text: seen.result ?? '', expectedTargetHash: seen.currentHash }));
    expect(changed.code).toBe('conflict');
    expect(changed.message).toMatch(/notes\/b\.md changed since you looked at it/);
    expect(snapshot(tv.root)).toEqual(before);
  });

  it("a person's uncommitted edit to the target is committed as theirs first and survives the accept", async () => {
    const { tv, vault, session } = await setup();
    // Saved in Obsidian before the proposal: the proposal is based on it.
    tv.write('notes/b.md', '# B\n\nthe person typed this\n');
    const early = await propose(vault, session, { target: 'notes/b.md', action: 'append', content: 'the agent adds this\n' });
    const start = tv.commitCount();
    await acceptInboxItem(vault, { id: early.id });
    expect(tv.commitCount()).toBe(start + 2);
    expect(tv.git(['show', 'HEAD~1:notes/b.md'])).toBe('# B\n\nthe person typed this\n');
    expect(trailersOf(tv, 'HEAD~1')).toMatchObject({ 'Lucid-Actor': PERSON, 'Lucid-Op': 'update' });
    expect(tv.read('notes/b.md')).toBe('# B\n\nthe person typed this\n\nthe agent adds this\n');

    // Saved after the proposal: the target changed, so the person confirms the merge.
    const late = await propose(vault, session, { target: 'notes/b.md', action: 'append', content: 'a second section\n' });
    tv.write('notes/b.md', `${tv.read('notes/b.md')}\nand a later line\n`);
    const shown = await showInboxItem(vault, late.id);
    expect(shown.targetChanged).toBe(true);
    expect((await refusal(acceptInboxItem(vault, { id: late.id }))).code).toBe('conflict');
    await acceptInboxItem(vault, { id: late.id, text: shown.merge?.text, expectedTargetHash: shown.currentHash });
    expect(tv.read('notes/b.md')).toBe('# B\n\nthe person typed this\n\nthe agent adds this\n\nand a later line\n\na second section\n');
    expect(tv.git(['show', 'HEAD~1:notes/b.md'])).toContain('and a later line');
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('a delete of a changed target needs the hash the person saw', async () => {
    const { tv, vault, session } = await setup();
    const item = await propose(vault, session, { target: 'notes/c.md', action: 'delete' });
    tv.write('notes/c.md', '# C\n\nNow important.\n');
    tv.git(['commit', '-q', '-am', 'c matters now']);
    const shown = await showInboxItem(vault, item.id);
    expect(shown).toMatchObject({ targetChanged: true, merge: null });
    expect(shown.diff).toContain('-Now important.');
    expect((await refusal(acceptInboxItem(vault, { id: item.id }))).message).toMatch(/changed since agent:test-agent proposed to delete it/);
    expect((await refusal(acceptInboxItem(vault, { id: item.id, text: '' }))).code).toBe('invalid_input');
    await acceptInboxItem(vault, { id: item.id, expectedTargetHash: shown.currentHash });
    expect(tv.exists('notes/c.md')).toBe(false);
  });

  it('a possible-secret item: its proposal is masked, accepting it commits the masked text, a text with the secret is refused', async () => {
    const { tv, vault, session } = await setup();
    const item = await propose(vault, session, { target: 'notes/keys.md', action: 'create', content: `# Keys\n\ntoken ${GHP}\n` });
    const shown = await showInboxItem(vault, item.id);
    expect(shown.flag).toBe('possible-secret');
    expect(shown.proposal).toContain('ghp_…[masked]');
    const before = snapshot(tv.root);
    const refused = await refusal(acceptInboxItem(vault, { id: item.id, text: `# Keys\n\ntoken ${GHP}\n`, expectedTargetHash: null }));
    expect(refused.code).toBe('forbidden');
    expect(refused.message).not.toContain(GHP.slice(8));
    expect(snapshot(tv.root)).toEqual(before);
    await acceptInboxItem(vault, { id: item.id });
    expect(tv.read('notes/keys.md')).toContain('ghp_…[masked]');
    expect(tv.git(['log', '-p', '--all'])).not.toContain(GHP.slice(8));
  });
});

describe('reject', () => {
  it("removes the item in one commit with the person's reason, and the agent's next start_session reports it", async () => {
    const { tv, vault, session } = await setup();
    const item = await propose(vault, session, { target: 'notes/b.md', action: 'append', content: 'paging rule\n' });
    const accepted = await propose(vault, session, { target: 'notes/new.md', action: 'create', content: '# New\n' });
    await endSession(vault, { session, summary: 'proposed two things', outcome: 'done' });

    const before = counts(tv);
    const result = await rejectInboxItem(vault, { id: item.id, reason: 'agents never page anyone' });
    const trailers = expectOneDecision(tv, before, 'reject', [item.path]);
    expect(trailers['Lucid-Session']).toBe(session);
    expect(result).toEqual({ editId: trailers['Lucid-Edit'], commit: tv.head() });
    expect(tv.git(['log', '-1', '--format=%s']).trim()).toBe('reject notes/b.md');
    expect(changelogLines(tv)[0]).toContain('reject [[notes/b]] · agents never page anyone');
    expect(tv.read('notes/b.md')).toBe('# B\n');
    await acceptInboxItem(vault, { id: accepted.id });

    const next = await startSession(vault, { agent: 'test-agent', task: 'carry on' });
    const byPath = new Map(next.since_last_session.corrections.map((c) => [c.path, c]));
    expect(byPath.get('notes/b.md')?.changes).toEqual([
      expect.objectContaining({
        kind: 'rejected',
        by: PERSON,
        op: 'reject',
        reason: 'agents never page anyone',
        proposal: expect.objectContaining({ inbox_path: item.path, action: 'append', yours: true }),
      }),
    ]);
    expect(byPath.get('notes/new.md')?.changes).toEqual([expect.objectContaining({ kind: 'edited', op: 'accept', by: PERSON })]);
    expect((await refusal(rejectInboxItem(vault, { id: item.id }))).message).toMatch(/already rejected/);
    // The session note still names both proposals: a record of where they were, not broken links.
    const sessionNote = tv.read(`sessions/${session}.md`);
    expect(sessionNote).toContain(`[[${item.path.replace(/\.md$/, '')}]]`);
    expect((await vault.lint()).brokenLinks).toEqual([]);
  });
});

describe('the queue', () => {
  it('lists oldest first, filters by agent, flag and action, and counts', async () => {
    const { tv, vault, session } = await setup();
    const first = await propose(vault, session, { target: 'notes/new.md', action: 'create', content: '# New\n' });
    const second = await propose(vault, session, { target: 'notes/a.md', action: 'append', content: 'x\n' });
    const other = await startSession(vault, { agent: 'other-bot', task: 'more' });
    const third = (await proposeToInbox(vault, { session: other.session, target: 'notes/keys.md', action: 'create', content: `${GHP}\n`, reason: 'r' }))
      .inbox_path;
    tv.write(
      'inbox/0000-early.md',
      '---\ntype: inbox\nproposed_by: human:Someone\naction: delete\ntarget: notes/c.md\nreason: old\ncreated: 2026-01-01T00:00:00+00:00\n---\n\nOld.\n',
    );
    expect((await listInbox(vault)).map((i) => i.path)).toEqual(['inbox/0000-early.md', first.path, second.path, third]);
    expect((await listInbox(vault, { agent: 'other-bot' })).map((i) => i.path)).toEqual([third]);
    expect((await listInbox(vault, { agent: 'agent:test-agent' })).map((i) => i.id)).toEqual([first.id, second.id]);
    expect((await listInbox(vault, { flag: 'possible-secret' })).map((i) => i.path)).toEqual([third]);
    expect((await listInbox(vault, { action: 'append' })).map((i) => i.id)).toEqual([second.id]);
    expect(await countInbox(vault)).toBe(4);
    // A file changed on disk is read again; one removed leaves the list.
    tv.write('inbox/0000-early.md', tv.read('inbox/0000-early.md').replace('reason: old', 'reason: older and longer'));
    expect((await listInbox(vault))[0].reason).toBe('older and longer');
    await acceptInboxItem(vault, { id: first.id });
    expect((await listInbox(vault)).map((i) => i.id)).not.toContain(first.id);
  });

  it('keeps proposals made within one second in the order they were made, whatever their names', async () => {
    const { tv, vault } = await setup();
    const item = (name: string) =>
      `---\ntype: inbox\nproposed_by: agent:quick\naction: create\ntarget: notes/${name}.md\nreason: r\ncreated: 2026-11-14T10:00:00+00:00\n---\n\nWhy.\n\n\`\`\`\`markdown\n# ${name}\n\`\`\`\`\n`;
    const made = ['one', 'two', 'three'];
    for (const [i, name] of made.entries()) {
      tv.write(`inbox/2026-11-14-100000-${name}.md`, item(name));
      const at = new Date(Date.parse('2026-11-14T10:00:00Z') + i * 200);
      fs.utimesSync(path.join(tv.root, `inbox/2026-11-14-100000-${name}.md`), at, at);
    }
    // By name alone "three" would come before "two".
    expect((await listInbox(vault)).map((i) => i.target)).toEqual(made.map((n) => `notes/${n}.md`));
    // Listed again from the cache, the order holds.
    expect((await listInbox(vault)).map((i) => i.target)).toEqual(made.map((n) => `notes/${n}.md`));
  });

  it('lists an empty file, front matter only and a file too large as items with a problem, and thousands of items, each parsed once and read again only when it changed (catalog #45)', async () => {
    const { tv, vault } = await setup();
    tv.write('inbox/empty.md', '');
    tv.write('inbox/front-only.md', '---\ntype: inbox\n---\n');
    tv.write('inbox/huge.md', `---\ntype: inbox\n---\n\n${'x'.repeat(5 * 1024 * 1024)}\n`);
    tv.write('inbox/binary.md', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
    const many = 2000;
    for (let i = 0; i < many; i += 1) {
      const n = String(i).padStart(5, '0');
      tv.write(
        `inbox/2026-11-14-${n}-item.md`,
        `---\ntype: inbox\nproposed_by: agent:bulk\naction: append\ntarget: notes/b.md\nreason: item ${n}\ncreated: 2026-11-14T10:00:00+00:00\n---\n\nWhy.\n\n\`\`\`\`markdown\nline ${n}\n\`\`\`\`\n`,
      );
    }
    // Counted, not timed: a vault whose file system counts what the inbox reads.
    const reads = { items: 0, folders: 0 };
    const counting: VaultFs = {
      ...nodeFs,
      openRead: (p) => {
        reads.items += 1;
        return nodeFs.openRead(p);
      },
      readdir: (p) => {
        reads.folders += 1;
        return nodeFs.readdir(p);
      },
    };
    const watched = await tv.open({ fs: counting });
    opened.push(watched);
    const items = await listInbox(watched);
    const first = { ...reads };
    expect(items).toHaveLength(many + 4);
    const byId = new Map(items.map((i) => [i.id, i]));
    expect(byId.get('empty')?.problem).toMatch(/not an inbox proposal/);
    expect(byId.get('front-only')?.problem).toMatch(/proposed_by is missing.*action is missing.*target is missing/);
    expect(byId.get('huge')?.problem).toMatch(/larger than 4 MiB/);
    expect(byId.get('binary')?.problem).toMatch(/cannot be accepted/);
    expect(items.slice(0, 3).map((i) => i.reason)).toEqual(['item 00000', 'item 00001', 'item 00002']);
    // The first listing parses every item once.
    expect(first.items).toBe(many + 4);
    reads.items = 0;
    reads.folders = 0;
    expect(await listInbox(watched, { agent: 'bulk' })).toHaveLength(many);
    // The next ones, as the dashboard's every refresh, read only the folder: no item changed.
    expect(reads).toEqual({ items: 0, folders: 1 });
    reads.items = 0;
    reads.folders = 0;
    expect(await countInbox(watched)).toBe(many + 4);
    expect(reads.items).toBe(0);
    // One item changed: only it is read again.
    tv.write('inbox/2026-11-14-00007-item.md', tv.read('inbox/2026-11-14-00007-item.md').replace('reason: item 00007', 'reason: item seven'));
    reads.items = 0;
    expect((await listInbox(watched)).find((i) => i.id === '2026-11-14-00007-item')?.reason).toBe('item seven');
    expect(reads.items).toBe(1);
    await rejectInboxItem(vault, { id: 'binary' });
    expect(tv.exists('inbox/binary.md')).toBe(false);
  });
});
