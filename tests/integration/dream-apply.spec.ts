import { readdirSync } from 'node:fs';
import nodePath from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyDreamRun, findDreamCandidates, type Vault } from '../../lib/vault/index';
import { SKILL_DEPLOY, SKILL_FLAKY, SKILL_PG_BACKUP, SKILL_PG_RESTORE, SKILL_RETRY } from '../support/dream-vault';
import { installedVault } from '../support/revert-vault';
import type { TempVault } from '../support/temp-vault';

/** `--apply` on a temp vault: the dream branch's commits, checked with raw git, and the current branch left alone. */

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

const STALE_SKILL = SKILL_DEPLOY.replace('name: deploy-frontend', 'name: old-deploy');
const MISNAMED = `---
type: skill
name: something-else
version: 1
trigger: when the team calendar needs the next on-call rota
last_updated: 2026-10-05
---

1. Export the on-call rota from the scheduling tool
2. Paste it into the shared calendar as all-day events
`;

async function setUp() {
  const made = await installedVault({
    'skills/flaky-ci.md': SKILL_FLAKY,
    'skills/retry-intermittent-tests.md': SKILL_RETRY,
    'skills/postgres-backup.md': SKILL_PG_BACKUP,
    'skills/postgres-restore.md': SKILL_PG_RESTORE,
    'skills/old-deploy.md': STALE_SKILL,
    'skills/misnamed.md': MISNAMED,
    'notes/ci.md': '# CI\n\nSee [[skills/retry-intermittent-tests]] and [[retry-intermittent-tests|the retry skill]].\n',
    'notes/ship.md': '# Shipping\n\nUse [[skills/old-deploy]].\n',
  });
  vaults.push(made.tv);
  opened.push(made.vault);
  return made;
}

function trailers(tv: TempVault, rev: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of tv.git(['log', '-1', '--format=%(trailers:only,unfold)', rev]).split('\n')) {
    const at = line.indexOf(': ');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 2);
  }
  return out;
}

describe('applyDreamRun', () => {
  it('builds dream/<run id> one commit per change, leaving the current branch, its index and its files to an agent writing meanwhile', async () => {
    const { tv, vault } = await setUp();
    // 90 days on the vault's clock: every skill above is unused since its first commit
    const findings = await findDreamCandidates(vault, { now: new Date(Date.now() + 90 * 86_400_000) });
    expect(findings.duplicates.map((d) => [d.a, d.b])).toEqual([['skills/flaky-ci.md', 'skills/retry-intermittent-tests.md']]);
    const only = { ...findings, stale: findings.stale.filter((s) => s.skill === 'skills/old-deploy.md') };

    const head0 = tv.head();
    expect(tv.git(['status', '--porcelain'])).toBe('');
    // a person's staged work: it must stay staged, as it is, and out of every dream commit
    tv.write('notes/draft.md', '# Draft\n\nStaged by hand.\n');
    tv.git(['add', 'notes/draft.md']);
    const staged = tv.git(['ls-files', '-s', 'notes/draft.md']);
    const progress: string[] = [];
    let agentCommit = '';
    const run = await applyDreamRun(vault, only, {
      onProgress: (p) => progress.push(`${p.phase} ${p.done}/${p.total}`),
      beforeCommit: async (n) => {
        if (n !== 1) return;
        const written = await vault.edit({
          actor: 'agent:writer',
          op: 'create',
          path: 'notes/agent.md',
          reason: 'written between two dream commits',
          changes: [{ path: 'notes/agent.md', content: '# Agent\n\nWritten meanwhile.\n' }],
        });
        agentCommit = written.commit;
      },
    });

    // the current branch: only the agent's commit; its index and its files as that commit left them
    expect(tv.git(['symbolic-ref', 'HEAD']).trim()).toBe('refs/heads/main');
    expect(tv.head()).toBe(agentCommit);
    expect(tv.git(['rev-parse', `${agentCommit}^`]).trim()).toBe(head0);
    expect(tv.git(['diff', '--cached', '--name-only']).trim()).toBe('notes/draft.md');
    expect(tv.git(['ls-files', '-s', 'notes/draft.md'])).toBe(staged);
    expect(tv.git(['status', '--porcelain']).trim()).toBe('A  notes/draft.md');
    expect(progress).toEqual(['apply 0/3', 'apply 1/3', 'apply 2/3', 'apply 3/3']);
    expect(tv.exists('skills/retry-intermittent-tests.md')).toBe(true);
    expect(tv.exists('skills/archive/retry-intermittent-tests.md')).toBe(false);
    expect(tv.exists('skills/archive/old-deploy.md')).toBe(false);
    expect(tv.read('skills/flaky-ci.md')).toBe(SKILL_FLAKY);

    // the branch: fix, merge, archive, one commit each, on the old HEAD
    expect(run.base).toBe(head0);
    expect(run.branch).toMatch(/^dream\/\d{8}-\d{6}-[a-z2-7]{4}$/);
    expect(run.changes.map((c) => c.op)).toEqual(['molt', 'merge', 'archive']);
    const shas = tv
      .git(['rev-list', '--reverse', `${head0}..refs/heads/${run.branch}`])
      .trim()
      .split('\n');
    expect(shas).toEqual(run.changes.map((c) => c.sha));
    for (const [i, sha] of shas.entries()) {
      const t = trailers(tv, sha);
      // written by the dream agent, committed by the person who ran it
      expect(tv.git(['log', '-1', '--format=%an <%ae> | %cn', sha]).trim()).toBe(
        `agent:dream <dream@agents.lucid.invalid> | ${tv.git(['config', 'user.name']).trim()}`,
      );
      expect(tv.git(['ls-tree', '-r', '--name-only', sha])).not.toContain('notes/draft.md');
      expect(t).toMatchObject({ 'Lucid-Actor': 'agent:dream', 'Lucid-Op': run.changes[i].op, 'Lucid-Dream': run.runId });
      expect(t['Lucid-Edit']).toMatch(/^e[a-z2-7]{12}$/);
      const added = tv
        .git(['diff', `${sha}^`, sha, '--', 'changelog.md'])
        .split('\n')
        .filter((l) => l.startsWith('+- '));
      expect(added).toHaveLength(1);
      expect(added[0]).toContain(`· agent:dream · ${run.changes[i].op} `);
      expect(added[0].endsWith(`^${t['Lucid-Edit']}`)).toBe(true);
    }
    expect(trailers(tv, shas[0])['Lucid-Molt']).toBe('misnamed 1->2');
    expect(trailers(tv, shas[1])['Lucid-Molt']).toBe('flaky-ci 3->4');

    const at = (path: string) => tv.git(['show', `refs/heads/${run.branch}:${path}`]);
    expect(at('skills/misnamed.md')).toMatch(/^name: misnamed$/m);
    expect(at('skills/misnamed.md')).toMatch(/^version: 2$/m);
    const survivor = at('skills/flaky-ci.md');
    expect(survivor).toMatch(/^version: 4$/m);
    expect(survivor).toMatch(/replaces:\n\s+- "\[\[skills\/archive\/retry-intermittent-tests\]\]"/);
    expect(survivor).toContain('Tell the team in the CI channel which test was quarantined');
    expect(survivor.match(/quarantine list/g)).toHaveLength(1);
    const merged = at('skills/archive/retry-intermittent-tests.md');
    expect(merged).toMatch(/^status: archived$/m);
    expect(merged).toMatch(/^merged_into: "\[\[skills\/flaky-ci\]\]"$/m);
    expect(at('notes/ci.md')).toContain('[[skills/archive/retry-intermittent-tests]]');
    expect(at('skills/archive/old-deploy.md')).toMatch(/^status: archived$/m);
    expect(at('notes/ship.md')).toContain('[[skills/archive/old-deploy]]');
    // nothing deleted: every file of the base is on the branch, or moved to the archive
    const tipFiles = new Set(
      tv
        .git(['ls-tree', '-r', '--name-only', `refs/heads/${run.branch}`])
        .trim()
        .split('\n'),
    );
    for (const file of tv.git(['ls-tree', '-r', '--name-only', head0]).trim().split('\n')) {
      expect(tipFiles.has(file) || tipFiles.has(file.replace(/^skills\//, 'skills/archive/'))).toBe(true);
    }
    expect(tv.git(['ls-files', '--others', '--exclude-standard'])).toBe('');
    // no temporary index left behind
    expect(readdirSync(nodePath.join(tv.root, '.lucid')).filter((name) => name.includes('index'))).toEqual([]);
  });

  it('creates no branch when there is nothing to change', async () => {
    const { tv, vault } = await setUp();
    const run = await applyDreamRun(vault, { skills: 6, duplicates: [], stale: [], inconsistent: [] });
    expect(run.changes).toEqual([]);
    expect(tv.git(['for-each-ref', 'refs/heads/dream/'])).toBe('');
  });
});
