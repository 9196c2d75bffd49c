import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { endSession, initVault, openVault, startSession, type Vault } from '../../lib/vault/index';
import { spawnGit, type GitInvocation } from '../../lib/vault/git/runner';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/**
 * Issue 18: start_session answers from the indexes. It never parses every note, and after its first
 * call in a process it asks git only about the notes that can have changed, yet still sees every
 * edit a person saved or staged.
 */

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

const project = (name: string) => `---\ntype: project\nname: ${name}\nstatus: active\n---\n\n# ${name}\n`;
const decision = (title: string) => `---\ntype: decision\ndate: 2026-11-01\nproject: "[[projects/heron]]"\nstatus: accepted\n---\n\n# ${title}\n`;

/** A vault of `filler` ordinary notes beside a project, its decision and a skill, with a git runner that records every `git status`. */
async function setup(filler: number): Promise<{ tv: TempVault; vault: Vault; statuses: string[][] }> {
  const files: Record<string, string> = {
    'projects/heron.md': project('Heron'),
    'decisions/heron-sqlite.md': decision('Keep the Heron queue in SQLite'),
    'skills/import-retries.md': '---\nname: import-retries\nversion: 1\ntrigger: retries in an importer\nlast_updated: 2026-11-01\n---\n\n# Import retries\n',
    'notes/a.md': '# A\n\nThe importer retries timeouts.\n',
    'notes/b.md': '# B\n',
    'notes/c.md': '# C\n',
  };
  for (let i = 0; i < filler; i += 1) files[`filler/note-${i}.md`] = `# Filler ${i}\n\nGardening, cooking and travel, nothing about work ${i}.\n`;
  const tv = makeTempVault(files);
  vaults.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  const statuses: string[][] = [];
  const git = (invocation: GitInvocation) => {
    if (invocation.args.includes('status')) statuses.push([...invocation.args]);
    return spawnGit(invocation);
  };
  const vault = await openVault({ root: tv.root, env: tv.env, git });
  opened.push(vault);
  return { tv, vault, statuses };
}

const start = (vault: Vault) => startSession(vault, { agent: 'test-agent', task: 'Add retries to the Heron importer' });

/** The pathspecs of a recorded `git status` (what follows `--`). */
const pathspecs = (args: string[]) => args.slice(args.indexOf('--') + 1);

describe('start_session reads the indexes, not the whole vault', () => {
  it('parses no note it does not list or check, and none again while they are unchanged', async () => {
    const { vault } = await setup(300);
    vault.listNotes = () => Promise.reject(new Error('start_session must not list every note'));
    const reads: string[] = [];
    const readFileBytes = vault.readFileBytes.bind(vault);
    vault.readFileBytes = (p: string) => {
      reads.push(p);
      return readFileBytes(p);
    };
    const first = await start(vault);
    expect(first.project).toBe('projects/heron.md');
    expect(first.read_first.map((r) => r.path)).toEqual(
      expect.arrayContaining(['projects/heron.md', 'decisions/heron-sqlite.md', 'skills/import-retries.md', 'notes/a.md']),
    );
    // The project, its decision, the skill and the search hits: a handful of the 306 notes.
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.length).toBeLessThan(20);
    expect(reads.filter((p) => p.startsWith('filler/'))).toEqual([]);
    reads.length = 0;
    const second = await start(vault);
    expect(second.read_first).toEqual(first.read_first);
    expect(reads).toEqual([]);
  });

  it('after the first call asks git only about the notes that changed, and still reports every uncommitted edit', async () => {
    const { tv, vault, statuses } = await setup(20);
    const uncommitted = async () =>
      (await start(vault)).since_last_session.corrections
        .filter((c) => c.changes.some((ch) => ch.kind === 'uncommitted'))
        .map((c) => [c.path, c.changes[0].status]);

    expect(await uncommitted()).toEqual([]);
    expect(statuses.map(pathspecs)).toEqual([['.']]);

    // Saved on disk by a person: only that note is asked about.
    statuses.length = 0;
    fs.appendFileSync(path.join(tv.root, 'notes/a.md'), '\nA line the person added.\n');
    expect(await uncommitted()).toEqual([['notes/a.md', 'modified']]);
    expect(statuses.map(pathspecs)).toEqual([[':(literal)notes/a.md']]);

    // Nothing changed since: git is not asked at all, and the edit is still reported.
    statuses.length = 0;
    expect(await uncommitted()).toEqual([['notes/a.md', 'modified']]);
    expect(statuses).toEqual([]);

    // Deleted on disk.
    fs.rmSync(path.join(tv.root, 'notes/c.md'));
    expect(await uncommitted()).toEqual([
      ['notes/a.md', 'modified'],
      ['notes/c.md', 'deleted'],
    ]);

    // The person commits both: HEAD moved, the notes its commit touched are asked about again.
    tv.git(['add', '-A']);
    tv.git(['commit', '-q', '-m', 'my edits']);
    statuses.length = 0;
    expect(await uncommitted()).toEqual([]);
    expect(statuses.map(pathspecs)).toEqual([[':(literal)notes/a.md', ':(literal)notes/c.md']]);

    // Staged out of git's index without touching the file or HEAD: the whole vault is asked again.
    tv.git(['rm', '-q', '--cached', 'notes/b.md']);
    statuses.length = 0;
    expect(await uncommitted()).toEqual([['notes/b.md', 'modified']]);
    expect(statuses.map(pathspecs)).toEqual([['.']]);
  });
});

describe("a project's notes come from the index whole", () => {
  it('lists the newest session of a project with more notes than a search returns', async () => {
    const { tv, vault } = await setup(0);
    // 250 decisions that name Heron many times: a search for the project would rank them all above its sessions.
    for (let i = 0; i < 250; i += 1)
      tv.write(`decisions/heron-${String(i).padStart(3, '0')}.md`, decision(`Heron Heron importer choice ${i}`).replace('# ', '# Heron '));
    const first = await start(vault);
    expect(first.project).toBeTruthy();
    await endSession(vault, { session: first.session, summary: 'Added the retry loop to the importer.' });
    const second = await start(vault);
    const last = second.read_first.find((r) => r.why.startsWith('the last work on Heron'));
    expect(last?.path).toBe(`sessions/${first.session}.md`);
  });
});
