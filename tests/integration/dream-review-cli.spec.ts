import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../cli/main';
import type { Io } from '../../cli/shared';
import { applyDreamRun, showDreamRun } from '../../lib/vault/index';
import { findings, skillText } from '../support/dream-runs';
import { trailersOf } from '../support/mcp';
import { installedVault } from '../support/revert-vault';
import { TEST_PERSON, type TempVault } from '../support/temp-vault';

/** `lucid dream runs|show|land|dismiss`: the review from a terminal, checked with raw git. */

const OLD = skillText('old-backup', 1, 'backing up the old server', ['Copy the disk.', 'Check the copy.']);
const FIX = skillText('fix-me', 1, 'fixing things', ['Look.', 'Fix.']);

const vaults: TempVault[] = [];
afterEach(() => {
  for (const tv of vaults.splice(0)) tv.cleanup();
});

async function dream(tv: TempVault, args: string[], tty = false): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io & { isTTY?: boolean } = {
    ...(tty ? { isTTY: true } : {}),
    out: (t) => {
      stdout += `${t}\n`;
    },
    err: (t) => {
      stderr += `${t}\n`;
    },
    cwd: tv.tempDir('cwd'),
    env: tv.env,
  };
  const code = await main(['dream', ...args, '--vault', tv.root], io);
  return { code, stdout, stderr };
}

describe('lucid dream review verbs', () => {
  it('says how to make a run when there is none', async () => {
    const { tv, vault } = await installedVault({});
    vault.close();
    vaults.push(tv);
    const out = await dream(tv, ['runs']);
    expect(out).toMatchObject({ code: 0 });
    expect(out.stdout).toContain('lucid dream --apply');
    // Anything else is the dream pass's own command, which the review's verbs wrap.
    expect((await dream(tv, [])).stdout).toContain('No skills in skills/');
    expect((await dream(tv, ['runs', '--apply'])).code).toBe(2);
  });

  it('lists, shows, lands one change, dismisses the other and settles the run', async () => {
    const { tv, vault } = await installedVault({ 'skills/old-backup.md': OLD, 'skills/fix-me.md': FIX });
    vaults.push(tv);
    const made = await applyDreamRun(
      vault,
      findings({
        inconsistent: [{ skill: 'skills/fix-me.md', field: 'trigger', problem: 'too vague', fix: { trigger: 'fixing a broken build' } }],
        stale: [{ skill: 'skills/old-backup.md', lastUsed: null, days: 90 }],
      }),
    );
    // The dream pass commits fixes first: the molt, then the archive.
    const [molt, archive] = (await showDreamRun(vault, made.runId)).changes;
    const run = { runId: made.runId, changes: [archive, molt] };
    vault.close();
    const runs = await dream(tv, ['runs']);
    expect(runs.stdout).toContain(run.runId);
    expect(runs.stdout).toContain('2 changes: 2 pending, 0 landed, 0 dismissed, 0 no longer apply');

    const shown = await dream(tv, ['show', run.runId, '--diff']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`${run.changes[0].id}  pending  archive skills/archive/old-backup.md`);
    expect(shown.stdout).toContain('renamed skills/old-backup.md -> skills/archive/old-backup.md');
    expect(shown.stdout).toContain('+trigger: fixing a broken build');

    expect((await dream(tv, ['land', run.runId])).code).toBe(2);
    const count = tv.commitCount();
    const landed = await dream(tv, ['land', run.runId, run.changes[1].id]);
    expect(landed).toMatchObject({ code: 0, stderr: '' });
    expect(tv.commitCount()).toBe(count + 1);
    expect(trailersOf(tv)).toMatchObject({
      'Lucid-Actor': `human:${TEST_PERSON}`,
      'Lucid-Op': 'molt',
      'Lucid-Molt': 'fix-me 1->2',
      'Lucid-Dream-Change': run.changes[1].id,
    });

    const dismissed = await dream(tv, ['dismiss', run.runId, '--all', '--reason', 'still in use']);
    expect(dismissed.code).toBe(0);
    expect(dismissed.stdout).toContain(`Dismissed ${run.changes[0].id}`);
    expect(dismissed.stdout).toContain('is settled');
    expect(tv.commitCount()).toBe(count + 1);
    expect(tv.exists('skills/old-backup.md')).toBe(true);
    expect(tv.git(['for-each-ref', 'refs/heads/dream'])).toBe('');
    expect((await dream(tv, ['show', run.runId])).code).toBe(1);
  });

  it('--apply ends by saying how to review the run, and that command shows it', async () => {
    const misnamed = skillText('other-name', 1, 'renaming things', ['Look.', 'Rename.']);
    const { tv, vault } = await installedVault({ 'skills/misnamed.md': misnamed });
    vault.close();
    vaults.push(tv);
    const head = tv.head();
    const applied = await dream(tv, ['--apply'], true);
    expect(applied.code).toBe(0);
    // on a terminal: one line rewritten in place while it commits, cleared at the end
    expect(applied.stderr).toContain('\r\u001b[Kdream: committing changes to the dream branch 1/1');
    expect(applied.stderr.endsWith('\r\u001b[K\n')).toBe(true);
    expect(tv.head()).toBe(head);
    const runId = /lucid dream show (\S+) --vault /.exec(applied.stdout)?.[1] ?? '';
    expect(runId).toMatch(/^\d{8}-\d{6}-[a-z2-7]{4}$/);
    expect(applied.stdout).toContain(`--vault ${tv.root}`);
    expect(applied.stdout).toContain('/dream page');
    expect(applied.stdout).toContain(`lucid dream land ${runId} CHANGE... (or --all)`);
    const shown = await dream(tv, ['show', runId]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('pending  molt skills/misnamed.md');
    const landed = await dream(tv, ['land', runId, '--all'], true);
    expect(landed.code).toBe(0);
    expect(landed.stderr).toContain('\r\u001b[Kdream: landing changes 1/1');
    expect(landed.stdout).toMatch(/^Landed e[a-z2-7]{12} as [0-9a-f]{7}/m);
    expect(tv.read('skills/misnamed.md')).toMatch(/^name: misnamed$/m);
  });
});
