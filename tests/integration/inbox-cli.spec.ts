import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main';
import type { Io } from '../../cli/shared';
import { initVault, proposeToInbox, startSession } from '../../lib/vault/index';
import { changelogLines, filesOf, trailersOf } from '../support/mcp';
import { makeTempVault, sha256, snapshot as fullSnapshot, type TempVault, type VaultSnapshot } from '../support/temp-vault';

/** `lucid inbox`: the same operations from a terminal, with the CLI's usage text, exit codes and messages. */

const A = '# A\n\none\ntwo\nthree\nfour\nfive\n';
const vaults: TempVault[] = [];
afterEach(() => {
  for (const tv of vaults.splice(0)) tv.cleanup();
});

/** The vault's files, HEAD and git status; Lucid's local state in .lucid/ (indexes a read may refresh) left out. */
function snapshot(root: string): VaultSnapshot {
  const taken = fullSnapshot(root);
  return { ...taken, files: Object.fromEntries(Object.entries(taken.files).filter(([file]) => !file.startsWith('.lucid/'))) };
}

/** A vault with two proposals of agent `cli-agent`: an update of notes/a.md and an append to notes/b.md. */
async function setup(): Promise<{ tv: TempVault; update: string; append: string; session: string }> {
  const tv = makeTempVault({ 'notes/a.md': A, 'notes/b.md': '# B\n' });
  vaults.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  const vault = await tv.open();
  try {
    const { session } = await startSession(vault, { agent: 'cli-agent', task: 'propose' });
    const update = await proposeToInbox(vault, { session, target: 'notes/a.md', action: 'update', content: A.replace('five', 'FIVE'), reason: 'shout five' });
    const append = await proposeToInbox(vault, { session, target: 'notes/b.md', action: 'append', content: 'more\n', reason: 'add more', confidence: 0.5 });
    const id = (p: string) => path.basename(p, '.md');
    return { tv, update: id(update.inbox_path), append: id(append.inbox_path), session };
  } finally {
    vault.close();
  }
}

/** Runs the CLI in this process, as `lucid inbox ...`, collecting what it prints. */
async function inbox(tv: TempVault, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    out: (t) => {
      stdout += t.endsWith('\n') ? t : `${t}\n`;
    },
    err: (t) => {
      stderr += t.endsWith('\n') ? t : `${t}\n`;
    },
    cwd: tv.tempDir('cwd'),
    env: tv.env,
  };
  const code = await main(['inbox', ...args, '--vault', tv.root], io);
  return { code, stdout, stderr };
}

describe('lucid inbox', () => {
  it('lists the queue oldest first, with filters and --json', async () => {
    const { tv, update, append } = await setup();
    const listed = await inbox(tv, []);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.indexOf(update)).toBeLessThan(listed.stdout.indexOf(append));
    expect(listed.stdout).toContain(`${update}  update notes/a.md`);
    expect(listed.stdout).toContain('by agent:cli-agent');
    expect(listed.stdout).toContain('(confidence 0.5): add more');
    expect(listed.stdout).toContain('2 items. Next: lucid inbox show ID');
    const json = JSON.parse((await inbox(tv, ['list', '--action', 'append', '--json'])).stdout);
    expect(json.map((i: { id: string }) => i.id)).toEqual([append]);
    expect((await inbox(tv, ['list', '--agent', 'someone-else'])).stdout).toContain('No inbox items match.');
    const bad = await inbox(tv, ['list', '--action', 'rename']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--action must be one of create, update, append, delete/);
  });

  it('shows an item with its diff, and the merge when the note changed since', async () => {
    const { tv, update } = await setup();
    const shown = await inbox(tv, ['show', update]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('update notes/a.md');
    expect(shown.stdout).toContain('reason: shout five');
    expect(shown.stdout).toContain('--- notes/a.md\n+++ notes/a.md');
    expect(shown.stdout).toContain('-five\n+FIVE');

    tv.write('notes/a.md', A.replace('one', 'ONE'));
    tv.git(['commit', '-q', '-am', 'my edit']);
    const merged = await inbox(tv, ['show', `${update}.md`]);
    expect(merged.stdout).toContain('notes/a.md changed since the proposal');
    expect(merged.stdout).toContain(A.replace('one', 'ONE').replace('five', 'FIVE'));
    expect(merged.stdout).toMatch(/lucid inbox accept \S+ --text-file FILE --target-hash [0-9a-f]{64}/);
  });

  it('accepts and rejects in one commit each; an edited accept takes --text-file', async () => {
    const { tv, update, append, session } = await setup();
    const accepted = await inbox(tv, ['accept', append]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(new RegExp(`^Accepted ${append} into notes/b\\.md \\(edit e[a-z2-7]{12}, commit [0-9a-f]{7}\\)\\.`));
    expect(tv.read('notes/b.md')).toBe('# B\n\nmore\n');
    expect(trailersOf(tv)).toMatchObject({ 'Lucid-Op': 'accept', 'Lucid-Actor': 'human:Test Person', 'Lucid-Session': session });

    const file = path.join(tv.tempDir('text'), 'a.md');
    fs.writeFileSync(file, '# A\n\nmy own words\n');
    const lines = changelogLines(tv).length;
    const blind = await inbox(tv, ['accept', update, '--text-file', file]);
    expect(blind.code).toBe(2);
    expect(blind.stderr).toMatch(/--text-file needs --target-hash/);
    expect(changelogLines(tv)).toHaveLength(lines);
    const edited = await inbox(tv, ['accept', update, '--text-file', file, '--target-hash', sha256(tv.read('notes/a.md')), '--reason', 'said it better']);
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toContain('with your text');
    expect(tv.read('notes/a.md')).toBe('# A\n\nmy own words\n');
    expect(changelogLines(tv)).toHaveLength(lines + 1);
    expect(changelogLines(tv)[0]).toContain('(edited before accepting): said it better');
  });

  it('rejects with a reason', async () => {
    const { tv, update } = await setup();
    const commits = tv.commitCount();
    const rejected = await inbox(tv, ['reject', update, '--reason', 'five is fine']);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect(rejected.stdout).toMatch(/^Rejected .* The agent hears it at its next start_session\./);
    expect(tv.commitCount()).toBe(commits + 1);
    // The CLI runs on today's clock, after the setup's November: the month's first edit also moves November's lines to changelog/.
    expect(filesOf(tv).filter((f) => !f.startsWith('changelog/'))).toEqual(['changelog.md', `inbox/${update}.md`]);
    expect(tv.git(['log', '-1', '--format=%B'])).toContain('five is fine');
  });

  it('says what went wrong and how to go on, with exit 2 for usage and 1 for a refusal, changing nothing', async () => {
    const { tv, update } = await setup();
    const before = snapshot(tv.root);
    const noId = await inbox(tv, ['accept']);
    expect(noId.code).toBe(2);
    expect(noId.stderr).toMatch(/inbox accept needs one item id.*lucid inbox list/);
    expect((await inbox(tv, ['frobnicate'])).code).toBe(2);
    expect((await inbox(tv, ['reject', update, '--text-file', 'x'])).code).toBe(2);
    const missing = await inbox(tv, ['accept', 'no-such-item']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/There is no inbox item inbox\/no-such-item\.md.*lucid inbox list/);
    const markers = path.join(tv.tempDir('text'), 'm.md');
    fs.writeFileSync(markers, '<<<<<<< the note now\na\n=======\nb\n>>>>>>> the proposal\n');
    const marked = await inbox(tv, ['accept', update, '--text-file', markers, '--target-hash', sha256(tv.read('notes/a.md'))]);
    expect(marked.code).toBe(1);
    expect(marked.stderr).toMatch(/conflict markers/);
    const unreadable = await inbox(tv, ['accept', update, '--text-file', path.join(tv.root, 'nope.md'), '--target-hash', 'none']);
    expect(unreadable.code).toBe(2);
    expect(snapshot(tv.root)).toEqual(before);

    tv.write('notes/a.md', A.replace('one', 'ONE'));
    tv.git(['commit', '-q', '-am', 'my edit']);
    const changed = snapshot(tv.root);
    const refused = await inbox(tv, ['accept', update]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/notes\/a\.md changed since agent:cli-agent proposed this.*lucid inbox show/);
    expect(snapshot(tv.root)).toEqual(changed);
  });

  it('is a verb of the real binary, with its usage text', () => {
    const result = spawnSync(path.resolve('bin/lucid'), ['inbox', '--help'], { encoding: 'utf8', timeout: 60_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('lucid inbox [list|show ID|accept ID|reject ID]');
    const top = spawnSync(path.resolve('bin/lucid'), ['--help'], { encoding: 'utf8', timeout: 60_000 });
    expect(top.stdout).toMatch(/inbox\s+List, show, accept or reject/);
  });
});
