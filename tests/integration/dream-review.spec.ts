import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dismissDreamChanges, dreamChangePatch, landDreamChanges, listDreamRuns, showDreamRun, type Vault } from '../../lib/vault/index';
import { handRunId, makeDreamBranch, skillText, type HandRun } from '../support/dream-branch';
import { trailersOf } from '../support/mcp';
import { freeze, installedVault } from '../support/revert-vault';
import { TEST_PERSON, type TempVault } from '../support/temp-vault';

/**
 * The dream review on fresh temp vaults: runs made by hand in the agreed branch format, landed
 * change by change on the current branch through the write path, checked with raw git.
 */

const PERSON = `human:${TEST_PERSON}`;
const DEPLOY = skillText('deploy', 2, 'deploying the app', ['Build the image.', 'Push the image.', 'Roll out.', 'Watch the dashboards.']);
const SHIP = skillText('ship', 1, 'shipping the app', ['Build the image.', 'Push the image.', 'Roll out.']);
const OLD = skillText('old-backup', 1, 'backing up the old server', ['Copy the disk.', 'Check the copy.']);
const NOTE = '# Runbook\n\nSee [[skills/ship]] for shipping.\n';

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

async function setUp(): Promise<{ tv: TempVault; vault: Vault }> {
  const made = await installedVault({ 'skills/deploy.md': DEPLOY, 'skills/ship.md': SHIP, 'skills/old-backup.md': OLD, 'notes/runbook.md': NOTE });
  vaults.push(made.tv);
  opened.push(made.vault);
  return made;
}

const DEPLOY_MERGED = skillText('deploy', 3, 'deploying the app', ['Build the image.', 'Push the image.', 'Roll out.', 'Watch the dashboards.'], {
  replaces: '["[[skills/archive/ship]]"]',
});
const SHIP_ARCHIVED = skillText('ship', 1, 'shipping the app', ['Build the image.', 'Push the image.', 'Roll out.'], {
  status: 'archived',
  merged_into: '"[[skills/deploy]]"',
});

/** A run of three changes: merge ship into deploy (three files), archive old-backup, fix deploy's trigger (molt). */
function threeChangeRun(tv: TempVault): HandRun {
  return makeDreamBranch(tv.root, [
    {
      op: 'merge',
      path: 'skills/deploy.md',
      reason: 'ship duplicates deploy: same three steps, same trigger words',
      files: {
        'skills/deploy.md': DEPLOY_MERGED,
        'skills/ship.md': null,
        'skills/archive/ship.md': SHIP_ARCHIVED,
        'notes/runbook.md': NOTE.replace('[[skills/ship]]', '[[skills/deploy]]'),
      },
      molt: 'deploy 2->3',
    },
    {
      op: 'archive',
      path: 'skills/old-backup.md',
      reason: 'no session used old-backup for 90 days',
      files: { 'skills/old-backup.md': null, 'skills/archive/old-backup.md': OLD.replace('version: 1\n', 'version: 1\nstatus: archived\n') },
    },
    {
      op: 'molt',
      path: 'skills/deploy.md',
      reason: 'the trigger names what the person asks for',
      files: { 'skills/deploy.md': DEPLOY_MERGED.replace('version: 3', 'version: 4').replace('trigger: deploying the app', 'trigger: deploy or ship the app') },
      molt: 'deploy 3->4',
    },
  ]);
}

/** The changelog lines the last commit added, read with raw git. */
function addedLines(tv: TempVault, rev = 'HEAD'): string[] {
  return tv
    .git(['diff', `${rev}~1`, rev, '--', 'changelog.md'])
    .split('\n')
    .filter((l) => l.startsWith('+- '));
}

describe('listing dream runs', () => {
  it('lists each run with its changes, all pending, and changes nothing', async () => {
    const { tv, vault } = await setUp();
    const run = threeChangeRun(tv);
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
    expect(runs[0].changes.map((c) => [c.id, c.op, c.path])).toEqual([
      [run.changes[0].id, 'merge', 'skills/deploy.md'],
      [run.changes[1].id, 'archive', 'skills/old-backup.md'],
      [run.changes[2].id, 'molt', 'skills/deploy.md'],
    ]);
    expect(runs[0].changes[1].files).toEqual([{ path: 'skills/archive/old-backup.md', status: 'renamed', from: 'skills/old-backup.md' }]);
    expect(runs[0].changes[0].reason).toBe('ship duplicates deploy: same three steps, same trigger words');
    const { patch } = await dreamChangePatch(vault, runs[0].changes[0]);
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
    const run = threeChangeRun(tv);
    const count = tv.commitCount();
    const report = await landDreamChanges(vault, { runId: run.runId, changes: [run.changes[1].id] });
    expect(report).toMatchObject({ landed: [{ id: run.changes[1].id }], skipped: [], settled: false });
    expect(tv.commitCount()).toBe(count + 1);
    expect(tv.head()).toBe(report.landed[0].commit);
    expect(trailersOf(tv)).toMatchObject({
      'Lucid-Actor': PERSON,
      'Lucid-Op': 'archive',
      'Lucid-Dream': run.runId,
      'Lucid-Dream-Change': run.changes[1].id,
      'Lucid-Edit': report.landed[0].editId,
    });
    expect(tv.git(['show', '--name-status', '--format=', '-M', 'HEAD']).trim().split('\n').sort()).toEqual([
      'M\tchangelog.md',
      expect.stringMatching(/^R\d+\tskills\/old-backup\.md\tskills\/archive\/old-backup\.md$/),
    ]);
    expect(addedLines(tv)).toHaveLength(1);
    expect(addedLines(tv)[0]).toContain(`${PERSON} · archive`);
    expect(tv.exists('skills/old-backup.md')).toBe(false);
    expect(tv.read('skills/ship.md')).toBe(SHIP);
    expect(tv.read('skills/deploy.md')).toBe(DEPLOY);
    expect(tv.git(['status', '--porcelain'])).toBe('');
    expect(tv.git(['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
    const after = await showDreamRun(vault, run.runId);
    expect(after.changes.map((c) => c.status)).toEqual(['pending', 'landed', 'pending']);
    expect(after.changes[1].landed?.commit).toBe(report.landed[0].commit);
    expect(tv.git(['rev-parse', run.branch]).trim()).toBe(run.changes[2].sha);
  });

  it('lands a merge touching several files as one commit, and knows it landed from git alone (commit index rebuilt)', async () => {
    const { tv, vault } = await setUp();
    const run = threeChangeRun(tv);
    const report = await landDreamChanges(vault, { runId: run.runId, changes: [run.changes[0].sha.slice(0, 10)] });
    expect(report.landed).toHaveLength(1);
    expect(tv.read('skills/deploy.md')).toBe(DEPLOY_MERGED);
    expect(tv.read('skills/archive/ship.md')).toBe(SHIP_ARCHIVED);
    expect(tv.exists('skills/ship.md')).toBe(false);
    expect(tv.read('notes/runbook.md')).toContain('[[skills/deploy]]');
    expect(trailersOf(tv)).toMatchObject({ 'Lucid-Op': 'merge', 'Lucid-Molt': 'deploy 2->3' });
    expect(addedLines(tv)).toHaveLength(1);
    vault.close();
    fs.rmSync(path.join(tv.root, '.lucid'), { recursive: true, force: true });
    const fresh = await tv.open();
    opened.push(fresh);
    expect((await showDreamRun(fresh, run.runId)).changes.map((c) => c.status)).toEqual(['landed', 'pending', 'pending']);
  });

  it("three-way merges a change onto a person's later edit of other lines, committing their uncommitted version first", async () => {
    const { tv, vault } = await setUp();
    const run = threeChangeRun(tv);
    await landDreamChanges(vault, { runId: run.runId, changes: [run.changes[0].id] });
    // The person adds a step at the end, in Obsidian, and does not commit it.
    const theirs = tv.read('skills/deploy.md').replace('4. Watch the dashboards.\n', '4. Watch the dashboards.\n5. Tell the team.\n');
    tv.write('skills/deploy.md', theirs);
    const count = tv.commitCount();
    const view = await showDreamRun(vault, run.runId);
    expect(view.changes[2]).toMatchObject({ status: 'pending', rebased: true });
    const report = await landDreamChanges(vault, { runId: run.runId, changes: [run.changes[2].id] });
    expect(report.landed).toHaveLength(1);
    expect(tv.commitCount()).toBe(count + 2);
    expect(trailersOf(tv, 'HEAD~1')).toMatchObject({ 'Lucid-Actor': PERSON, 'Lucid-Op': 'update' });
    expect(tv.git(['show', 'HEAD~1:skills/deploy.md'])).toBe(theirs);
    const landed = tv.read('skills/deploy.md');
    expect(landed).toContain('5. Tell the team.');
    expect(landed).toContain('trigger: deploy or ship the app');
    expect(landed).toContain('version: 4');
    expect(trailersOf(tv)).toMatchObject({ 'Lucid-Op': 'molt', 'Lucid-Dream-Change': run.changes[2].id, 'Lucid-Molt': 'deploy 3->4' });
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('shows a change whose lines a person rewrote since as no longer applying, with the reason, and never forces it', async () => {
    const { tv, vault } = await setUp();
    const run = threeChangeRun(tv);
    await landDreamChanges(vault, { runId: run.runId, changes: [run.changes[0].id] });
    const mine = tv.read('skills/deploy.md').replace('trigger: deploying the app', 'trigger: releasing a build');
    tv.write('skills/deploy.md', mine);
    tv.git(['commit', '-qam', 'my trigger']);
    const before = freeze(tv);
    const view = await showDreamRun(vault, run.runId);
    expect(view.changes[2].status).toBe('inapplicable');
    expect(view.changes[2].why).toMatch(/skills\/deploy\.md was edited since the dream run on the same lines/);
    expect(view.counts).toMatchObject({ landed: 1, pending: 1, inapplicable: 1 });
    const report = await landDreamChanges(vault, { runId: run.runId, changes: [run.changes[2].id] });
    expect(report.landed).toEqual([]);
    expect(report.skipped[0]).toMatchObject({ id: run.changes[2].id });
    expect(report.skipped[0].why).toMatch(/no longer applies/);
    expect(freeze(tv)).toEqual(before);
    expect(tv.read('skills/deploy.md')).toBe(mine);
  });

  it('shows a change whose file was moved or deleted since as no longer applying', async () => {
    const { tv, vault } = await setUp();
    const run = threeChangeRun(tv);
    tv.git(['mv', 'skills/old-backup.md', 'skills/backup-old.md']);
    tv.git(['commit', '-qm', 'renamed by hand']);
    const view = await showDreamRun(vault, run.runId);
    expect(view.changes[1]).toMatchObject({ status: 'inapplicable', why: 'skills/old-backup.md was moved or deleted since the dream run.' });
    expect(view.baseMoved).toBe(true);
  });

  it("lands after the branch's base moved: a skill molted since is molted again from its version now", async () => {
    const { tv, vault } = await setUp();
    const run = threeChangeRun(tv);
    // After the run, the person molts deploy 2 -> 3 themselves (a new first step) and edits another note.
    const molted = DEPLOY.replace('version: 2', 'version: 3').replace('1. Build the image.', '0. Check the branch is green.\n1. Build the image.');
    tv.write('skills/deploy.md', molted);
    tv.write('notes/other.md', '# Other\n');
    tv.git(['add', '-A']);
    tv.git(['commit', '-qm', 'my molt']);
    const report = await landDreamChanges(vault, { runId: run.runId, changes: [run.changes[0].id] });
    expect(report.landed).toMatchObject([{ id: run.changes[0].id, rebased: true }]);
    const text = tv.read('skills/deploy.md');
    expect(text).toContain('version: 4');
    expect(text).toContain('0. Check the branch is green.');
    expect(text).toContain('replaces:');
    expect(trailersOf(tv)).toMatchObject({ 'Lucid-Molt': 'deploy 3->4' });
    expect(tv.read('notes/other.md')).toBe('# Other\n');
  });

  it('lands every pending change with "all", settles the run and deletes its branch, never switching HEAD', async () => {
    const { tv, vault } = await setUp();
    const run = threeChangeRun(tv);
    const count = tv.commitCount();
    const report = await landDreamChanges(vault, { runId: run.runId });
    expect(report.landed.map((l) => l.id)).toEqual(run.changes.map((c) => c.id));
    expect(report.settled).toBe(true);
    expect(tv.commitCount()).toBe(count + 3);
    for (const rev of ['HEAD', 'HEAD~1', 'HEAD~2']) expect(addedLines(tv, rev)).toHaveLength(1);
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
    const run = threeChangeRun(tv);
    const before = freeze(tv);
    const report = await dismissDreamChanges(vault, { runId: run.runId, changes: [run.changes[1].id], reason: 'keep the old backup skill' });
    expect(report).toMatchObject({ dismissed: [run.changes[1].id], settled: false });
    expect(freeze(tv)).toEqual(before);
    const tip = tv.git(['rev-parse', run.branch]).trim();
    expect(tip).toBe(report.commit);
    expect(tv.git(['rev-parse', `${tip}^`]).trim()).toBe(run.changes[2].sha);
    expect(tv.git(['rev-parse', `${tip}^{tree}`]).trim()).toBe(tv.git(['rev-parse', `${run.changes[2].sha}^{tree}`]).trim());
    expect(trailersOf(tv, tip)).toMatchObject({ 'Lucid-Actor': PERSON, 'Lucid-Dream': run.runId, 'Lucid-Dream-Dismissed': run.changes[1].id });
    const view = await showDreamRun(vault, run.runId);
    expect(view.changes[1]).toMatchObject({ status: 'dismissed', dismissed: { actor: PERSON, reason: 'keep the old backup skill' } });
    await expect(landDreamChanges(vault, { runId: run.runId, changes: [run.changes[1].id] })).resolves.toMatchObject({
      landed: [],
      skipped: [{ id: run.changes[1].id }],
    });
    const landed = await landDreamChanges(vault, { runId: run.runId });
    expect(landed.landed.map((l) => l.id)).toEqual([run.changes[0].id, run.changes[2].id]);
    expect(landed.settled).toBe(true);
    expect(tv.exists('skills/old-backup.md')).toBe(true);
    expect(tv.git(['for-each-ref', 'refs/heads/dream'])).toBe('');
    expect(tv.git(['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
  });

  it('refuses to decide on a run whose branch is checked out, and an unknown change', async () => {
    const { tv, vault } = await setUp();
    const run = threeChangeRun(tv);
    await expect(landDreamChanges(vault, { runId: run.runId, changes: ['enotachangeid'] })).rejects.toMatchObject({ code: 'not_found' });
    tv.git(['symbolic-ref', 'HEAD', `refs/heads/${run.branch}`]);
    await expect(dismissDreamChanges(vault, { runId: run.runId })).rejects.toMatchObject({ code: 'repo_state' });
    tv.git(['symbolic-ref', 'HEAD', 'refs/heads/main']);
  });

  it('counts changes merged with plain git as landed', async () => {
    const { tv, vault } = await setUp();
    const run = makeDreamBranch(
      tv.root,
      [{ op: 'archive', path: 'skills/old-backup.md', reason: 'unused', files: { 'skills/old-backup.md': null, 'skills/archive/old-backup.md': OLD } }],
      { runId: handRunId() },
    );
    tv.git(['merge', '-q', '--ff-only', run.branch]);
    const view = await showDreamRun(vault, run.runId);
    expect(view).toMatchObject({ settled: true, counts: { landed: 1 } });
  });
});
