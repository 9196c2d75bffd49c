import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isVaultError, listSkills, restoreSkillVersion, revertEdit, skillDiff, skillHistory, vaultNow, type Vault } from '../../lib/vault';
import { cleanedAfterEach, fieldOf, MCP_VAULT_FILES, type McpPair, ok, openWithMcp, trailersOf } from '../support/mcp';
import { makeTempVault, sha256, TEST_PERSON, type TempVault } from '../support/temp-vault';

// Skill history is git's: molts are made through the MCP server with a real SDK client, renames by
// a person with raw git, and every answer is checked against raw git.

const lists = cleanedAfterEach();
const SKILL = 'skills/deploy-safely.md';
const STEPS = [
  '1. Check CI.\n',
  '1. Check CI.\n2. Tag the release.\n',
  '1. Check CI is green.\n2. Tag the release.\n',
  '1. Check CI is green.\n2. Tag.\n3. Watch the error rate.\n',
];
const REASONS = ['wrote down the deploy steps', 'tagging was missing', 'green, not just finished', 'watch after deploying'];

async function start(mcp: McpPair): Promise<string> {
  return ok<{ session: string }>(await mcp.call('start_session', { agent: 'claude-code', task: 'Deploy the billing service' })).session;
}

/** Version 1 to 4 of the skill, each molted through the MCP server; returns the commit of each version. */
async function moltFour(mcp: McpPair, session: string): Promise<string[]> {
  const commits: string[] = [];
  for (const [i, content] of STEPS.entries()) {
    const result = ok<{ version: number; commit: string }>(
      await mcp.call('molt_skill', { session, name: 'deploy-safely', content, reason: REASONS[i], ...(i === 0 ? { trigger: 'before a deploy' } : {}) }),
    );
    expect(result.version).toBe(i + 1);
    commits.push(result.commit);
  }
  return commits;
}

async function setup(): Promise<{ tv: TempVault; vault: Vault; mcp: McpPair; session: string; commits: string[] }> {
  const { tv, vault, mcp } = await openWithMcp(lists, MCP_VAULT_FILES);
  const session = await start(mcp);
  const commits = await moltFour(mcp, session);
  return { tv, vault, mcp, session, commits };
}

/** A unified diff from its first hunk on (file headers differ: git names blobs, Lucid names paths). */
const hunks = (patch: string) => patch.slice(patch.indexOf('@@'));

describe('skill history', () => {
  it('shows molts made through the MCP server as versions, each with its reason, actor and session', async () => {
    const { vault, session, commits } = await setup();
    const history = await skillHistory(vault, SKILL);
    const molts = history.versions.filter((v) => v.op === 'molt');
    expect(molts.map((v) => v.version)).toEqual([4, 3, 2, 1]);
    expect(molts.map((v) => v.sha)).toEqual([...commits].reverse());
    expect(molts.map((v) => v.reason)).toEqual([...REASONS].reverse());
    for (const v of molts) expect(v).toMatchObject({ actor: 'agent:claude-code', session, path: SKILL, renamedFrom: null, foreign: false });
    expect(molts.map((v) => v.molt)).toEqual([
      { from: 3, to: 4 },
      { from: 2, to: 3 },
      { from: 1, to: 2 },
      { from: 0, to: 1 },
    ]);
  });

  it('diffs version 1 and version 4 as git diff does between their blobs', async () => {
    const { tv, vault, commits } = await setup();
    const history = await skillHistory(vault, SKILL);
    const blob1 = tv.git(['rev-parse', `${commits[0]}:${SKILL}`]).trim();
    const blob4 = tv.git(['rev-parse', `${commits[3]}:${SKILL}`]).trim();
    expect(history.versions.find((v) => v.sha === commits[0])?.blob).toBe(blob1);
    const { patch, truncated } = await skillDiff(vault, history, commits[0], commits[3]);
    expect(truncated).toBe(false);
    expect(patch.startsWith(`diff --git a/${SKILL} b/${SKILL}\n--- a/${SKILL}\n+++ b/${SKILL}\n@@`)).toBe(true);
    expect(hunks(patch)).toBe(hunks(tv.git(['diff', blob1, blob4])));
    expect(patch).toContain('+3. Watch the error rate.');
    expect((await skillDiff(vault, history, commits[1], commits[1])).patch).toBe('');
    // Only versions of this skill: any other commit is refused, never diffed.
    await expect(skillDiff(vault, history, tv.git(['rev-list', '--max-parents=0', 'HEAD']).trim(), commits[3])).rejects.toMatchObject({ code: 'not_found' });
  });

  it('restores version 2 as one molt commit whose text is version 2 with the version raised', async () => {
    const { tv, vault, commits } = await setup();
    const before = tv.commitCount();
    const v2 = tv.git(['show', `${commits[1]}:${SKILL}`]);
    const result = await restoreSkillVersion(vault, {
      path: SKILL,
      commit: commits[1],
      reason: 'the shorter steps were clearer',
      expectedHash: sha256(tv.read(SKILL)),
    });
    expect(result).toMatchObject({ version: 5, restored: 2 });
    expect(tv.commitCount()).toBe(before + 1);
    expect(tv.head()).toBe(result.commit);
    expect(tv.git(['show', '--name-only', '--format=', 'HEAD']).split('\n').filter(Boolean).sort()).toEqual(['changelog.md', SKILL]);
    const trailers = trailersOf(tv);
    expect(trailers).toMatchObject({
      'Lucid-Actor': `human:${TEST_PERSON}`,
      'Lucid-Op': 'molt',
      'Lucid-Molt': 'deploy-safely 4->5',
      'Lucid-Edit': result.editId,
    });
    expect(tv.git(['log', '-1', '--format=%b'])).toContain(`the shorter steps were clearer (restored version 2 (${commits[1].slice(0, 7)}))`);
    const now = tv.git(['show', `HEAD:${SKILL}`]);
    const strip = (text: string) => text.replace(/^(version|last_updated|updated): .*\n/gm, '');
    expect(strip(now)).toBe(strip(v2));
    expect(fieldOf(now, 'version')).toBe('5');
    expect(tv.git(['status', '--porcelain'])).toBe('');
    const history = await skillHistory(vault, SKILL);
    expect(history.versions[0]).toMatchObject({ sha: result.commit, version: 5, actor: `human:${TEST_PERSON}`, molt: { from: 4, to: 5 } });
  });

  it('refuses a restore when an agent molted the skill after the person looked, and changes nothing', async () => {
    const { tv, vault, mcp, session, commits } = await setup();
    const seen = sha256(tv.read(SKILL));
    ok(await mcp.call('molt_skill', { session, name: 'deploy-safely', content: '1. Ask in #deploys first.\n', reason: 'the agent learned more' }));
    const head = tv.head();
    const text = tv.read(SKILL);
    const error = await restoreSkillVersion(vault, { path: SKILL, commit: commits[0], reason: 'back to the start', expectedHash: seen }).catch((e) => e);
    expect(isVaultError(error, 'conflict')).toBe(true);
    expect(error.message).toMatch(/changed since you opened it \(last by agent:claude-code, now version 5\); nothing was restored/);
    expect(tv.head()).toBe(head);
    expect(tv.read(SKILL)).toBe(text);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('refuses a restore without a reason, and one that would change nothing', async () => {
    const { tv, vault, commits } = await setup();
    const head = tv.head();
    await expect(restoreSkillVersion(vault, { path: SKILL, commit: commits[0], reason: '  ' })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(restoreSkillVersion(vault, { path: SKILL, commit: commits[3], reason: 'same' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/already has the text/),
    });
    expect(tv.head()).toBe(head);
  });

  it('keeps the versions from before a rename (git mv by a person), and restores one of them', async () => {
    const { tv, vault, commits } = await setup();
    const renamed = 'skills/ship-safely.md';
    tv.git(['mv', SKILL, renamed]);
    tv.write(renamed, tv.read(renamed).replace('name: deploy-safely', 'name: ship-safely'));
    tv.git(['commit', '-qam', 'Rename the deploy skill']);
    const history = await skillHistory(vault, renamed);
    expect(history.versions[0]).toMatchObject({ path: renamed, renamedFrom: SKILL, foreign: true, actor: `human:${TEST_PERSON}`, version: 4, reason: '' });
    expect(history.versions.filter((v) => v.op === 'molt').map((v) => [v.version, v.path])).toEqual([
      [4, SKILL],
      [3, SKILL],
      [2, SKILL],
      [1, SKILL],
    ]);
    const blob1 = tv.git(['rev-parse', `${commits[0]}:${SKILL}`]).trim();
    const { patch } = await skillDiff(vault, history, commits[0], history.versions[0].sha);
    expect(patch.startsWith(`diff --git a/${SKILL} b/${renamed}`)).toBe(true);
    expect(hunks(patch)).toBe(hunks(tv.git(['diff', blob1, `HEAD:${renamed}`])));
    const restored = await restoreSkillVersion(vault, { path: renamed, commit: commits[0], reason: 'the first steps were enough' });
    expect(trailersOf(tv)['Lucid-Molt']).toBe('ship-safely 4->5');
    const text = tv.git(['show', `${restored.commit}:${renamed}`]);
    expect(fieldOf(text, 'name')).toBe('ship-safely');
    expect(text.endsWith(`\n---\n${STEPS[0]}`) || text.endsWith(`---\n\n${STEPS[0]}`)).toBe(true);

    // Moved to the archive by a person: still the same history.
    mkdirSync(path.join(tv.root, 'skills/archive'), { recursive: true });
    tv.git(['mv', renamed, 'skills/archive/ship-safely.md']);
    tv.git(['commit', '-qm', 'Archive it']);
    const archived = await skillHistory(vault, 'skills/archive/ship-safely.md');
    expect(archived.versions.filter((v) => v.op === 'molt')).toHaveLength(5);
    await expect(restoreSkillVersion(vault, { path: 'skills/archive/ship-safely.md', commit: commits[1], reason: 'no' })).rejects.toMatchObject({
      code: 'forbidden',
    });
  });

  it("reverting the latest molt is the changelog's revert: a new molt, shown as the newest version", async () => {
    const { tv, vault, commits } = await setup();
    const history = await skillHistory(vault, SKILL);
    const latest = history.versions[0];
    const result = await revertEdit(vault, { ref: latest.editId as string, reason: 'too much' });
    expect(trailersOf(tv)).toMatchObject({ 'Lucid-Op': 'molt', 'Lucid-Molt': 'deploy-safely 4->5', 'Lucid-Reverts': latest.editId });
    const after = await skillHistory(vault, SKILL);
    expect(after.versions[0]).toMatchObject({ sha: result.commit, version: 5, op: 'molt' });
    expect(hunks((await skillDiff(vault, after, commits[2], result.commit)).patch)).toMatch(/^@@ .*\n( .*\n)*-version: 3\n\+version: 5\n/);
  });
});

describe('the skills list', () => {
  it('derives last use from the session notes, counts molts across renames, and marks stale and archived skills', async () => {
    const { tv, vault, mcp } = await setup();
    const reader = await start(mcp);
    ok(await mcp.call('read_note', { session: reader, path: SKILL }));
    const ended = ok<{ path: string }>(await mcp.call('end_session', { session: reader, summary: 'deployed', outcome: 'done' }));
    const note = tv.read(ended.path);
    expect(note).toContain('[[skills/deploy-safely]]');
    const endedAt = new Date(fieldOf(note, 'ended') as string);
    tv.write(
      'skills/archive/old-way.md',
      '---\ntype: skill\nname: old-way\nversion: 1\ntrigger: never\nlast_updated: 2026-01-01\nstatus: archived\n---\n\nGone.\n',
    );
    tv.git(['add', '-A']);
    tv.git(['commit', '-qm', 'An archived skill']);

    const later = new Date(endedAt.getTime() + 61 * 86_400_000);
    const list = await listSkills(vault, { now: later });
    const byPath = new Map(list.skills.map((s) => [s.path, s]));
    expect(list.staleDays).toBe(60);
    expect(byPath.get(SKILL)).toMatchObject({
      name: 'deploy-safely',
      version: 4,
      trigger: 'before a deploy',
      lastUsed: endedAt.toISOString(),
      lastUsedSession: ended.path.replace(/^sessions\/|\.md$/g, ''),
      uses: 1,
      molts: 4,
      status: 'active',
      archived: false,
      idleDays: 61,
      stale: true,
      problem: null,
    });
    expect(byPath.get('skills/archive/old-way.md')).toMatchObject({ archived: true, status: 'archived', stale: false, lastUsed: null, molts: 0 });
    // No session used write-release-notes: it is idle since its first commit.
    expect(byPath.get('skills/write-release-notes.md')).toMatchObject({ lastUsed: null, uses: 0 });
    const first = Number(tv.git(['log', '--reverse', '--format=%at']).split('\n')[0]) * 1000;
    const unused = (await listSkills(vault, { now: new Date(first + 61 * 86_400_000) })).skills.find((s) => s.path === 'skills/write-release-notes.md');
    expect(unused).toMatchObject({ idleDays: 61, stale: true });
    expect((await listSkills(vault, { now: new Date(endedAt.getTime() + 59 * 86_400_000) })).skills.find((s) => s.path === SKILL)?.stale).toBe(false);

    // A rename by a person that leaves the session's link as it was: the use still counts.
    tv.git(['mv', SKILL, 'skills/ship-safely.md']);
    tv.git(['commit', '-qm', 'Rename']);
    const renamed = (await listSkills(vault, { now: later })).skills.find((s) => s.path === 'skills/ship-safely.md');
    expect(renamed).toMatchObject({ uses: 1, lastUsed: endedAt.toISOString(), molts: 4 });
  });

  it('is empty for a vault with no skills, and a missing skill has no history', async () => {
    const tv = makeTempVault({ 'notes/a.md': '# A\n' });
    lists.vaults.push(tv);
    const vault = await tv.open();
    lists.opened.push(vault);
    const list = await listSkills(vault);
    expect(list.skills).toEqual([]);
    expect(list.nowSource).toBe('newest-commit');
    expect((await skillHistory(vault, SKILL)).versions).toEqual([]);
  });

  it("measures staleness from the vault's newest commit by default", async () => {
    const { tv, vault } = await setup();
    const clock = await vaultNow(vault);
    expect(clock.source).toBe('newest-commit');
    expect(clock.now.getTime() / 1000).toBe(Number(tv.git(['log', '-1', '--format=%at'])));
    const list = await listSkills(vault);
    expect(list.now).toBe(clock.now.toISOString());
  });
});
