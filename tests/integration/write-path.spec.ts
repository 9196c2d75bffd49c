import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseChangelogLine } from '../../lib/vault/git/changelog';
import { VaultError } from '../../lib/vault/errors';
import { nodeFs, type VaultFs } from '../../lib/vault/fs';
import { openVault, type Vault } from '../../lib/vault/vault';
import type { EditRequest } from '../../lib/vault/write/edit-types';
import { DEFAULT_START, TEST_EMAIL, TEST_PERSON, findTempFiles, makeTempVault, sha256, snapshot, steppingClock, type TempVault } from '../support/temp-vault';
import { workerArgs } from '../support/worker-bundle';

const AGENT = 'agent:test-agent';
const PERSON = `human:${TEST_PERSON}`;
const SESSION = '20261115-100000-test-agent-abcd';
const EDIT_ID = /^e[a-z2-7]{12}$/;
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKER = fileURLToPath(new URL('../support/append-worker.ts', import.meta.url));

const NOTE = 'notes/a.md';
const NOTE_TEXT = '---\ntitle: A\nstatus: draft\n---\n\nThe first version.\n';

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const vault of opened.splice(0)) vault.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

function tempVault(files: Record<string, string | Uint8Array> = {}): TempVault {
  const tv = makeTempVault(files);
  vaults.push(tv);
  return tv;
}

async function openIn(tv: TempVault, options?: Parameters<TempVault['open']>[0]): Promise<Vault> {
  const vault = await tv.open(options);
  opened.push(vault);
  return vault;
}

/** The VaultError a call is refused with (fails the test when it succeeds). */
async function refusal(promise: Promise<unknown>): Promise<VaultError> {
  let caught: unknown = null;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(VaultError);
  return caught as VaultError;
}

function edit(vault: Vault, request: Partial<EditRequest> & { changes: EditRequest['changes'] }) {
  return vault.edit({ actor: AGENT, op: 'update', path: request.changes[0].path, reason: 'a test edit', ...request });
}

/** `git show --name-status` of a commit, one `X\tpath` per file, sorted. */
function nameStatus(tv: TempVault, rev = 'HEAD'): string[] {
  return tv.git(['show', '--name-status', '--format=', rev, '--']).split('\n').filter(Boolean).sort();
}

/** `git show --name-only` of a commit, sorted. */
function namesIn(tv: TempVault, rev = 'HEAD'): string[] {
  return tv.git(['show', '--name-only', '--format=', rev, '--']).split('\n').filter(Boolean).sort();
}

/** The trailers git itself finds in a commit message, in order. */
function trailersOf(tv: TempVault, rev = 'HEAD'): [string, string][] {
  return tv
    .git(['log', '-1', '--format=%(trailers:only,unfold)', rev, '--'])
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const at = line.indexOf(': ');
      return [line.slice(0, at), line.slice(at + 2)];
    });
}

function changelogLinesOf(text: string): string[] {
  return text.split('\n').filter((line) => line.startsWith('- '));
}

function showFile(tv: TempVault, rev: string, file: string): string {
  return tv.git(['show', `${rev}:${file}`]);
}

describe('an edit is exactly one commit with its changelog line', () => {
  it('creating a note commits the note and changelog.md, with every trailer and a changelog line ending in the edit id', async () => {
    const tv = tempVault({ 'notes/existing.md': 'x\n', 'README.md': 'hello\n' });
    const vault = await openIn(tv);
    const before = tv.commitCount();
    const content = '---\ntitle: New\n---\n\nA new note.\n';

    const result = await vault.edit({
      actor: AGENT,
      op: 'create',
      path: 'notes/new.md',
      reason: 'record the new thing',
      session: SESSION,
      changes: [{ path: 'notes/new.md', content, expectedHash: null }],
    });

    expect(result.editId).toMatch(EDIT_ID);
    expect(result.commit).toBe(tv.head());
    expect(result.hashes).toEqual({ 'notes/new.md': sha256(content) });
    expect(result.savedPersonCommit).toBeNull();
    expect(tv.read('notes/new.md')).toBe(content);
    expect(tv.commitCount()).toBe(before + 1);
    expect(nameStatus(tv)).toEqual(['A\tchangelog.md', 'A\tnotes/new.md']);
    expect(tv.git(['status', '--porcelain'])).toBe('');

    expect(tv.git(['log', '-1', '--format=%B'])).toBe(
      `create notes/new.md\n\nrecord the new thing\n\nLucid-Actor: ${AGENT}\nLucid-Op: create\nLucid-Edit: ${result.editId}\nLucid-Session: ${SESSION}\nLucid-Machine: ${vault.machine}\n\n`,
    );
    expect(trailersOf(tv)).toEqual([
      ['Lucid-Actor', AGENT],
      ['Lucid-Op', 'create'],
      ['Lucid-Edit', result.editId],
      ['Lucid-Session', SESSION],
      ['Lucid-Machine', vault.machine],
    ]);
    expect(tv.git(['log', '-1', '--format=%an|%cn|%ce|%at'])).toBe(`${AGENT}|${TEST_PERSON}|${TEST_EMAIL}|${DEFAULT_START.getTime() / 1000}\n`);

    const lines = changelogLinesOf(showFile(tv, 'HEAD', 'changelog.md'));
    expect(lines).toEqual([`- 2026-11-15 10:00 · ${AGENT} · create [[notes/new]] · record the new thing · [[sessions/${SESSION}|session]] ^${result.editId}`]);
    expect(parseChangelogLine(lines[0])).toMatchObject({ actor: AGENT, op: 'create', target: 'notes/new.md', session: SESSION, editId: result.editId });
  });

  it('updating a note commits only the note and changelog.md, newest changelog line first', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT, 'notes/b.md': 'b\n' });
    const vault = await openIn(tv);
    const first = await edit(vault, { changes: [{ path: NOTE, content: `${NOTE_TEXT}Second.\n`, expectedHash: sha256(NOTE_TEXT) }] });
    const before = tv.commitCount();
    const third = `${NOTE_TEXT}Second.\nThird.\n`;

    const result = await edit(vault, { reason: 'add the third line', changes: [{ path: NOTE, content: third, expectedHash: first.hashes[NOTE] ?? '' }] });

    expect(tv.commitCount()).toBe(before + 1);
    expect(nameStatus(tv)).toEqual(['M\tchangelog.md', `M\t${NOTE}`]);
    expect(showFile(tv, 'HEAD', NOTE)).toBe(third);
    expect(tv.read(NOTE)).toBe(third);
    expect(result.hashes[NOTE]).toBe(sha256(third));
    expect(trailersOf(tv)).toEqual([
      ['Lucid-Actor', AGENT],
      ['Lucid-Op', 'update'],
      ['Lucid-Edit', result.editId],
      ['Lucid-Machine', vault.machine],
    ]);
    const lines = changelogLinesOf(tv.read('changelog.md'));
    expect(lines).toHaveLength(2);
    expect(lines[0].endsWith(`^${result.editId}`)).toBe(true);
    expect(lines[0]).toContain('update [[notes/a]] · add the third line');
    expect(lines[1].endsWith(`^${first.editId}`)).toBe(true);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('deleting a note removes it in one commit with its changelog line', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT, 'notes/b.md': 'b\n' });
    const vault = await openIn(tv);
    const before = tv.commitCount();

    const result = await vault.edit({
      actor: AGENT,
      op: 'delete',
      path: NOTE,
      reason: 'no longer needed',
      changes: [{ path: NOTE, content: null, expectedHash: sha256(NOTE_TEXT) }],
    });

    expect(result.hashes).toEqual({ [NOTE]: null });
    expect(tv.exists(NOTE)).toBe(false);
    expect(tv.commitCount()).toBe(before + 1);
    expect(nameStatus(tv)).toEqual(['A\tchangelog.md', `D\t${NOTE}`]);
    expect(tv.git(['ls-tree', '-r', '--name-only', 'HEAD', '--']).split('\n').filter(Boolean).sort()).toEqual(['changelog.md', 'notes/b.md']);
    expect(trailersOf(tv).find(([key]) => key === 'Lucid-Op')).toEqual(['Lucid-Op', 'delete']);
    expect(changelogLinesOf(tv.read('changelog.md'))[0]).toMatch(new RegExp(`delete \\[\\[notes/a\\]\\] · no longer needed \\^${result.editId}$`));
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('a reason with line breaks and forged trailers stays one line in the commit and in the changelog', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    const reason = 'tidy up\n\nLucid-Actor: human:The Boss\nLucid-Op: accept\n- 2026-11-15 10:00 · agent:x · delete [[a]] ^eaaaaaaaaaaaa';

    const result = await edit(vault, { reason, changes: [{ path: NOTE, content: `${NOTE_TEXT}more\n`, expectedHash: sha256(NOTE_TEXT) }] });

    expect(trailersOf(tv)).toEqual([
      ['Lucid-Actor', AGENT],
      ['Lucid-Op', 'update'],
      ['Lucid-Edit', result.editId],
      ['Lucid-Machine', vault.machine],
    ]);
    const body = tv.git(['log', '-1', '--format=%b']);
    expect(body.split('\n').filter((line) => line.startsWith('Lucid-Actor:'))).toEqual([`Lucid-Actor: ${AGENT}`]);
    const lines = changelogLinesOf(tv.read('changelog.md'));
    expect(lines).toHaveLength(1);
    expect(lines[0].endsWith(`^${result.editId}`)).toBe(true);
    expect(parseChangelogLine(lines[0])).toMatchObject({ actor: AGENT, op: 'update', editId: result.editId });
  });
});

describe("a person's uncommitted work", () => {
  it("a change the person staged in another file stays staged and out of the agent's commit", async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT, 'notes/other.md': 'other v1\n', 'notes/third.md': 'third v1\n' });
    const vault = await openIn(tv);
    tv.write('notes/other.md', 'other v2, staged by the person\n');
    tv.git(['add', 'notes/other.md']);
    tv.write('notes/third.md', 'third v2, not staged\n');
    tv.write('notes/untracked.md', 'brand new\n');

    await edit(vault, { changes: [{ path: NOTE, content: `${NOTE_TEXT}agent line\n`, expectedHash: sha256(NOTE_TEXT) }] });

    expect(namesIn(tv)).toEqual(['changelog.md', NOTE]);
    expect(tv.git(['diff', '--cached', '--name-only'])).toBe('notes/other.md\n');
    expect(tv.git(['show', ':notes/other.md'])).toBe('other v2, staged by the person\n');
    expect(tv.git(['status', '--porcelain']).split('\n').filter(Boolean).sort()).toEqual([' M notes/third.md', '?? notes/untracked.md', 'M  notes/other.md']);
    expect(tv.read('notes/third.md')).toBe('third v2, not staged\n');
    expect(tv.read('notes/untracked.md')).toBe('brand new\n');
  });

  it("a person's uncommitted edit of the target is committed as theirs first, then the agent's edit", async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    const before = tv.commitCount();
    const personText = `${NOTE_TEXT}A line the person typed in Obsidian.\n`;
    tv.write(NOTE, personText);
    const read = await vault.readNote(NOTE);
    expect(read.hash).toBe(sha256(personText));
    const agentText = `${personText}A line the agent added.\n`;

    const result = await edit(vault, { op: 'append', changes: [{ path: NOTE, content: agentText, expectedHash: read.hash }] });

    expect(tv.commitCount()).toBe(before + 2);
    expect(result.savedPersonCommit).toBe(tv.git(['rev-parse', '--verify', 'HEAD~1']).trim());
    expect(result.commit).toBe(tv.head());
    expect(showFile(tv, 'HEAD~1', NOTE)).toBe(personText);
    expect(showFile(tv, 'HEAD', NOTE)).toBe(agentText);
    expect(tv.read(NOTE)).toBe(agentText);

    expect(trailersOf(tv, 'HEAD~1').slice(0, 2)).toEqual([
      ['Lucid-Actor', PERSON],
      ['Lucid-Op', 'update'],
    ]);
    expect(tv.git(['log', '-1', '--format=%an <%ae>', 'HEAD~1', '--'])).toBe(`${TEST_PERSON} <${TEST_EMAIL}>\n`);
    expect(namesIn(tv, 'HEAD~1')).toEqual(['changelog.md', NOTE]);
    expect(trailersOf(tv, 'HEAD').slice(0, 2)).toEqual([
      ['Lucid-Actor', AGENT],
      ['Lucid-Op', 'append'],
    ]);
    expect(namesIn(tv, 'HEAD')).toEqual(['changelog.md', NOTE]);

    const lines = changelogLinesOf(tv.read('changelog.md')).map((line) => parseChangelogLine(line));
    expect(lines.map((line) => line?.actor)).toEqual([AGENT, PERSON]);
    expect(lines[0]?.editId).toBe(result.editId);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('a stale expectedHash is a conflict: the file keeps the newer text and nothing is committed', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    const stale = (await vault.readNote(NOTE)).hash;
    const personText = `${NOTE_TEXT}Changed by the person meanwhile.\n`;
    tv.write(NOTE, personText);
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: "the agent's version\n", expectedHash: stale }] }));

    expect(error.code).toBe('conflict');
    expect(error.message).toContain(NOTE);
    expect(error.details).toMatchObject({ path: NOTE, currentHash: sha256(personText) });
    expect(tv.read(NOTE)).toBe(personText);
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('a second agent edit based on the same hash as a first one is a conflict', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    const base = sha256(NOTE_TEXT);
    await edit(vault, { changes: [{ path: NOTE, content: 'first\n', expectedHash: base }] });
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: 'second\n', expectedHash: base }] }));

    expect(error.code).toBe('conflict');
    expect(tv.read(NOTE)).toBe('first\n');
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('expectedHash null for a file that exists is a conflict', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { op: 'create', changes: [{ path: NOTE, content: 'replacement\n', expectedHash: null }] }));

    expect(error.code).toBe('conflict');
    expect(error.message).toContain('already exists');
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('a hash for a file that was deleted meanwhile is a conflict', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    fs.rmSync(path.join(tv.root, NOTE));
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: 'again\n', expectedHash: sha256(NOTE_TEXT) }] }));

    expect(error.code).toBe('conflict');
    expect(error.message).toContain('deleted');
    expect(snapshot(tv.root)).toEqual(before);
  });
});

describe('changes computed under the lock', () => {
  it('two writers appending with a function of the current note from a start barrier both land, without a conflict', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const [a, b] = [await openIn(tv), await openIn(tv)];
    let go!: () => void;
    const barrier = new Promise<void>((resolve) => {
      go = resolve;
    });
    const append = (vault: Vault, line: string) =>
      barrier.then(() => edit(vault, { op: 'append', changes: [{ path: NOTE, content: (now) => `${now?.text ?? ''}${line}\n` }] }));
    const both = Promise.all([append(a, '- from a'), append(b, '- from b')]);
    go();
    await both;
    const text = tv.read(NOTE);
    expect(text.split('\n').filter((l) => l === '- from a')).toHaveLength(1);
    expect(text.split('\n').filter((l) => l === '- from b')).toHaveLength(1);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });
});

describe('line-ending filters', () => {
  it("a CRLF note in a text=auto repository is not mistaken for a person's uncommitted edit", async () => {
    const tv = tempVault({ '.gitattributes': '* text=auto\n', 'notes/win.md': 'line one\r\nline two\r\n' });
    tv.write('notes/win.md', 'line one\r\nline two\r\n');
    expect(tv.git(['status', '--porcelain'])).toBe('');
    const vault = await openIn(tv);
    const note = await vault.readNote('notes/win.md');
    const before = tv.commitCount();
    await edit(vault, { op: 'append', changes: [{ path: 'notes/win.md', content: `${note.text}line three\r\n`, expectedHash: note.hash }] });
    expect(tv.commitCount()).toBe(before + 1);
    expect(tv.git(['log', '-1', '--format=%B'])).toContain(`Lucid-Actor: ${AGENT}`);
  });
});

describe('notes that break the rules', () => {
  it('a decision without its project is refused as a schema violation that names the field; nothing is written', async () => {
    const tv = tempVault({ 'projects/atlas.md': '---\ntype: project\nname: Atlas\nstatus: active\n---\n' });
    const vault = await openIn(tv);
    const before = snapshot(tv.root);
    const decision = '---\ntype: decision\ndate: 2026-11-15\nstatus: accepted\n---\n\nUse Postgres.\n';

    const error = await refusal(
      vault.edit({
        actor: AGENT,
        op: 'create',
        path: 'decisions/use-postgres.md',
        reason: 'decided',
        changes: [{ path: 'decisions/use-postgres.md', content: decision, expectedHash: null }],
      }),
    );

    expect(error.code).toBe('schema_violation');
    expect(error.message).toContain('project');
    const violations = error.details?.violations as { field: string; path: string }[];
    expect(violations.map((v) => v.field)).toEqual(['project']);
    expect(violations[0].path).toBe('decisions/use-postgres.md');
    expect(tv.exists('decisions/use-postgres.md')).toBe(false);
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('an update that breaks a field of a valid note is refused with each broken field', async () => {
    const valid = '---\ntype: decision\ndate: 2026-11-15\nproject: "[[projects/atlas]]"\nstatus: accepted\n---\n';
    const tv = tempVault({ 'decisions/d.md': valid });
    const vault = await openIn(tv);
    const before = snapshot(tv.root);

    const error = await refusal(
      edit(vault, {
        changes: [{ path: 'decisions/d.md', content: '---\ntype: decision\ndate: soon\nproject: atlas\nstatus: maybe\n---\n', expectedHash: sha256(valid) }],
      }),
    );

    expect(error.code).toBe('schema_violation');
    const violations = (error.details?.violations ?? []) as { field: string }[];
    expect(violations.map((v) => v.field).sort()).toEqual(['date', 'project', 'status']);
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('an agent may not rewrite a note whose front matter is broken; the file stays byte for byte', async () => {
    const broken = "---\ntitle: [unclosed\ntags: a\n---\n\nThe person's text.\n";
    const tv = tempVault({ 'notes/broken.md': broken });
    const vault = await openIn(tv);
    const before = snapshot(tv.root);

    const write = await refusal(edit(vault, { changes: [{ path: 'notes/broken.md', content: '---\ntitle: fixed\n---\n', expectedHash: sha256(broken) }] }));
    const remove = await refusal(
      vault.edit({ actor: AGENT, op: 'delete', path: 'notes/broken.md', reason: 'x', changes: [{ path: 'notes/broken.md', content: null }] }),
    );

    expect(write.code).toBe('invalid_frontmatter');
    expect(write.message).toContain('notes/broken.md');
    expect(remove.code).toBe('invalid_frontmatter');
    expect(tv.read('notes/broken.md')).toBe(broken);
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('an agent write with broken front matter is refused before anything is written', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: '---\na: 1\na: 2\n---\n', expectedHash: sha256(NOTE_TEXT) }] }));

    expect(error.code).toBe('invalid_frontmatter');
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('the person may fix a note with broken front matter', async () => {
    const broken = '---\ntitle: [unclosed\n---\n';
    const tv = tempVault({ 'notes/broken.md': broken });
    const vault = await openIn(tv);

    await vault.edit({
      actor: PERSON,
      op: 'update',
      path: 'notes/broken.md',
      reason: 'fixed',
      changes: [{ path: 'notes/broken.md', content: '---\ntitle: fixed\n---\n', expectedHash: sha256(broken) }],
    });

    expect(tv.read('notes/broken.md')).toBe('---\ntitle: fixed\n---\n');
    expect(trailersOf(tv)[0]).toEqual(['Lucid-Actor', PERSON]);
  });
});

describe('repository states that refuse writes', () => {
  it('.git/index.lock present: refused as locked, naming .git/index.lock; nothing changes and the lock stays', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    fs.writeFileSync(path.join(tv.root, '.git', 'index.lock'), '');
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: 'new\n', expectedHash: sha256(NOTE_TEXT) }] }));

    expect(error.code).toBe('locked');
    expect(error.message).toContain('.git/index.lock');
    expect(snapshot(tv.root)).toEqual(before);
    expect(fs.existsSync(path.join(tv.root, '.git', 'index.lock'))).toBe(true);
    expect(findTempFiles(tv.root)).toEqual([]);
  });

  it.each([
    ['MERGE_HEAD', 'file', /merge/],
    ['CHERRY_PICK_HEAD', 'file', /cherry-pick/],
    ['REVERT_HEAD', 'file', /revert/],
    ['rebase-merge', 'dir', /rebase/],
    ['rebase-apply', 'dir', /rebase/],
  ])('.git/%s (an operation in progress): refused as repo_state, nothing changes', async (name, kind, what) => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    const marker = path.join(tv.root, '.git', name);
    if (kind === 'dir') fs.mkdirSync(marker);
    else fs.writeFileSync(marker, `${tv.head()}\n`);
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: 'new\n', expectedHash: sha256(NOTE_TEXT) }] }));

    expect(error.code).toBe('repo_state');
    expect(error.message).toMatch(what);
    expect(snapshot(tv.root)).toEqual(before);
  });

  // git.ts bug: assertWritableRepo runs `symbolic-ref -q HEAD` and waits for a throw, but simple-git
  // resolves a non-zero exit that printed nothing on stderr (`-q` prints nothing), so a detached HEAD
  // passes and the agent's commit moves the detached HEAD. Flip to `it` once fixed.
  it('a detached HEAD: refused as repo_state, nothing changes', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    tv.git(['checkout', '-q', '--detach', 'HEAD']);
    const vault = await openIn(tv);
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: 'new\n', expectedHash: sha256(NOTE_TEXT) }] }));

    expect(error.code).toBe('repo_state');
    expect(error.message).toMatch(/detached HEAD/);
    expect(snapshot(tv.root)).toEqual(before);
    expect(tv.git(['rev-parse', '--abbrev-ref', '--verify', 'HEAD']).trim()).toBe('HEAD');
  });

  // git.ts bug: assertWritableRepo looks for MERGE_HEAD and friends but not for unmerged index
  // entries; a conflicted `git stash pop` leaves those without MERGE_HEAD, and Lucid then commits the
  // conflict markers as the person's edit. Flip to `it` once fixed.
  it('unmerged paths from a conflicted stash pop: writes are refused as repo_state and no conflict markers are committed', async () => {
    const tv = tempVault({ [NOTE]: 'one\n', 'notes/b.md': 'b\n' });
    tv.write(NOTE, 'stashed change\n');
    tv.git(['stash', '-q']);
    tv.write(NOTE, 'committed change\n');
    tv.git(['commit', '-q', '-a', '-m', 'a later commit']);
    expect(() => tv.git(['stash', 'pop', '-q'])).toThrow();
    expect(tv.git(['status', '--porcelain'])).toBe(`UU ${NOTE}\n`);
    const vault = await openIn(tv);
    const before = snapshot(tv.root);
    const conflicted = tv.read(NOTE);

    const other = await refusal(edit(vault, { changes: [{ path: 'notes/b.md', content: 'b2\n', expectedHash: sha256('b\n') }] }));
    const same = await refusal(edit(vault, { changes: [{ path: NOTE, content: 'agent\n', expectedHash: sha256(conflicted) }] }));

    expect(other.code).toBe('repo_state');
    expect(other.message).toMatch(/unmerged|conflict/i);
    expect(same.code).toBe('repo_state');
    expect(snapshot(tv.root)).toEqual(before);
    expect(tv.git(['log', '-p', '--format=']).includes('<<<<<<<')).toBe(false);
  });

  it('a folder that is not a git repository is refused as not_a_repo, with what to do', async () => {
    const tv = tempVault({});
    const plain = tv.tempDir('plain');
    fs.writeFileSync(path.join(plain, 'a.md'), 'x\n');

    const error = await refusal(tv.open({ root: plain }));

    expect(error.code).toBe('not_a_repo');
    expect(error.message).toContain('lucid init');
    expect(fs.readdirSync(plain)).toEqual(['a.md']);
  });

  it('a commit git refuses (a held branch ref lock) puts every file back and leaves HEAD alone', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT, 'changelog.md': '# Changelog\n' });
    const vault = await openIn(tv);
    const refLock = path.join(tv.root, '.git', 'refs', 'heads', 'main.lock');
    fs.writeFileSync(refLock, '');
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: 'new\n', expectedHash: sha256(NOTE_TEXT) }] }));

    expect(['io_error', 'locked']).toContain(error.code);
    expect(error.message).toContain('main.lock');
    expect(tv.read(NOTE)).toBe(NOTE_TEXT);
    expect(snapshot(tv.root)).toEqual(before);
    expect(findTempFiles(tv.root)).toEqual([]);
    expect(fs.readdirSync(path.join(tv.root, '.lucid')).filter((name) => name.startsWith('index-'))).toEqual([]);
  });
});

describe('staying inside the vault', () => {
  it.each([
    ['../../etc/passwd'],
    ['/etc/passwd'],
    [`${'..%2F'.repeat(20)}canary.md`],
    ['%252e%252e%252fcanary.md'],
    ['..\\..\\canary.md'],
    ['notes/../../canary.md'],
    ['.git/config'],
    ['.git/hooks/post-commit'],
    ['.obsidian/plugins/x/main.js'],
    ['.lucid/vault.lock'],
    ['notes/.lucid-tmp-x'],
    ['notes/a\u0000.md'],
    ['notes/a\n.md'],
  ])('refuses to write, delete or read %j and leaves the vault and its surroundings unchanged', async (hostile) => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    // Where each hostile path would land if it were followed (the temp folder is shared with other
    // test files running in parallel, so its listing cannot be compared as a whole).
    const landings = [path.dirname(tv.root), path.dirname(path.dirname(tv.root)), path.parse(tv.root).root].map((dir) => path.join(dir, 'canary.md'));
    const passwd = () => (fs.existsSync('/etc/passwd') ? sha256(fs.readFileSync('/etc/passwd')) : null);
    const passwdBefore = passwd();
    const before = snapshot(tv.root);

    const write = await refusal(vault.edit({ actor: AGENT, op: 'create', path: hostile, reason: 'x', changes: [{ path: hostile, content: 'pwned\n' }] }));
    const remove = await refusal(vault.edit({ actor: AGENT, op: 'delete', path: hostile, reason: 'x', changes: [{ path: hostile, content: null }] }));
    const read = await refusal(vault.readNote(hostile));

    for (const error of [write, remove, read]) expect(['invalid_path', 'forbidden']).toContain(error.code);
    expect(snapshot(tv.root)).toEqual(before);
    expect(landings.filter((file) => fs.existsSync(file))).toEqual([]);
    expect(passwd()).toBe(passwdBefore);
  });

  it('a file symlink that points outside: write and delete are refused, reading is refused, the target is unchanged', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const outside = tv.tempDir('outside');
    const secret = path.join(outside, 'secret.md');
    fs.writeFileSync(secret, 'secret\n');
    fs.symlinkSync(secret, path.join(tv.root, 'notes', 'link.md'));
    const vault = await openIn(tv);
    const before = snapshot(tv.root);

    const write = await refusal(edit(vault, { changes: [{ path: 'notes/link.md', content: 'overwritten\n', expectedHash: sha256('secret\n') }] }));
    const writeUnchecked = await refusal(edit(vault, { changes: [{ path: 'notes/link.md', content: 'overwritten\n' }] }));
    const remove = await refusal(
      vault.edit({ actor: AGENT, op: 'delete', path: 'notes/link.md', reason: 'x', changes: [{ path: 'notes/link.md', content: null }] }),
    );
    const read = await refusal(vault.readNote('notes/link.md'));
    const bytes = await refusal(vault.readFileBytes('notes/link.md'));

    for (const error of [write, writeUnchecked, remove, read, bytes]) expect(error.code).toBe('forbidden');
    expect(fs.readFileSync(secret, 'utf8')).toBe('secret\n');
    expect(fs.readdirSync(outside)).toEqual(['secret.md']);
    expect(fs.lstatSync(path.join(tv.root, 'notes', 'link.md')).isSymbolicLink()).toBe(true);
    expect(snapshot(tv.root)).toEqual(before);
    expect((await vault.listNotes()).map((n) => n.path)).toEqual([NOTE]);
  });

  it('a folder symlink that points outside: creating, updating, deleting and reading through it are refused', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const outside = tv.tempDir('outside');
    fs.writeFileSync(path.join(outside, 'secret.md'), 'secret\n');
    fs.symlinkSync(outside, path.join(tv.root, 'linked'));
    const vault = await openIn(tv);
    const before = snapshot(tv.root);

    const create = await refusal(
      vault.edit({ actor: AGENT, op: 'create', path: 'linked/new.md', reason: 'x', changes: [{ path: 'linked/new.md', content: 'x\n', expectedHash: null }] }),
    );
    const nested = await refusal(
      vault.edit({ actor: AGENT, op: 'create', path: 'linked/deeper/new.md', reason: 'x', changes: [{ path: 'linked/deeper/new.md', content: 'x\n' }] }),
    );
    const update = await refusal(edit(vault, { changes: [{ path: 'linked/secret.md', content: 'overwritten\n' }] }));
    const remove = await refusal(
      vault.edit({ actor: AGENT, op: 'delete', path: 'linked/secret.md', reason: 'x', changes: [{ path: 'linked/secret.md', content: null }] }),
    );
    const read = await refusal(vault.readNote('linked/secret.md'));

    for (const error of [create, nested, update, remove, read]) expect(error.code).toBe('forbidden');
    expect(fs.readdirSync(outside)).toEqual(['secret.md']);
    expect(fs.readFileSync(path.join(outside, 'secret.md'), 'utf8')).toBe('secret\n');
    expect(snapshot(tv.root)).toEqual(before);
    expect((await vault.listNotes()).map((n) => n.path)).toEqual([NOTE]);
  });

  it('a vault opened through a symlink to its root works, on the canonical root', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const elsewhere = tv.tempDir('via');
    const link = path.join(elsewhere, 'vault-link');
    fs.symlinkSync(tv.root, link);
    const vault = await openIn(tv, { root: link });

    expect(vault.root).toBe(tv.root);
    const result = await edit(vault, { changes: [{ path: NOTE, content: 'through the link\n', expectedHash: sha256(NOTE_TEXT) }] });

    expect(tv.read(NOTE)).toBe('through the link\n');
    expect(result.commit).toBe(tv.head());
    expect(namesIn(tv)).toEqual(['changelog.md', NOTE]);
    expect((await vault.readNote(NOTE)).text).toBe('through the link\n');
    expect(fs.readdirSync(elsewhere)).toEqual(['vault-link']);
  });
});

/** Builds a VaultFs that fails one operation with `code` where `when` says so. */
function faultyFs(operation: 'writeNewFile' | 'fsyncDir' | 'rename', code: string, when: (target: string) => boolean = () => true): VaultFs {
  const fail = (target: string) => {
    if (!when(target)) return;
    throw Object.assign(new Error(`${code}: injected fault, ${operation} '${target}'`), { code });
  };
  return {
    ...nodeFs,
    writeNewFile: async (target, data, mode) => {
      if (operation === 'writeNewFile') fail(target);
      return nodeFs.writeNewFile(target, data, mode);
    },
    fsyncDir: async (target) => {
      if (operation === 'fsyncDir') fail(target);
      return nodeFs.fsyncDir(target);
    },
    rename: async (from, to) => {
      if (operation === 'rename') fail(to);
      return nodeFs.rename(from, to);
    },
  };
}

describe('file-system faults', () => {
  it.each([
    ['ENOSPC when writing the new file', 'writeNewFile', 'ENOSPC', /disk is full/],
    ['EIO when flushing the folder', 'fsyncDir', 'EIO', /input\/output error/],
    ['EACCES when renaming over the note', 'rename', 'EACCES', /permission denied/],
  ] as const)('%s: a clear io_error, the old content intact, no temp file, no commit', async (_label, operation, code, reason) => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT, 'changelog.md': '# Changelog\n' });
    const vault = await openIn(tv, { fs: faultyFs(operation, code) });
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: 'new text\n', expectedHash: sha256(NOTE_TEXT) }] }));

    expect(error.code).toBe('io_error');
    expect(error.message).toMatch(reason);
    expect(error.details?.errno).toBe(code);
    expect(tv.read(NOTE)).toBe(NOTE_TEXT);
    expect(findTempFiles(tv.root)).toEqual([]);
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('a failure writing the changelog puts the already written note back', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT, 'changelog.md': '# Changelog\n' });
    const changelogDir = tv.root;
    const vault = await openIn(tv, { fs: faultyFs('writeNewFile', 'ENOSPC', (target) => fs.realpathSync(path.dirname(target)) === changelogDir) });
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: 'new text\n', expectedHash: sha256(NOTE_TEXT) }] }));

    expect(error.code).toBe('io_error');
    expect(tv.read(NOTE)).toBe(NOTE_TEXT);
    expect(findTempFiles(tv.root)).toEqual([]);
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('a failed create leaves no new file and no new folder content behind', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv, { fs: faultyFs('rename', 'EACCES') });
    const before = snapshot(tv.root);

    const error = await refusal(
      vault.edit({ actor: AGENT, op: 'create', path: 'fresh/new.md', reason: 'x', changes: [{ path: 'fresh/new.md', content: 'x\n', expectedHash: null }] }),
    );

    expect(error.code).toBe('io_error');
    expect(tv.exists('fresh/new.md')).toBe(false);
    expect(findTempFiles(tv.root)).toEqual([]);
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('a rewrite keeps the file mode 0600', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    fs.chmodSync(path.join(tv.root, NOTE), 0o600);
    const vault = await openIn(tv);

    await edit(vault, { changes: [{ path: NOTE, content: 'private\n', expectedHash: sha256(NOTE_TEXT) }] });

    expect(fs.statSync(path.join(tv.root, NOTE)).mode & 0o777).toBe(0o600);
    expect(tv.read(NOTE)).toBe('private\n');
  });
});

describe('concurrent writers', () => {
  it('two writers with the same base hash: exactly one wins each time, the other gets a conflict (10 rounds)', async () => {
    const tv = tempVault({ [NOTE]: 'round 0\n' });
    const [first, second] = [await openIn(tv), await openIn(tv)];

    for (let round = 1; round <= 10; round += 1) {
      const commitsBefore = tv.commitCount();
      const [readA, readB] = await Promise.all([first.readNote(NOTE), second.readNote(NOTE)]);
      expect(readA.hash).toBe(readB.hash);
      let go!: () => void;
      const barrier = new Promise<void>((resolve) => {
        go = resolve;
      });
      const attempt = async (vault: Vault, who: string, base: string) => {
        await barrier;
        return edit(vault, { reason: `${who} round ${round}`, changes: [{ path: NOTE, content: `round ${round} by ${who}\n`, expectedHash: base }] });
      };
      const racing = Promise.allSettled([attempt(first, 'A', readA.hash), attempt(second, 'B', readB.hash)]);
      go();
      const outcomes = await racing;

      const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i === 0 ? 'A' : 'B'] : []));
      const lost = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toBeInstanceOf(VaultError);
      expect((lost[0] as VaultError).code).toBe('conflict');
      expect(tv.read(NOTE)).toBe(`round ${round} by ${won[0]}\n`);
      expect(showFile(tv, 'HEAD', NOTE)).toBe(`round ${round} by ${won[0]}\n`);
      expect(tv.commitCount()).toBe(commitsBefore + 1);
    }
    expect(changelogLinesOf(tv.read('changelog.md'))).toHaveLength(10);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('three processes appending 20 unique tokens each: every token lands exactly once, one commit per append', async () => {
    const workers = ['w1', 'w2', 'w3'];
    const perWorker = 20;
    const tv = tempVault({ 'notes/log.md': '# Log\n' });
    const barrierDir = tv.tempDir('barrier');
    const goFile = path.join(barrierDir, 'go');
    const before = tv.commitCount();

    const runs = workers.map((worker, i) => {
      const child = spawn(process.execPath, [...workerArgs(WORKER), tv.root, 'notes/log.md', worker, String(perWorker), String(1000 + i), goFile], {
        cwd: PROJECT_ROOT,
        env: tv.env as NodeJS.ProcessEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    });
    // A poll with no total of its own: the workers are other processes, and their ready files are the
    // only sign they are ready (each opens its vault first, which takes long on a loaded machine); a
    // worker that ended before it was ready ends the wait, and its exit is reported below.
    let ended = false;
    for (const run of runs) void run.then(() => (ended = true));
    while (!ended && workers.some((w) => !fs.existsSync(`${goFile}.ready-${w}`))) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    fs.writeFileSync(goFile, '');
    const results = await Promise.all(runs);

    expect(results.map((r) => ({ code: r.code, stderr: r.stderr }))).toEqual(workers.map(() => ({ code: 0, stderr: '' })));
    const summaries = results.map((r) => JSON.parse(r.stdout) as { worker: string; appended: number; commits: string[] });
    expect(summaries.map((s) => s.appended)).toEqual([perWorker, perWorker, perWorker]);

    const lines = tv.read('notes/log.md').split('\n').filter(Boolean);
    const expected = workers.flatMap((w) => Array.from({ length: perWorker }, (_, i) => `token-${w}-${String(i).padStart(4, '0')}`));
    for (const token of expected) expect(lines.filter((line) => line === token)).toHaveLength(1);
    expect(lines).toHaveLength(1 + expected.length);
    expect(lines[0]).toBe('# Log');

    const total = workers.length * perWorker;
    expect(tv.commitCount()).toBe(before + total);
    const ops = tv
      .git(['log', `-${total}`, '--format=%(trailers:key=Lucid-Op,valueonly)'])
      .split('\n')
      .filter(Boolean);
    expect(ops).toEqual(Array(total).fill('append'));
    const commits = new Set(summaries.flatMap((s) => s.commits));
    expect(commits.size).toBe(total);
    expect(changelogLinesOf(tv.read('changelog.md'))).toHaveLength(total);
    expect(tv.git(['status', '--porcelain'])).toBe('');
    expect(findTempFiles(tv.root)).toEqual([]);
  }, 180_000);
});

describe('locks and crash leftovers', () => {
  it('a vault lock held by a live writer makes the next writer wait, then give up as locked; nothing changes', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv, { lock: { waitMs: 300 } });
    fs.mkdirSync(path.join(tv.root, '.lucid', 'vault.lock'), { recursive: true });
    const before = snapshot(tv.root);

    const error = await refusal(edit(vault, { changes: [{ path: NOTE, content: 'new\n', expectedHash: sha256(NOTE_TEXT) }] }));

    expect(error.code).toBe('locked');
    expect(error.message).toContain('vault.lock');
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('a vault lock left by a crashed writer is taken over once it is stale', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv, { lock: { waitMs: 5_000 } });
    const lockDir = path.join(tv.root, '.lucid', 'vault.lock');
    fs.mkdirSync(lockDir, { recursive: true });
    const longAgo = new Date(Date.now() - 60_000);
    fs.utimesSync(lockDir, longAgo, longAgo);

    await edit(vault, { changes: [{ path: NOTE, content: 'new\n', expectedHash: sha256(NOTE_TEXT) }] });

    expect(tv.read(NOTE)).toBe('new\n');
    expect(namesIn(tv)).toEqual(['changelog.md', NOTE]);
    expect(fs.existsSync(lockDir)).toBe(false);
  });

  it('temp files left by a crash are never listed, never committed, and swept once old', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    // The sweep ages temp files by the wall clock: a fixed one here, with file times set around it.
    const now = new Date(2026, 10, 15, 10, 0, 0);
    const vault = await openVault({ root: tv.root, env: tv.env, clock: () => new Date(now), wallClock: () => new Date(now) });
    opened.push(vault);
    const leftover = path.join(tv.root, 'notes', '.lucid-tmp-abcdefghij');
    fs.writeFileSync(leftover, 'half a note');
    const fresh = path.join(tv.root, 'notes', '.lucid-tmp-klmnopqrst');
    fs.writeFileSync(fresh, 'being written right now');
    const longAgo = new Date(now.getTime() - 5 * 60_000);
    fs.utimesSync(leftover, longAgo, longAgo);
    const justNow = new Date(now.getTime() - 5_000);
    fs.utimesSync(fresh, justNow, justNow);

    expect((await vault.listNotes()).map((n) => n.path)).toEqual([NOTE]);
    expect(tv.git(['status', '--porcelain'])).toBe('');
    await edit(vault, { changes: [{ path: NOTE, content: 'new\n', expectedHash: sha256(NOTE_TEXT) }] });
    expect(namesIn(tv)).toEqual(['changelog.md', NOTE]);
    expect(tv.git(['log', '--all', '--name-only', '--format=']).includes('.lucid-tmp-')).toBe(false);

    expect(await vault.sweepTempFiles()).toEqual(['notes/.lucid-tmp-abcdefghij']);
    expect(fs.existsSync(leftover)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
  });

  it("the sweep compares file times with the system's time, not the vault's clock: a clock years ahead deletes no fresh temp file", async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const farAhead = new Date(Date.now() + 10 * 365 * 24 * 3600_000);
    const vault = await openIn(tv, { clock: () => new Date(farAhead) });
    const fresh = path.join(tv.root, 'notes', '.lucid-tmp-klmnopqrst');
    fs.writeFileSync(fresh, 'another writer is writing this right now');
    const leftover = path.join(tv.root, 'notes', '.lucid-tmp-abcdefghij');
    fs.writeFileSync(leftover, 'half a note');
    const fiveMinutesAgo = new Date(Date.now() - 5 * 60_000);
    fs.utimesSync(leftover, fiveMinutesAgo, fiveMinutesAgo);

    expect(await vault.sweepTempFiles()).toEqual(['notes/.lucid-tmp-abcdefghij']);
    expect(fs.existsSync(fresh)).toBe(true);
    expect(fs.existsSync(leftover)).toBe(false);
  });
});

describe('changelog rotation', () => {
  it("the first edit in December moves November's lines to changelog/2026-11.md in the same commit", async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const clock = steppingClock(new Date(2026, 10, 20, 9, 0));
    const vault = await openIn(tv, { clock });
    const nov1 = await edit(vault, { reason: 'november one', changes: [{ path: NOTE, content: 'nov 1\n' }] });
    const nov2 = await edit(vault, { reason: 'november two', changes: [{ path: NOTE, content: 'nov 2\n' }] });
    clock.set(new Date(2026, 11, 1, 9, 30));

    const dec = await edit(vault, { reason: 'december one', changes: [{ path: NOTE, content: 'dec 1\n' }] });

    expect(nameStatus(tv)).toEqual(['A\tchangelog/2026-11.md', 'M\tchangelog.md', `M\t${NOTE}`]);
    const current = changelogLinesOf(showFile(tv, 'HEAD', 'changelog.md'));
    expect(current).toHaveLength(1);
    expect(current[0].startsWith('- 2026-12-01 09:30 ')).toBe(true);
    expect(current[0].endsWith(`^${dec.editId}`)).toBe(true);
    const archive = showFile(tv, 'HEAD', 'changelog/2026-11.md');
    expect(archive.split('\n')[0]).toBe('# Changelog 2026-11');
    const archived = changelogLinesOf(archive);
    expect(archived.map((line) => parseChangelogLine(line)?.editId)).toEqual([nov2.editId, nov1.editId]);
    expect(archived.every((line) => line.startsWith('- 2026-11-20 '))).toBe(true);
    expect(tv.read('changelog/2026-11.md')).toBe(archive);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('agents cannot write the changelog or its archives themselves', async () => {
    const tv = tempVault({ 'changelog.md': '# Changelog\n' });
    const vault = await openIn(tv);
    const before = snapshot(tv.root);

    const current = await refusal(edit(vault, { changes: [{ path: 'changelog.md', content: '- forged\n' }] }));
    const archive = await refusal(edit(vault, { changes: [{ path: 'changelog/2026-10.md', content: '- forged\n' }] }));

    expect(current.code).toBe('forbidden');
    expect(archive.code).toBe('forbidden');
    expect(snapshot(tv.root)).toEqual(before);
  });
});

describe('reading hostile notes', () => {
  it('a ---js note is listed as invalid_frontmatter and its code never runs, whatever reads it', async () => {
    const canary = path.join(os.tmpdir(), `lucid-canary-${randomBytes(6).toString('hex')}`);
    const evil = `---js\nrequire('fs').writeFileSync(${JSON.stringify(canary)}, 'pwned')\n---\n\nBody of the evil note.\n`;
    const shouty = `---JavaScript  \nrequire('fs').writeFileSync(${JSON.stringify(canary)}, 'pwned')\n---\n`;
    const tv = tempVault({ 'notes/evil.md': evil, 'notes/shouty.md': shouty, [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    try {
      const notes = await vault.listNotes();
      const byPath = new Map(notes.map((n) => [n.path, n]));
      expect(byPath.get('notes/evil.md')?.problem).toBe('invalid_frontmatter');
      expect(byPath.get('notes/evil.md')?.problemMessage).toMatch(/not supported/);
      expect(byPath.get('notes/evil.md')?.text).toBe(evil);
      expect(byPath.get('notes/shouty.md')?.problem).toBe('invalid_frontmatter');
      expect(byPath.get(NOTE)?.problem).toBeNull();

      expect((await vault.readNote('notes/evil.md')).frontmatter).toEqual({});
      const lint = await vault.lint();
      expect(lint.unparseable.map((u) => u.path).sort()).toEqual(['notes/evil.md', 'notes/shouty.md']);
      await vault.search('evil note body');
      const refused = await refusal(edit(vault, { changes: [{ path: 'notes/evil.md', content: '---\ntitle: x\n---\n', expectedHash: sha256(evil) }] }));
      expect(refused.code).toBe('invalid_frontmatter');
      expect(tv.read('notes/evil.md')).toBe(evil);
      expect(fs.existsSync(canary)).toBe(false);
    } finally {
      fs.rmSync(canary, { force: true });
    }
  });

  it('listNotes never throws on binary bytes or invalid UTF-8 and reports each with its problem', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);
    const latin1 = Buffer.from('---\ntitle: caf\xe9\n---\n', 'latin1');
    const tv = tempVault({ 'notes/image.md': png, 'notes/latin1.md': latin1, [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);

    const notes = await vault.listNotes();

    const byPath = new Map(notes.map((n) => [n.path, n]));
    expect([...byPath.keys()].sort()).toEqual(['notes/a.md', 'notes/image.md', 'notes/latin1.md']);
    expect(byPath.get('notes/image.md')).toMatchObject({ problem: 'binary', text: null, hash: sha256(png) });
    expect(byPath.get('notes/latin1.md')).toMatchObject({ problem: 'invalid_utf8', text: null, hash: sha256(latin1) });
    const lint = await vault.lint();
    expect(lint.unparseable.map((u) => [u.path, u.problem]).sort()).toEqual([
      ['notes/image.md', 'binary'],
      ['notes/latin1.md', 'invalid_utf8'],
    ]);

    const before = snapshot(tv.root);
    for (const [file, bytes] of [
      ['notes/image.md', png],
      ['notes/latin1.md', latin1],
    ] as const) {
      const error = await refusal(edit(vault, { changes: [{ path: file, content: 'replaced\n', expectedHash: sha256(bytes) }] }));
      expect(error.message).toContain(file);
      expect(tv.readBytes(file).equals(bytes)).toBe(true);
    }
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('readNote notices a change that kept the size and the modification time (hash, not mtime)', async () => {
    const tv = tempVault({ [NOTE]: 'aaaa\n' });
    const vault = await openIn(tv);
    const abs = path.join(tv.root, NOTE);
    const stamp = new Date(2026, 0, 1, 12, 0, 0);
    fs.utimesSync(abs, stamp, stamp);
    const first = await vault.readNote(NOTE);
    fs.writeFileSync(abs, 'bbbb\n');
    fs.utimesSync(abs, stamp, stamp);

    const second = await vault.readNote(NOTE);

    expect(first.hash).toBe(sha256('aaaa\n'));
    expect(second.hash).toBe(sha256('bbbb\n'));
    expect(second.text).toBe('bbbb\n');
  });
});
