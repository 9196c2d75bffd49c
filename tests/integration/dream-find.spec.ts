import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main';
import type { Io } from '../../cli/shared';
import { DEFAULT_STALE_DAYS, endSession, findDreamCandidates, initVault, listSkills, moltSkill, startSession, type Vault } from '../../lib/vault/index';
import { SKILL_FLAKY, SKILL_PG_BACKUP, SKILL_PG_RESTORE, SKILL_RETRY } from '../support/dream-vault';
import { cleanedAfterEach, connectInMemory, ok, textOf } from '../support/mcp';
import { makeTempVault, snapshot, type TempVault } from '../support/temp-vault';

/** The dream pass's findings, from the library, `lucid dream` and the MCP tool, on temp vaults checked with raw git. */

const lists = cleanedAfterEach();
const DAY = 86_400;
const more: TempVault[] = [];
afterEach(() => {
  for (const tv of more.splice(0)) tv.cleanup();
});

async function vaultWith(files: Record<string, string>): Promise<{ tv: TempVault; vault: Vault }> {
  const tv = makeTempVault(files);
  lists.vaults.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  const vault = await tv.open();
  lists.opened.push(vault);
  return { tv, vault };
}

/** A person's commit of `files` dated `seconds` (since the epoch), with raw git. */
function commitAt(tv: TempVault, files: Record<string, string>, seconds: number, message: string): void {
  for (const [path, text] of Object.entries(files)) tv.write(path, text);
  const env = { ...tv.env, GIT_AUTHOR_DATE: `${seconds} +0000`, GIT_COMMITTER_DATE: `${seconds} +0000` } as unknown as NodeJS.ProcessEnv;
  execFileSync('git', ['add', '-A'], { cwd: tv.root, env });
  execFileSync('git', ['commit', '-q', '-m', message], { cwd: tv.root, env });
}

function headTime(tv: TempVault): number {
  return Number(tv.git(['log', '-1', '--format=%at']).trim());
}

const session = (skill: string, ended: string) =>
  `---\ntype: session\nagent: claude-code\ntask: fix the build\nstarted: ${ended}\nended: ${ended}\noutcome: done\nskills_used:\n  - "[[${skill}]]"\n---\n\n# fix the build\n`;

describe('findDreamCandidates', () => {
  it("counts staleness to the vault's newest commit, not the wall clock, from the last session that used a skill", async () => {
    const { tv, vault } = await vaultWith({ 'skills/flaky-ci.md': SKILL_FLAKY, 'skills/postgres-backup.md': SKILL_PG_BACKUP });
    const start = headTime(tv);
    const used = new Date((start + 80 * DAY) * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    commitAt(tv, { 'sessions/20261201-120000-claude-code-abcd.md': session('skills/flaky-ci', used) }, start + 80 * DAY, 'a session');
    commitAt(tv, { 'notes/later.md': '# Later\n' }, start + 90 * DAY, 'ninety days on');
    const findings = await findDreamCandidates(vault);
    expect(findings.skills).toBe(2);
    expect(findings.stale).toEqual([{ skill: 'skills/postgres-backup.md', lastUsed: null, days: 90 }]);
    const longer = await findDreamCandidates(vault, { staleDays: 5 });
    expect(longer.stale).toEqual([
      { skill: 'skills/postgres-backup.md', lastUsed: null, days: 90 },
      { skill: 'skills/flaky-ci.md', lastUsed: used.slice(0, 10), days: 10 },
    ]);
  });

  it('judges staleness as the skills page does: one default, the same clock, uses under a name the skill had before a rename', async () => {
    const { tv, vault } = await vaultWith({ 'skills/flaky-ci.md': SKILL_FLAKY, 'skills/postgres-backup.md': SKILL_PG_BACKUP });
    const start = headTime(tv);
    const used = new Date((start + 50 * DAY) * 1000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
    // a session used flaky-ci; then a person renamed it by hand, leaving the session's link as it was
    commitAt(tv, { 'sessions/20261201-120000-claude-code-abcd.md': session('skills/flaky-ci', used) }, start + 50 * DAY, 'a session');
    const env = { ...tv.env, GIT_AUTHOR_DATE: `${start + 51 * DAY} +0000`, GIT_COMMITTER_DATE: `${start + 51 * DAY} +0000` } as unknown as NodeJS.ProcessEnv;
    execFileSync('git', ['mv', 'skills/flaky-ci.md', 'skills/ci-flakes.md'], { cwd: tv.root, env });
    execFileSync('git', ['commit', '-q', '-m', 'rename by hand'], { cwd: tv.root, env });
    commitAt(tv, { 'notes/later.md': '# Later\n' }, start + 100 * DAY, 'a hundred days on');

    const findings = await findDreamCandidates(vault);
    const list = await listSkills(vault);
    expect(list.staleDays).toBe(DEFAULT_STALE_DAYS);
    expect(findings.stale).toEqual([{ skill: 'skills/postgres-backup.md', lastUsed: null, days: 100 }]);
    const stale = list.skills.filter((s) => s.stale).map((s) => ({ skill: s.path, days: s.idleDays }));
    expect(stale).toEqual(findings.stale.map((s) => ({ skill: s.skill, days: s.days })));
    expect(list.skills.find((s) => s.path === 'skills/ci-flakes.md')).toMatchObject({ idleDays: 50, stale: false });
    // ten days shorter: the renamed skill's use under its old name is what keeps it from being stale at 60
    const shorter = await findDreamCandidates(vault, { staleDays: 50 });
    expect(shorter.stale.map((s) => [s.skill, s.lastUsed, s.days])).toEqual([
      ['skills/postgres-backup.md', null, 100],
      ['skills/ci-flakes.md', used.slice(0, 10), 50],
    ]);
  });

  it('reports a version its molts do not explain, a name that is not the file name and a missing trigger, each with its fix', async () => {
    const { tv, vault } = await vaultWith({});
    const { session: id } = await startSession(vault, { agent: 'claude-code', task: 'skills' });
    await moltSkill(vault, { session: id, name: 'triage', trigger: 'when a bug comes in', content: '1. Read it\n2. Label it\n', reason: 'new' });
    await moltSkill(vault, { session: id, name: 'triage', content: '1. Read it\n2. Label it\n3. Assign it\n', reason: 'assign too' });
    await endSession(vault, { session: id, summary: 'skills', outcome: 'done' });
    commitAt(tv, { 'skills/triage.md': tv.read('skills/triage.md').replace('version: 2', 'version: 5') }, headTime(tv) + 60, 'bump by hand');
    commitAt(
      tv,
      {
        'skills/renamed.md': '---\ntype: skill\nname: old-name\nversion: 1\ntrigger: when renaming\nlast_updated: 2026-11-01\n---\n\n- Rename it\n',
        'skills/no-trigger.md': '---\ntype: skill\nname: no-trigger\nversion: 1\nlast_updated: 2026-11-01\n---\n\n- Do the thing\n',
      },
      headTime(tv) + 60,
      'two skills by hand',
    );
    const before = snapshot(tv.root);
    const { inconsistent } = await findDreamCandidates(vault);
    expect(inconsistent).toEqual([
      { skill: 'skills/no-trigger.md', field: 'trigger', problem: expect.stringMatching(/^trigger is missing/), fix: null },
      { skill: 'skills/renamed.md', field: 'name', problem: 'name "old-name" is not the file name "renamed"', fix: { name: 'renamed', version: 2 } },
      {
        skill: 'skills/triage.md',
        field: 'version',
        problem: expect.stringMatching(/^version is 5 but its last molt \(e[a-z2-7]{12}\) made it version 2$/),
        fix: { version: 3 },
      },
    ]);
    // finding changes nothing
    const after = snapshot(tv.root);
    expect(after.head).toBe(before.head);
    expect(after.status).toBe(before.status);
  });
});

/** Runs `lucid dream ...` in this process, collecting what it prints. */
async function dream(tv: TempVault, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io = {
    out: (t) => {
      stdout += t.endsWith('\n') ? t : `${t}\n`;
    },
    err: (t) => {
      stderr += t.endsWith('\n') ? t : `${t}\n`;
    },
    cwd: tv.root,
    env: tv.env,
  };
  const code = await main(['dream', '--vault', tv.root, ...args], io);
  return { code, stdout, stderr };
}

describe('lucid dream', () => {
  it('says plainly that a vault with no skills has nothing to tidy', async () => {
    const tv = makeTempVault({ 'notes/a.md': '# A\n' });
    more.push(tv);
    await initVault({ dir: tv.root, env: tv.env });
    const head = tv.head();
    const run = await dream(tv, []);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('No skills in skills/ yet, so the dream pass has nothing to tidy. Agents write skills with the molt_skill tool.\n');
    expect(tv.head()).toBe(head);
  });

  it('prints the pairs with their evidence and changes nothing; --apply makes the branch; bad --stale-days is a usage error', async () => {
    const { tv } = await vaultWith({
      'skills/flaky-ci.md': SKILL_FLAKY,
      'skills/retry-intermittent-tests.md': SKILL_RETRY,
      'skills/postgres-backup.md': SKILL_PG_BACKUP,
      'skills/postgres-restore.md': SKILL_PG_RESTORE,
    });
    const head = tv.head();
    const found = await dream(tv, []);
    expect(found.code, found.stderr).toBe(0);
    expect(found.stdout).toMatch(/^4 skills: 1 duplicate pair, 0 stale, 0 inconsistent fields\./);
    expect(found.stdout).toMatch(/\n {2}0\.\d\d {2}skills\/flaky-ci\.md <- skills\/retry-intermittent-tests\.md\n {8}\d of 5 steps/);
    expect(found.stdout).toContain('Nothing was changed.');
    expect(tv.head()).toBe(head);
    expect(tv.git(['for-each-ref', 'refs/heads/dream/'])).toBe('');

    const json = JSON.parse((await dream(tv, ['--json'])).stdout);
    expect(json.duplicates).toHaveLength(1);

    const applied = await dream(tv, ['--apply']);
    expect(applied.code, applied.stderr).toBe(0);
    const branch = /Made branch (dream\/\S+) on/.exec(applied.stdout)?.[1] ?? '';
    expect(tv.git(['rev-parse', '--verify', `refs/heads/${branch}^`]).trim()).toBe(head);
    expect(tv.head()).toBe(head);
    expect(tv.git(['status', '--porcelain'])).toBe('');

    const bad = await dream(tv, ['--stale-days', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--stale-days must be a whole number of days from 1 to 36500/);
  });
});

describe('the dream_candidates tool', () => {
  it('returns the same findings through a real SDK client, capped, with the hint to molt a better merge', async () => {
    const { vault } = await vaultWith({
      'skills/flaky-ci.md': SKILL_FLAKY,
      'skills/retry-intermittent-tests.md': SKILL_RETRY,
      'skills/postgres-backup.md': SKILL_PG_BACKUP,
      'skills/postgres-restore.md': SKILL_PG_RESTORE,
    });
    const mcp = await connectInMemory(vault);
    lists.pairs.push(mcp);
    const library = await findDreamCandidates(vault);
    const result = ok<{ skills: number; duplicates: { a: string; b: string; score: number; evidence: string[] }[]; message: string }>(
      await mcp.call('dream_candidates', {}),
    );
    expect(result.skills).toBe(4);
    expect(result.duplicates).toEqual(library.duplicates.map((d) => ({ ...d, evidence: d.evidence.slice(0, 3) })));
    expect(result.duplicates[0]).toMatchObject({ a: 'skills/flaky-ci.md', b: 'skills/retry-intermittent-tests.md' });
    expect(result.message).toMatch(/molt_skill/);
    const refused = await mcp.call('dream_candidates', { stale_days: 0 });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/stale_days/);
  });
});
