import { afterAll, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { spawnGit, type GitRunner } from '../../lib/vault/git/runner';
import { openVault } from '../../lib/vault/vault';
import { WRITE_STAGES } from '../../lib/vault/write/journal';
import { AGENT_MARKER, changelogLinesWithoutCommit, crashLeftovers, misattributedCommits, runCrashWorker, stagedPaths } from '../support/crash-checks';
import { makeTempVault, TEST_PERSON, type TempVault } from '../support/temp-vault';

// Issue 9, finding 3: a writer killed at each stage the write-ahead record names, then recovery
// (opening the vault), then raw git. Every stage boundary is tested on every run.

const A = '# A\n\nfirst\n';
const B = '# B\n\nother\n';
const CHANGELOG = '# Changelog\n';
const PERSON_A = `${A}\nThe person typed this.\n`;
const AGENT = 'agent:crasher';

const made: TempVault[] = [];
afterAll(() => {
  for (const tv of made) tv.cleanup();
});

type Op = 'create' | 'update' | 'append' | 'delete';

/** What the note the op touches holds after an edit that landed (null: absent). */
function landedText(op: Op, before: string): string | null {
  if (op === 'create') return `# New\n\n${AGENT_MARKER} created\n`;
  if (op === 'update') return `# A\n\n${AGENT_MARKER} updated\n`;
  if (op === 'append') return `${before}\n${AGENT_MARKER} appended\n`;
  return null;
}

const pathOf = (op: Op) => (op === 'create' ? 'notes/new.md' : 'notes/a.md');
const landedAt = (stage: string) => stage === 'update-ref' || stage === 'index-refreshed' || stage === 'git:after-update-ref';

/** A vault, a worker killed at `stage`, then recovery by opening the vault in this process. */
async function crash(op: Op, stage: string, options: { personEdit?: boolean; nth?: number } = {}) {
  const tv = makeTempVault({ 'notes/a.md': A, 'notes/b.md': B, 'changelog.md': CHANGELOG });
  made.push(tv);
  if (options.personEdit) tv.write('notes/a.md', PERSON_A);
  const head0 = tv.head();
  const exit = await runCrashWorker(tv, [op, stage, String(options.nth ?? 1)]);
  const vault = await tv.open();
  return { tv, head0, exit, vault };
}

/** The commits after `base`, newest first: author, Lucid-Actor trailer and parents, one line each. */
function commitsSince(tv: TempVault, base: string): string[] {
  return tv
    .git(['log', '--format=%an %(trailers:key=Lucid-Actor,valueonly,separator=%x2C) %P', `${base}..HEAD`])
    .split('\n')
    .filter(Boolean);
}

/** The next agent edit appends to `path`: a person-save of leftovers would put the dead agent's text under the person's name. */
async function nextEdit(vault: Awaited<ReturnType<TempVault['open']>>, path: string): Promise<void> {
  await vault.edit({ actor: 'agent:next', op: 'append', path, reason: 'the next edit', changes: [{ path, content: (note) => `${note?.text ?? ''}next\n` }] });
}

/** The person commits a change of their own with plain git: it must hold nothing of the agent's edit, undone or redone. */
function personCommits(tv: TempVault): string[] {
  tv.write('notes/b.md', `${B}A person's line.\n`);
  tv.git(['add', '--', 'notes/b.md']);
  tv.git(['commit', '-q', '-m', 'my own change']);
  const plain = tv.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n');
  tv.write('notes/b.md', `${B}A person's line.\nAnd another.\n`);
  tv.git(['commit', '-q', '-am', 'another change']);
  const all = tv.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n');
  return [...new Set([...plain, ...all])];
}

describe.concurrent('an agent edit killed at each stage ends as its commit or as if it never happened', () => {
  const ops: Op[] = ['create', 'update', 'append', 'delete'];
  for (const op of ops) {
    for (const stage of WRITE_STAGES) {
      const landed = landedAt(stage);
      it(`${op}, killed after ${stage}: ${landed ? 'completed' : 'rolled back'}, the index clean, nothing under the person's name`, async ({ expect }) => {
        const { tv, head0, exit, vault } = await crash(op, stage);
        expect(exit.signal, exit.stderr).toBe('SIGKILL');
        const path = pathOf(op);
        const expected = landed ? landedText(op, A) : op === 'create' ? null : A;

        expect(tv.exists(path) ? tv.read(path) : null).toBe(expected);
        // Completed: one commit on head0, the agent's as author and actor, with its changelog line.
        // Rolled back: HEAD is head0 and the changelog as it was.
        expect(commitsSince(tv, head0)).toEqual(landed ? [`${AGENT} ${AGENT} ${head0}`] : []);
        expect(tv.git(['merge-base', '--is-ancestor', head0, 'HEAD'])).toBe('');
        expect(tv.read('changelog.md') === CHANGELOG).toBe(!landed);
        expect(stagedPaths(tv)).toEqual([]);
        expect(tv.git(['status', '--porcelain'])).toBe('');
        expect(changelogLinesWithoutCommit(tv)).toEqual([]);
        expect(crashLeftovers(tv)).toEqual([]);
        expect(vault.recoveries.map((r) => [r.actor, r.outcome, r.stage])).toEqual([[AGENT, landed ? 'completed' : 'rolled-back', stage]]);

        expect(personCommits(tv)).toEqual(['notes/b.md']);
        expect(expected === null ? tv.git(['ls-tree', '--name-only', 'HEAD', '--', path]) : tv.git(['show', `HEAD:${path}`])).toBe(expected ?? '');
        await nextEdit(vault, path);
        expect(tv.git(['log', '-1', '--format=%an']).trim()).toBe('agent:next');
        expect(misattributedCommits(tv, TEST_PERSON)).toEqual([]);
        expect(changelogLinesWithoutCommit(tv)).toEqual([]);
        vault.close();
      });
    }
  }
});

describe.concurrent("with a person's uncommitted edit first saved as theirs: killed in either commit", () => {
  for (const nth of [1, 2]) {
    for (const stage of WRITE_STAGES) {
      const landed = landedAt(stage);
      const which = nth === 1 ? "the person's save" : "the agent's edit after it";
      it(`${which}, killed after ${stage}: the person's text stays theirs, the agent's is never under their name`, async ({ expect }) => {
        const { tv, head0, exit, vault } = await crash('append', stage, { personEdit: true, nth });
        expect(exit.signal, exit.stderr).toBe('SIGKILL');
        const savedLanded = nth === 2 || landed;
        const agentLanded = nth === 2 && landed;

        expect(tv.read('notes/a.md')).toBe(agentLanded ? `${PERSON_A}\n${AGENT_MARKER} appended\n` : PERSON_A);
        const authors = tv
          .git(['log', '--format=%an', `${head0}..HEAD`])
          .trim()
          .split('\n')
          .filter(Boolean);
        expect(authors).toEqual([...(agentLanded ? [AGENT] : []), ...(savedLanded ? [TEST_PERSON] : [])]);
        // The person's save, when it landed, holds their text exactly.
        const saves = tv
          .git(['log', '--format=%H', `--author=${TEST_PERSON}`, `${head0}..HEAD`])
          .split('\n')
          .filter(Boolean);
        expect(saves.map((sha) => tv.git(['show', `${sha}:notes/a.md`]))).toEqual(savedLanded ? [PERSON_A] : []);
        expect(tv.git(['status', '--porcelain'])).toBe(savedLanded ? '' : ' M notes/a.md\n');
        expect(stagedPaths(tv)).toEqual([]);
        expect(changelogLinesWithoutCommit(tv)).toEqual([]);
        expect(misattributedCommits(tv, TEST_PERSON)).toEqual([]);
        expect(crashLeftovers(tv)).toEqual([]);
        expect(vault.recoveries.map((r) => [r.actor, r.outcome])).toEqual([[nth === 1 ? `human:${TEST_PERSON}` : AGENT, landed ? 'completed' : 'rolled-back']]);

        await nextEdit(vault, 'notes/a.md');
        expect(misattributedCommits(tv, TEST_PERSON)).toEqual([]);
        expect(changelogLinesWithoutCommit(tv)).toEqual([]);
        vault.close();
      });
    }
  }
});

describe.concurrent('killed from the git runner (no stage hook needed: these also run on the code before the write-ahead record)', () => {
  const cases: [Op, string][] = [
    ['update', 'git:before-commit-tree'],
    ['update', 'git:after-update-ref'],
  ];
  for (const [op, point] of cases) {
    it(`${op}, killed at ${point}: no agent text under the person's name, no changelog line without its commit, no edit undone by the person's next commit`, async ({
      expect,
    }) => {
      const { tv, exit, vault } = await crash(op, point);
      expect(exit.signal, exit.stderr).toBe('SIGKILL');
      const path = pathOf(op);
      const expected = landedAt(point) ? landedText(op, A) : op === 'create' ? null : A;
      expect(tv.exists(path) ? tv.read(path) : null).toBe(expected);
      expect(personCommits(tv)).toEqual(['notes/b.md']);
      expect(expected === null ? tv.git(['ls-tree', '--name-only', 'HEAD', '--', path]) : tv.git(['show', `HEAD:${path}`])).toBe(expected ?? '');
      await nextEdit(vault, path);
      expect(misattributedCommits(tv, TEST_PERSON)).toEqual([]);
      expect(changelogLinesWithoutCommit(tv)).toEqual([]);
      vault.close();
    });
  }
});

describe('recovery details', () => {
  it('a file a person changed after the crash is neither the old nor the new text: left alone, the rest undone', async () => {
    const tv = makeTempVault({ 'notes/a.md': A, 'notes/b.md': B, 'changelog.md': CHANGELOG });
    made.push(tv);
    const head0 = tv.head();
    const exit = await runCrashWorker(tv, ['update', 'files-written']);
    expect(exit.signal, exit.stderr).toBe('SIGKILL');
    tv.write('notes/a.md', `${A}The person got there first.\n`);

    const vault = await tv.open();

    expect(tv.read('notes/a.md')).toBe(`${A}The person got there first.\n`);
    expect(tv.read('changelog.md')).toBe(CHANGELOG);
    expect(tv.head()).toBe(head0);
    expect(vault.recoveries).toMatchObject([{ actor: AGENT, outcome: 'rolled-back', restored: ['changelog.md'], leftAlone: ['notes/a.md'] }]);
    expect(crashLeftovers(tv)).toEqual([]);
    vault.close();
  });

  it('a real index left stale (another git process held index.lock) keeps the record, and the next write brings the index up to date', async () => {
    const tv = makeTempVault({ 'notes/a.md': A, 'notes/b.md': B, 'changelog.md': CHANGELOG });
    made.push(tv);
    const failRealIndex: GitRunner = async (invocation) => {
      if (invocation.args[0] === 'update-index' && !invocation.env.GIT_INDEX_FILE) throw new Error('fatal: Unable to create .git/index.lock: File exists.');
      return spawnGit(invocation);
    };
    const stuck = await openVault({ root: tv.root, env: tv.env, git: failRealIndex });
    await stuck.edit({ actor: AGENT, op: 'update', path: 'notes/a.md', reason: 'r', changes: [{ path: 'notes/a.md', content: `# A\n\n${AGENT_MARKER}\n` }] });
    stuck.close();
    expect(stagedPaths(tv).sort()).toEqual(['changelog.md', 'notes/a.md']);
    expect(crashLeftovers(tv)).toEqual(['.lucid/write-ahead.json']);

    const vault = await tv.open();

    expect(vault.recoveries).toMatchObject([{ actor: AGENT, outcome: 'completed', stage: 'update-ref' }]);
    expect(stagedPaths(tv)).toEqual([]);
    expect(crashLeftovers(tv)).toEqual([]);
    expect(personCommits(tv)).toEqual(['notes/b.md']);
    expect(tv.git(['show', 'HEAD:notes/a.md'])).toBe(`# A\n\n${AGENT_MARKER}\n`);
    vault.close();
  });
});

describe('a dead holder taken over by several waiters at once', () => {
  it('four writers waiting on a SIGKILLed holder: one holds the lock at a time, every edit lands once', async () => {
    const tv = makeTempVault({ 'notes/a.md': A, 'notes/b.md': B, 'changelog.md': CHANGELOG });
    made.push(tv);
    const dead = await runCrashWorker(tv, ['update', 'files-written']);
    expect(dead.signal).toBe('SIGKILL');
    const trace = path.join(tv.tempDir('trace'), 'stages.txt');

    const exits = await Promise.all([1, 2, 3, 4].map(() => runCrashWorker(tv, ['append'], { env: { CRASH_TRACE: trace } })));

    expect(exits.map((e) => e.code)).toEqual([0, 0, 0, 0]);
    // Each writer's stages run from `recorded` to `index-refreshed` with no other writer's in between.
    const lines = fs.readFileSync(trace, 'utf8').trim().split('\n');
    let holder: string | null = null;
    for (const line of lines) {
      const [pid, stage] = line.split(' ');
      if (stage === 'recorded') {
        expect(holder).toBeNull();
        holder = pid;
      } else {
        expect(pid).toBe(holder);
        if (stage === 'index-refreshed') holder = null;
      }
    }
    expect(lines.filter((l) => l.endsWith(' recorded'))).toHaveLength(4);
    expect(tv.read('notes/a.md').split(`${AGENT_MARKER} appended`)).toHaveLength(5);
    expect(tv.read('notes/a.md')).not.toContain(`${AGENT_MARKER} updated`);
    expect(changelogLinesWithoutCommit(tv)).toEqual([]);
    expect(misattributedCommits(tv, TEST_PERSON)).toEqual([]);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  }, 60_000);
});

describe('an edit that fails after its files were written', () => {
  it("puts back only what it wrote: a note a person saved in the meantime stays the person's", async () => {
    const tv = makeTempVault({ 'notes/a.md': A, 'notes/b.md': B, 'changelog.md': CHANGELOG });
    made.push(tv);
    const head0 = tv.head();
    const vault = await openVault({
      root: tv.root,
      env: tv.env,
      onStage: (stage) => {
        if (stage !== 'files-written') return;
        tv.write('notes/a.md', PERSON_A); // an editor saves over the agent's text
        throw new Error('injected failure before the commit');
      },
    });

    await expect(
      vault.edit({
        actor: AGENT,
        op: 'update',
        path: 'notes/a.md',
        reason: 'x',
        changes: [{ path: 'notes/a.md', content: `# A\n\n${AGENT_MARKER} updated\n` }],
      }),
    ).rejects.toThrow(/injected failure/);
    vault.close();

    expect(tv.read('notes/a.md')).toBe(PERSON_A);
    expect(tv.read('changelog.md')).toBe(CHANGELOG);
    expect(tv.head()).toBe(head0);
  });
});
