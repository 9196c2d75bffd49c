import { fstatSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs, type VaultFs } from '../../lib/vault/fs';
import { spawnGit, type GitRunner } from '../../lib/vault/git/runner';
import { seededIds } from '../../lib/vault/ids';
import { startSession, writeNote } from '../../lib/vault/index';
import { frontmatterParses } from '../../lib/vault/notes/parse-count';
import { openVault, type Vault } from '../../lib/vault/vault';
import { DEFAULT_START, makeTempVault, steppingClock, type TempVault } from '../support/temp-vault';

// What one agent append costs, pinned so the figure cannot creep back. Before issue 7 the same
// append read the note 3 times, parsed its YAML 7 times (8 with a cold cache) and ran 12 git
// processes; see docs/performance.md.

const NOTE = 'notes/plan.md';
const NOTE_TEXT = '---\ntitle: Plan\ntags:\n  - atlas\n---\n# Plan\n\nFirst idea.\n';

let tv: TempVault | null = null;
let vault: Vault | null = null;
afterEach(() => {
  vault?.close();
  tv?.cleanup();
  vault = null;
  tv = null;
});

/** A vault whose file reads and git processes are counted. */
async function countedVault(files: Record<string, string>) {
  tv = makeTempVault(files);
  const reads: string[] = [];
  const git: string[][] = [];
  const fs: VaultFs = {
    ...nodeFs,
    readFile: async (file) => {
      reads.push(file);
      return nodeFs.readFile(file);
    },
    // Reads confined to the vault go through a descriptor: counted as a read of the file it holds.
    readFd: async (fd) => {
      const held = fstatSync(fd);
      const note = statSync(path.join(tv?.root ?? '', NOTE), { throwIfNoEntry: false });
      reads.push(note && note.ino === held.ino && note.dev === held.dev ? path.join(tv?.root ?? '', NOTE) : `fd:${fd}`);
      return nodeFs.readFd(fd);
    },
  };
  const run: GitRunner = async (invocation) => {
    git.push([...invocation.args]);
    return spawnGit(invocation);
  };
  vault = await openVault({ root: tv.root, env: tv.env, clock: steppingClock(DEFAULT_START), ids: seededIds(7), fs, git: run });
  const session = (await startSession(vault, { agent: 'tester', task: 'measure one append' })).session;
  const abs = path.join(tv.root, NOTE);
  const reset = () => {
    reads.length = 0;
    git.length = 0;
    frontmatterParses.count = 0;
  };
  const cost = () => ({
    noteReads: reads.filter((file) => file === abs).length,
    parses: frontmatterParses.count,
    git: git.map((args) => args[0]),
  });
  return { tv, vault, session, reset, cost };
}

const COMMIT = ['read-tree', 'update-index', 'write-tree', 'commit-tree', 'update-ref', 'update-index'];

describe('what one agent append costs', () => {
  it('one read of the note, one front-matter parse, nine git processes', async () => {
    const { tv, vault, session, reset, cost } = await countedVault({ [NOTE]: NOTE_TEXT });
    reset();

    const result = await writeNote(vault, { session, path: NOTE, mode: 'append', content: 'Second idea.', reason: 'one more idea' });

    expect(result.status).toBe('written');
    expect(cost()).toEqual({
      noteReads: 1,
      parses: 1,
      git: ['symbolic-ref', 'ls-files', 'cat-file', ...COMMIT],
    });
    // Not one of Lucid's types: no `updated` is added (issue 13).
    expect(tv.read(NOTE)).toBe('---\ntitle: Plan\ntags:\n  - atlas\n---\n# Plan\n\nFirst idea.\n\nSecond idea.\n');
    expect(tv.git(['status', '--porcelain'])).toBe('');
    expect(tv.git(['log', '-1', '--format=%s%n%(trailers:key=Lucid-Op,valueonly)']).trim()).toBe(`append ${NOTE}\nappend`);
    expect(tv.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n').sort()).toEqual(['changelog.md', NOTE]);
  });

  it('a field change costs the same: one read, one parse, nine git processes', async () => {
    const { tv, vault, session, reset, cost } = await countedVault({ [NOTE]: NOTE_TEXT });
    reset();

    const result = await writeNote(vault, { session, path: NOTE, mode: 'set_fields', fields: { status: 'draft', tags: null }, reason: 'mark it a draft' });

    expect(result.status).toBe('written');
    expect(cost()).toEqual({ noteReads: 1, parses: 1, git: ['symbolic-ref', 'ls-files', 'cat-file', ...COMMIT] });
    expect(tv.read(NOTE)).toBe('---\ntitle: Plan\nstatus: draft\n---\n# Plan\n\nFirst idea.\n');
    expect((await vault.readNote(NOTE)).frontmatter).toEqual({ title: 'Plan', status: 'draft' });
  });

  it('keeps the note it wrote, parsed: reading it back parses nothing', async () => {
    const { tv, vault, session, reset, cost } = await countedVault({ [NOTE]: NOTE_TEXT });
    const { hash } = await writeNote(vault, { session, path: NOTE, mode: 'append', content: 'Second idea.', reason: 'one more idea' });
    reset();

    const note = await vault.readNote(NOTE);

    expect(note).toMatchObject({ hash, title: 'Plan', frontmatter: { title: 'Plan', tags: ['atlas'] } });
    expect(note.body).toBe('# Plan\n\nFirst idea.\n\nSecond idea.\n');
    expect(note.text).toBe(tv.read(NOTE));
    expect(cost()).toEqual({ noteReads: 1, parses: 0, git: [] });
  });

  it("a person's uncommitted edit adds two hash-objects and their own commit, still one read and one parse", async () => {
    const { tv, vault, session, reset, cost } = await countedVault({ [NOTE]: NOTE_TEXT });
    tv.write(NOTE, `${NOTE_TEXT}A line the person typed.\n`);
    reset();

    const result = await writeNote(vault, { session, path: NOTE, mode: 'append', content: 'Second idea.', reason: 'one more idea' });

    expect(result.status).toBe('written');
    expect(cost()).toEqual({
      noteReads: 1,
      parses: 1,
      // The person's checked bytes are stored (hash-object -w) and staged as they are (--index-info,
      // in the commit's index and the real one), so a save landing meanwhile is never committed unchecked.
      git: [
        'symbolic-ref',
        'ls-files',
        'cat-file',
        'hash-object',
        'hash-object',
        'read-tree',
        'update-index',
        'update-index',
        'write-tree',
        'commit-tree',
        'update-ref',
        'update-index',
        'update-index',
        ...COMMIT,
      ],
    });
    expect(tv.git(['log', '-2', '--format=%an']).trim().split('\n')).toEqual(['agent:tester', 'Test Person']);
    expect(tv.git(['show', 'HEAD~1:notes/plan.md'])).toBe(`${NOTE_TEXT}A line the person typed.\n`);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });
});
