import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { endSession, initVault, openVault, proposeToInbox, startSession, upgradeInstall, type Vault } from '../../lib/vault/index';
import { testGitEnv } from '../support/fixtures';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/** The corner cases of "since your last session", on fresh temp repositories. */

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

async function installed(files: Record<string, string> = { 'notes/a.md': '# A\n' }): Promise<{ tv: TempVault; vault: Vault }> {
  const tv = makeTempVault(files);
  vaults.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  const vault = await tv.open();
  opened.push(vault);
  return { tv, vault };
}

/** A session of agent `slug` that proposes `proposals` (target → action) and ends; returns the inbox paths. */
async function sessionProposing(vault: Vault, proposals: [string, 'create' | 'append'][]): Promise<string[]> {
  const { session } = await startSession(vault, { agent: 'test-agent', task: 'write things down' });
  const paths: string[] = [];
  for (const [target, action] of proposals) {
    const result = await proposeToInbox(vault, { session, target, action, content: `# ${target}\n\nproposed\n`, reason: `about ${target}` });
    paths.push(result.inbox_path);
  }
  await endSession(vault, { session, summary: 'done', outcome: 'done' });
  return paths;
}

const since = async (vault: Vault) => (await startSession(vault, { agent: 'test-agent', task: 'next' })).since_last_session;

describe('since your last session, corner cases', () => {
  it('inbox items deleted or moved out on disk, not committed: rejected, and moved to where they went', async () => {
    const { tv, vault } = await installed();
    const [rejected, moved] = await sessionProposing(vault, [
      ['notes/cards.md', 'create'],
      ['notes/later.md', 'create'],
    ]);
    fs.rmSync(path.join(tv.root, rejected));
    fs.mkdirSync(path.join(tv.root, 'someday'));
    fs.renameSync(path.join(tv.root, moved), path.join(tv.root, 'someday/later.md'));
    const result = await since(vault);
    const byPath = new Map(result.corrections.map((c) => [c.path, c]));
    expect(byPath.get('notes/cards.md')?.changes).toEqual([
      expect.objectContaining({ kind: 'rejected', commit: null, proposal: expect.objectContaining({ inbox_path: rejected, yours: true }) }),
    ]);
    expect(byPath.get('notes/later.md')?.changes).toEqual([expect.objectContaining({ kind: 'moved', commit: null, moved_to: 'someday/later.md' })]);
    // The moved file is the proposal, not a new note of the person's.
    expect(byPath.has('someday/later.md')).toBe(false);
  });

  it('a plain git revert of the commit that filed a proposal is a rejection in the words of the revert', async () => {
    const { tv, vault } = await installed();
    const [proposal] = await sessionProposing(vault, [['notes/cards.md', 'create']]);
    const filed = tv.git(['log', '-1', '--format=%H', '--', proposal]).trim();
    tv.git(['revert', '--no-edit', filed]);
    tv.git(['commit', '--amend', '-q', '-m', `Revert the card proposal\n\nWe never store card numbers.\n\nThis reverts commit ${filed}.`]);
    const result = await since(vault);
    expect(result.corrections).toEqual([
      expect.objectContaining({
        path: 'notes/cards.md',
        changes: [expect.objectContaining({ kind: 'rejected', reason: 'Revert the card proposal\n\nWe never store card numbers.' })],
      }),
    ]);
  });

  it("reads a new note through the vault's confinement: a link to a file outside is never read", async () => {
    const { tv, vault } = await installed();
    const outside = tv.tempDir('outside');
    fs.writeFileSync(path.join(outside, 'credentials'), 'aws_secret = OUTSIDE-THE-VAULT\n');
    fs.symlinkSync(path.join(outside, 'credentials'), path.join(tv.root, 'notes/linked.md'));
    tv.write('notes/fresh.md', '# Fresh\n\nWritten in Obsidian.\n');
    const result = await since(vault);
    const byPath = new Map(result.corrections.map((c) => [c.path, c]));
    expect(byPath.get('notes/fresh.md')?.changes[0]).toMatchObject({
      kind: 'uncommitted',
      status: 'added',
      lines: ['+ # Fresh', '+', '+ Written in Obsidian.'],
    });
    expect(JSON.stringify(result)).not.toContain('OUTSIDE-THE-VAULT');
  });

  it('counts what it cuts: notes past twenty, changes past five, and a commit adding five notes is not an import', async () => {
    const { tv, vault } = await installed();
    for (let i = 0; i < 25; i += 1) {
      tv.write(`notes/n${i}.md`, `# N${i}\n`);
      tv.git(['add', '-A']);
      tv.git(['commit', '-q', '-m', `note ${i}`]);
    }
    for (let i = 0; i < 7; i += 1) {
      tv.write('notes/a.md', `# A\n\nversion ${i}\n`);
      tv.git(['commit', '-q', '-am', `a, version ${i}`]);
    }
    for (let i = 0; i < 5; i += 1) tv.write(`weekly/m${i}.md`, `# Meeting ${i}\n`);
    tv.git(['add', '-A']);
    tv.git(['commit', '-q', '-m', "this week's meeting notes"]);
    const result = await since(vault);
    // The vault's root commit is an import; this week's five notes are not.
    expect(result.imports.map((i) => [i.reason, i.notes])).toEqual([['initial', 1]]);
    expect(result.corrections).toHaveLength(20);
    expect(result.corrections.slice(0, 5).map((c) => c.path)).toEqual(['weekly/m0.md', 'weekly/m1.md', 'weekly/m2.md', 'weekly/m3.md', 'weekly/m4.md']);
    const a = result.corrections.find((c) => c.path === 'notes/a.md');
    expect(a?.changes.map((c) => c.reason)).toEqual(['a, version 6', 'a, version 5', 'a, version 4', 'a, version 3', 'a, version 2']);
    expect(a?.more_changes).toBe(2);
    // 5 meeting notes + a + 25 new notes = 31 notes; 20 listed.
    expect(result.more_notes).toBe(11);
  });

  it('in a vault that is a folder of a larger repository, reports only the vault’s notes', async () => {
    const env = testGitEnv();
    const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-enclosing-')));
    const git = (...args: string[]) => execFileSync('git', args, { cwd: top, encoding: 'utf8', env: env as NodeJS.ProcessEnv });
    try {
      git('init', '-q', '-b', 'main');
      git('config', 'user.name', 'Owner');
      git('config', 'user.email', 'owner@example.invalid');
      fs.mkdirSync(path.join(top, 'docs'));
      fs.mkdirSync(path.join(top, 'vault/notes'), { recursive: true });
      fs.writeFileSync(path.join(top, 'README.md'), '# Code\n');
      fs.writeFileSync(path.join(top, 'vault/notes/a.md'), '# A\n');
      git('add', '-A');
      git('commit', '-q', '-m', 'start');
      await initVault({ dir: path.join(top, 'vault'), env });
      fs.writeFileSync(path.join(top, 'README.md'), '# Code\n\nMore.\n');
      fs.writeFileSync(path.join(top, 'docs/guide.md'), '# Guide\n');
      fs.writeFileSync(path.join(top, 'vault/notes/a.md'), '# A\n\nCorrected.\n');
      git('add', '-A');
      git('commit', '-q', '-m', 'Docs and a correction');
      fs.writeFileSync(path.join(top, 'README.md'), '# Code\n\nUncommitted.\n');
      const vault = await openVault({ root: path.join(top, 'vault'), env });
      try {
        const result = await since(vault);
        expect(result.corrections.map((c) => c.path)).toEqual(['notes/a.md']);
        expect(result.corrections[0].changes).toEqual([expect.objectContaining({ kind: 'edited', reason: 'Docs and a correction' })]);
      } finally {
        vault.close();
      }
    } finally {
      fs.rmSync(top, { recursive: true, force: true });
    }
  });

  it('the one-time upgrade leaves a .gitattributes the person is editing alone, and runs once it is committed', async () => {
    const { tv, vault } = await installed();
    tv.git(['rm', '-q', '.gitattributes']);
    tv.git(['commit', '-q', '-m', 'an install from before']);
    tv.write('.gitattributes', '*.png binary\n');
    const commits = tv.commitCount();
    expect(await upgradeInstall(vault)).toEqual([]);
    expect(tv.commitCount()).toBe(commits);
    expect(tv.read('.gitattributes')).toBe('*.png binary\n');
    tv.git(['add', '.gitattributes']);
    tv.git(['commit', '-q', '-m', 'binary images']);
    expect(await upgradeInstall(vault)).toEqual(['.gitattributes']);
    expect(tv.read('.gitattributes')).toContain('/changelog.md merge=union');
  });
});
