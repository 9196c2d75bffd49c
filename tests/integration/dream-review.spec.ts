import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyDreamRun,
  type DreamRun,
  dismissDreamChanges,
  dreamChangePatch,
  landDreamChanges,
  listDreamRuns,
  showDreamRun,
  type Vault,
} from '../../lib/vault/index';
import { findings, skillText } from '../support/dream-runs';
import { trailersOf } from '../support/mcp';
import { freeze, installedVault } from '../support/revert-vault';
import { TEST_PERSON, type TempVault } from '../support/temp-vault';

/**
 * The dream review on fresh temp vaults: runs made by the dream pass (applyDreamRun) from findings
 * the test writes, landed change by change on the current branch through the write path, checked
 * with raw git.
 */

const PERSON = `human:${TEST_PERSON}`;
const DEPLOY = skillText('deploy', 2, 'deploying the app', ['Build the image.', 'Push the image.', 'Roll out.', 'Watch the dashboards.']);
const SHIP = skillText('ship', 1, 'shipping the app', ['Build the image.', 'Push the image.', 'Roll out.', 'Tell the team in the release channel.']);
const OLD = skillText('old-backup', 1, 'backing up the old server', ['Copy the disk.', 'Check the copy.']);
const TRIAGE = skillText('triage', 1, 'bugs', ['Reproduce the bug.', 'Label it.', 'Assign an owner.']);
const NOTE = '# Runbook\n\nSee [[skills/ship]] for shipping.\n';

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

async function setUp(): Promise<{ tv: TempVault; vault: Vault }> {
  const made = await installedVault({
    'skills/deploy.md': DEPLOY,
    'skills/ship.md': SHIP,
    'skills/old-backup.md': OLD,
    'skills/triage.md': TRIAGE,
    'notes/runbook.md': NOTE,
  });
  vaults.push(made.tv);
  opened.push(made.vault);
  return made;
}

/** A run of three changes, in the dream pass's order: fix triage's trigger (molt), merge ship into deploy, archive old-backup. */
async function threeChangeRun(vault: Vault): Promise<DreamRun & { ids: string[] }> {
  const run = await applyDreamRun(
    vault,
    findings({
      skills: 4,
      inconsistent: [{ skill: 'skills/triage.md', field: 'trigger', problem: 'too short to match a request', fix: { trigger: 'a new bug report comes in' } }],
      duplicates: [{ a: 'skills/deploy.md', b: 'skills/ship.md', score: 0.9, evidence: ['three shared steps'] }],
      stale: [{ skill: 'skills/old-backup.md', lastUsed: null, days: 90 }],
    }),
  );
  expect(run.changes.map((c) => c.op)).toEqual(['molt', 'merge', 'archive']);
  const view = await showDreamRun(vault, run.runId, {});
  return { ...run, ids: view.changes.map((c) => c.id) };
}

/** The changelog lines a commit added, read with raw git. */
function addedLines(tv: TempVault, rev = 'HEAD'): string[] {
  return tv
    .git(['diff', `${rev}~1`, rev, '--', 'changelog.md'])
    .split('\n')
    .filter((l) => l.startsWith('+- '));
}

/** A file as the dream branch commit `sha` left it, read with raw git. */
const atBranch = (tv: TempVault, sha: string, file: string) => tv.git(['show', `${sha}:${file}`]);

describe('listing dream runs', () => {
  it('lists each run with its changes, all pending, and changes nothing', async () => {
    const { tv, vault } = await setUp();
    const run = await threeChangeRun(vault);
    const before = freeze(tv);
    const runs = await listDreamRuns(vault);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({
      runId: run.runId,
      branch: run.branch,
      base: run.base,
      baseMoved: false,
      settled: false,
      counts: { changes: 3, pending: 3, landed: 0, dismissed: 0, inapplicable: 0 },
    });
    expect(runs[0].changes.map((c) => [c.sha, c.op, c.reason])).toEqual(run.changes.map((c) => [c.sha, c.op, c.reason]));
    expect(runs[0].changes[2].files).toEqual([{ path: 'skills/archive/old-backup.md', status: 'renamed', from: 'skills/old-backup.md' }]);
    const { patch } = await dreamChangePatch(vault, runs[0].changes[1]);
    expect(patch).toContain('+++ b/skills/archive/ship.md');
    expect(patch).toContain('+++ b/notes/runbook.md');
    expect(patch).not.toContain('changelog.md');
    expect(freeze(tv)).toEqual(before);
  });

  it('ignores a branch under dream/ that is not a run, and says when there are none', async () => {
    const { tv, vault } = await setUp();
    expect(await listDreamRuns(vault)).toEqual([]);
    tv.git(['branch', 'dream/20261120-030000-zzzz']);
    expect(await listDreamRuns(vault)).toEqual([]);
    await expect(showDreamRun(vault, '20261120-030000-zzzz')).rejects.toMatchObject({ code: 'not_found' });
    await expect(showDreamRun(vault, '../../HEAD')).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('landing changes', () => {
  it('lands only the chosen change: one commit, one changelog line, the person as actor; the others stay pending', async () => {
    const { tv, vault } = await setUp();
    const run = await threeChangeRun(vault);
    const count = tv.commitCount();
    const report = await landDreamChanges(vault, { runId: run.runId, changes: [run.ids[2]] });
    expect(report).toMatchObject({ landed: [{ id: run.ids[2] }], skipped: [], settled: false });
    expect(tv.commitCount()).toBe(count + 1);
    expect(tv.head()).toBe(report.landed[0].commit);
    expect(trailersOf(tv)).toMatchObject({
      'Lucid-Actor': PERSON,
      'Lucid-Op': 'archive',
      'Lucid-Dream': run.runId,
      'Lucid-Dream-Change': run.ids[2],
      'Lucid-Edit': report.landed[0].editId,
    });
    expect(tv.git(['show', '--name-status', '--format=', '-M', 'HEAD']).trim().split('\n').sort()).toEqual([
      'M\tchangelog.md',
      expect.stringMatching(/^R\d+\tskills\/old-backup\.md\tskills\/archive\/old-backup\.md$/),
    ]);
    expect(addedLines(tv)).toHaveLength(1);
    expect(addedLines(tv)[0]).toContain(`${PERSON} · archive`);
    expect(tv.read('skills/archive/old-backup.md')).toBe(atBranch(tv, run.changes[2].sha, 'skills/archive/old-backup.md'));
    expect(tv.exists('skills/old-backup.md')).toBe(false);
    expect(tv.read('skills/ship.md')).toBe(SHIP);
    expect(tv.read('skills/deploy.md')).toBe(DEPLOY);
    expect(tv.read('skills/triage.md')).toBe(TRIAGE);
    expect(tv.git(['status', '--porcelain'])).toBe('');
    expect(tv.git(['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
    const after = await showDreamRun(vault, run.runId);
    expect(after.changes.map((c) => c.status)).toEqual(['pending', 'pending', 'landed']);
    expect(after.changes[2].landed?.commit).toBe(report.landed[0].commit);
    expect(tv.git(['rev-parse', run.branch]).trim()).toBe(run.changes[2].sha);
  });

  it('lands a merge touching several files as one commit, and knows it landed from git alone (commit index rebuilt)', async () => {
    const { tv, vault } = await setUp();
    const run = await threeChangeRun(vault);
    const merge = run.changes[1].sha;
    const report = await landDreamChanges(vault, { runId: run.runId, changes: [merge.slice(0, 10)] });
    expect(report.landed).toHaveLength(1);
    // The first change (triage's molt) did not land: deploy's merge lands exactly as the branch has it.
    for (const file of ['skills/deploy.md', 'skills/archive/ship.md', 'notes/runbook.md']) expect(tv.read(file)).toBe(atBranch(tv, merge, file));
    expect(tv.read('skills/deploy.md')).toContain('Tell the team in the release channel.');
    expect(tv.exists('skills/ship.md')).toBe(false);
    expect(tv.read('skills/triage.md')).toBe(TRIAGE);
    expect(trailersOf(tv)).toMatchObject({ 'Lucid-Op': 'merge', 'Lucid-Molt': 'deploy 2->3', 'Lucid-Dream-Change': run.ids[1] });
    expect(addedLines(tv)).toHaveLength(1);
    vault.close();
    fs.rmSync(path.join(tv.root, '.lucid'), { recursive: true, force: true });
    const fresh = await tv.open();
    opened.push(fresh);
    expect((await showDreamRun(fresh, run.runId)).changes.map((c) => c.status)).toEqual(['pending', 'landed', 'pending']);
  });

  it("three-way merges a change onto a person's later edit of other lines, committing their uncommitted version first", async () => {
    const { tv, vault } = await setUp();
    const run = await threeChangeRun(vault);
    // The person adds a step at the end, in Obsidian, and does not commit it.
    const theirs = TRIAGE.replace('3. Assign an owner.\n', '3. Assign an owner.\n4. Link the incident.\n');
    tv.write('skills/triage.md', theirs);
    const count = tv.commitCount();
    const view = await showDreamRun(vault, run.runId);
    expect(view.changes[0]).toMatchObject({ status: 'pending', rebased: true });
    const report = await landDreamChanges(vault, { runId: run.runId, changes: [run.ids[0]] });
    expect(report.landed).toHaveLength(1);
    expect(tv.commitCount()).toBe(count + 2);
    expect(trailersOf(tv, 'HEAD~1')).toMatchObject({ 'Lucid-Actor': PERSON, 'Lucid-Op': 'update' });
    expect(tv.git(['show', 'HEAD~1:skills/triage.md'])).toBe(theirs);
    const landed = tv.read('skills/triage.md');
    expect(landed).toContain('4. Link the incident.');
    expect(landed).toContain('trigger: a new bug report comes in');
    expect(landed).toContain('version: 2');
    expect(trailersOf(tv)).toMatchObject({ 'Lucid-Op': 'molt', 'Lucid-Dream-Change': run.ids[0], 'Lucid-Molt': 'triage 1->2' });
    expect(addedLines(tv)).toHaveLength(1);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('shows a change whose lines a person rewrote since as no longer applying, with the reason, and never forces it', async () => {
    const { tv, vault } = await setUp();
    const run = await threeChangeRun(vault);
    const mine = TRIAGE.replace('trigger: bugs', 'trigger: a customer reports a bug');
    tv.write('skills/triage.md', mine);
    tv.git(['commit', '-qam', 'my trigger']);
    const before = freeze(tv);
    const view = await showDreamRun(vault, run.runId);
    expect(view.changes[0].status).toBe('inapplicable');
    expect(view.changes[0].why).toMatch(/skills\/triage\.md was edited since the dream run on the same lines/);
    expect(view.counts).toMatchObject({ pending: 2, inapplicable: 1 });
    const report = await landDreamChanges(vault, { runId: run.runId, changes: [run.ids[0]] });
    expect(report.landed).toEqual([]);
    expect(report.skipped[0]).toMatchObject({ id: run.ids[0] });
    expect(report.skipped[0].why).toMatch(/no longer applies/);
    expect(freeze(tv)).toEqual(before);
    expect(tv.read('skills/triage.md')).toBe(mine);
  });

  it('shows a change whose file was moved or deleted since as no longer applying', async () => {
    const { tv, vault } = await setUp();
    const run = await threeChangeRun(vault);
    tv.git(['mv', 'skills/old-backup.md', 'skills/backup-old.md']);
    tv.git(['commit', '-qm', 'renamed by hand']);
    const view = await showDreamRun(vault, run.runId);
    expect(view.changes[2]).toMatchObject({ status: 'inapplicable', why: 'skills/old-backup.md was moved or deleted since the dream run.' });
    expect(view.baseMoved).toBe(true);
  });

  it("lands after the branch's base moved: a skill molted since is molted again from its version now", async () => {
    const { tv, vault } = await setUp();
    const run = await threeChangeRun(vault);
    // After the run, the person molts deploy 2 -> 3 themselves (a new title) and adds another note.
    const molted = DEPLOY.replace('version: 2', 'version: 3').replace('# deploy\n', '# Deploy the app\n');
    tv.write('skills/deploy.md', molted);
    tv.write('notes/other.md', '# Other\n');
    tv.git(['add', '-A']);
    tv.git(['commit', '-qm', 'my molt']);
    const report = await landDreamChanges(vault, { runId: run.runId, changes: [run.ids[1]] });
    expect(report.landed).toMatchObject([{ id: run.ids[1], rebased: true }]);
    const text = tv.read('skills/deploy.md');
    expect(text).toContain('version: 4');
    expect(text).toContain('# Deploy the app');
    expect(text).toContain('Tell the team in the release channel.');
    expect(text).toContain('replaces:');
    expect(trailersOf(tv)).toMatchObject({ 'Lucid-Molt': 'deploy 3->4' });
    expect(tv.read('notes/other.md')).toBe('# Other\n');
  });

  it('lands every pending change with "all", settles the run and deletes its branch, never switching HEAD', async () => {
    const { tv, vault } = await setUp();
    const run = await threeChangeRun(vault);
    const count = tv.commitCount();
    const report = await landDreamChanges(vault, { runId: run.runId });
    expect(report.landed.map((l) => l.id)).toEqual(run.ids);
    expect(report.settled).toBe(true);
    expect(tv.commitCount()).toBe(count + 3);
    for (const rev of ['HEAD', 'HEAD~1', 'HEAD~2']) expect(addedLines(tv, rev)).toHaveLength(1);
    for (const file of ['skills/deploy.md', 'skills/archive/ship.md', 'skills/archive/old-backup.md', 'skills/triage.md', 'notes/runbook.md']) {
      expect(tv.read(file)).toBe(atBranch(tv, run.changes[2].sha, file));
    }
    expect(() => tv.git(['rev-parse', '--verify', '-q', `refs/heads/${run.branch}`])).toThrow();
    expect(tv.git(['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
    expect(tv.git(['reflog', 'show', '--format=%gs', 'HEAD'])).not.toMatch(/checkout|switch/);
    expect(await listDreamRuns(vault)).toEqual([]);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });
});

describe('dismissing changes', () => {
  it('records a dismissal on the dream branch (no file changed, HEAD untouched) and settles once all are decided', async () => {
    const { tv, vault } = await setUp();
    const run = await threeChangeRun(vault);
    const before = freeze(tv);
    const report = await dismissDreamChanges(vault, { runId: run.runId, changes: [run.ids[2]], reason: 'keep the old backup skill' });
    expect(report).toMatchObject({ dismissed: [run.ids[2]], settled: false });
    expect(freeze(tv)).toEqual(before);
    const tip = tv.git(['rev-parse', run.branch]).trim();
    expect(tip).toBe(report.commit);
    expect(tv.git(['rev-parse', `${tip}^`]).trim()).toBe(run.changes[2].sha);
    expect(tv.git(['rev-parse', `${tip}^{tree}`]).trim()).toBe(tv.git(['rev-parse', `${run.changes[2].sha}^{tree}`]).trim());
    expect(trailersOf(tv, tip)).toMatchObject({ 'Lucid-Actor': PERSON, 'Lucid-Dream': run.runId, 'Lucid-Dream-Dismissed': run.ids[2] });
    const view = await showDreamRun(vault, run.runId);
    expect(view.changes[2]).toMatchObject({ status: 'dismissed', dismissed: { actor: PERSON, reason: 'keep the old backup skill' } });
    await expect(landDreamChanges(vault, { runId: run.runId, changes: [run.ids[2]] })).resolves.toMatchObject({ landed: [], skipped: [{ id: run.ids[2] }] });
    const landed = await landDreamChanges(vault, { runId: run.runId });
    expect(landed.landed.map((l) => l.id)).toEqual([run.ids[0], run.ids[1]]);
    expect(landed.settled).toBe(true);
    expect(tv.read('skills/old-backup.md')).toBe(OLD);
    expect(tv.git(['for-each-ref', 'refs/heads/dream'])).toBe('');
    expect(tv.git(['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
  });

  it('refuses to decide on a run whose branch is checked out, and an unknown change', async () => {
    const { tv, vault } = await setUp();
    const run = await threeChangeRun(vault);
    await expect(landDreamChanges(vault, { runId: run.runId, changes: ['enotachangeid'] })).rejects.toMatchObject({ code: 'not_found' });
    // ids that git would read as an option, a ref or a range name no change, and nothing moves
    const head = tv.head();
    for (const bad of ['--upload-pack=touch pwned', 'HEAD', `${run.branch}~1`, 'main..HEAD', run.changes[0].sha.slice(0, 6)]) {
      await expect(landDreamChanges(vault, { runId: run.runId, changes: [bad] })).rejects.toMatchObject({ code: 'not_found' });
      await expect(dismissDreamChanges(vault, { runId: run.runId, changes: [bad] })).rejects.toMatchObject({ code: 'not_found' });
    }
    for (const bad of ['--output=pwned', '-d', `${run.runId}..HEAD`, `${run.runId}^`, 'HEAD@{1}']) {
      await expect(landDreamChanges(vault, { runId: bad })).rejects.toMatchObject({ code: 'invalid_input' });
    }
    expect(tv.head()).toBe(head);
    expect(tv.exists('pwned')).toBe(false);
    tv.git(['symbolic-ref', 'HEAD', `refs/heads/${run.branch}`]);
    await expect(dismissDreamChanges(vault, { runId: run.runId })).rejects.toMatchObject({ code: 'repo_state' });
    tv.git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
    expect(tv.git(['rev-parse', run.branch]).trim()).toBe(run.changes[2].sha);
  });

  it('counts changes merged with plain git as landed', async () => {
    const { tv, vault } = await setUp();
    const run = await applyDreamRun(vault, findings({ stale: [{ skill: 'skills/old-backup.md', lastUsed: null, days: 90 }] }));
    tv.git(['merge', '-q', '--ff-only', run.branch]);
    const view = await showDreamRun(vault, run.runId);
    expect(view).toMatchObject({ settled: true, counts: { landed: 1 } });
  });
});
