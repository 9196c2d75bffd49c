import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evalGrowth as cliEvalGrowth } from '../../cli/eval-growth';
import { UsageError, type Io } from '../../cli/shared';
import { evalGrowth, type GrowthReport } from '../../lib/vault/eval/growth';
import { grepStrategy } from '../../lib/vault/eval/strategies/grep';
import { keywordStrategy } from '../../lib/vault/eval/strategies/keyword';
import type { Strategy } from '../../lib/vault/eval/types';
import type { Vault } from '../../lib/vault/index';
import { openVault } from '../../lib/vault/vault';
import { makeTempVault, snapshot, type TempVault } from '../support/temp-vault';

/** Issue 17: `lucid eval growth` replays a set at earlier commits and with filler, never touching the vault. */

let vault: TempVault;
let v: Vault | undefined;
afterEach(() => {
  v?.close();
  v = undefined;
  vault?.cleanup();
});

const question = (id: string, text: string, gold: string) => JSON.stringify({ id, question: text, gold: [gold], answers: [], kind: 'hand', split: 'test' });

/** Four commits, a day apart: two notes, then one note a commit; the question set comes with the last. */
function grownVault(): TempVault {
  const made = makeTempVault({
    'projects/atlas.md': '# Atlas\n\nAtlas moves the billing ledger onto a new database before the autumn audit.\n',
    'people/ada.md': '# Ada\n\nAda runs the payments team and reviews every schema migration.\n',
  });
  const commitAt = (day: number, message: string) => {
    const date = `2026-11-0${day}T12:00:00+00:00`;
    execFileSync('git', ['add', '-A'], { cwd: made.root, env: made.env as NodeJS.ProcessEnv });
    const env: Record<string, string | undefined> = { ...made.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
    execFileSync('git', ['commit', '-q', '-m', message], { cwd: made.root, env: env as NodeJS.ProcessEnv });
  };
  made.write('decisions/use-postgres.md', '# Use Postgres\n\nThe ledger moves to Postgres: the load test kept latency steady under month-end traffic.\n');
  commitAt(2, 'decision');
  made.write('notes/retries.md', '# Retries\n\nFailed invoice deliveries wait twice as long before each retry.\n');
  commitAt(3, 'retries');
  made.write('notes/runbook.md', '# Runbook\n\nDuring an outage, page the on-call engineer and freeze deploys until the incident review.\n');
  made.write(
    'evals/questions/team.jsonl',
    `${[
      question('q1', 'which team reviews schema migration work?', 'people/ada.md'),
      question('q2', 'what kept latency steady under month-end traffic?', 'decisions/use-postgres.md'),
      question('q3', 'who gets paged in an outage, and are deploys frozen?', 'notes/runbook.md'),
    ].join('\n')}\n`,
  );
  commitAt(4, 'runbook and questions');
  return made;
}

/** The vault's git state as raw git reports it: everything a checkout, commit or branch would change. */
function gitState(root: string): Record<string, string> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  return {
    branch: git('symbolic-ref', 'HEAD'),
    refs: git('for-each-ref', '--format=%(refname) %(objectname)'),
    index: git('ls-files', '--stage'),
    reflog: git('reflog', '--format=%H %gs'),
    worktrees: git('worktree', 'list', '--porcelain'),
    objects: git('count-objects'),
  };
}

const strategies: Strategy[] = [keywordStrategy, grepStrategy];

describe('eval growth', () => {
  it('leaves out, and counts, the questions whose gold notes a commit did not have yet', async () => {
    vault = grownVault();
    v = await vault.open();
    const temp = vault.tempDir('growth');
    const report = await evalGrowth(v, { set: 'team', commits: 3, fillers: [], strategies, tempDir: temp });
    const log = vault.git(['log', '--format=%H', '--reverse']).trim().split('\n');
    expect(report.set).toBe('team');
    expect(report.points.map((p) => p.commit)).toEqual(log);
    expect(report.points[0].label).toMatch(new RegExp(`^\\d{4}-\\d{2}-\\d{2} ${log[0].slice(0, 7)}$`));
    expect(report.points.slice(1).map((p) => p.label)).toEqual([
      `2026-11-02 ${log[1].slice(0, 7)}`,
      `2026-11-03 ${log[2].slice(0, 7)}`,
      `HEAD ${log[3].slice(0, 7)}`,
    ]);
    expect(report.points.map((p) => [p.notes, p.questions, p.leftOut])).toEqual([
      [2, 1, 2],
      [3, 2, 1],
      [4, 2, 1],
      [5, 3, 0],
    ]);
    for (const point of report.points) {
      expect(Object.keys(point.summary)).toEqual(['keyword', 'grep']);
      expect(point.summary.keyword?.recall_at_5?.n).toBe(point.questions);
    }
    expect(report.points[3].summary.keyword?.recall_at_5?.mean).toBe(1);
    expect(fs.readdirSync(temp)).toEqual([]);
  });

  it('never checks out, commits to or changes the vault: files, HEAD, branch, index, refs and status stay as they were', async () => {
    vault = grownVault();
    vault.write('notes/draft.md', '# Draft\n\nUncommitted words of the person.\n');
    vault.write('notes/retries.md', '# Retries\n\nChanged on disk, not committed.\n');
    v = await vault.open();
    const before = { ...snapshot(vault.root), ...gitState(vault.root) };
    await evalGrowth(v, { set: 'team', commits: 2, fillers: [1], strategies, tempDir: vault.tempDir('growth') });
    expect({ ...snapshot(vault.root), ...gitState(vault.root) }).toEqual(before);
  });

  it('adds filler notes to a copy of HEAD: 2x, 4x and 11x the notes, the newest commits, the same notes every run', async () => {
    vault = grownVault();
    v = await vault.open();
    const temp = vault.tempDir('growth');
    const run = () => evalGrowth(v as Vault, { set: 'team', commits: 0, strategies, tempDir: temp });
    const first = await run();
    expect(first.points.map((p) => [p.label, p.notes, p.questions, p.leftOut])).toEqual([
      [`HEAD ${vault.head().slice(0, 7)}`, 5, 3, 0],
      ['HEAD + 1x filler', 10, 3, 0],
      ['HEAD + 3x filler', 20, 3, 0],
      ['HEAD + 10x filler', 55, 3, 0],
    ]);
    const commits = first.points.map((p) => p.commit);
    expect(new Set(commits).size).toBe(4);
    const second = await run();
    expect(second.points.map((p) => p.commit)).toEqual(commits);
    const recall = (r: GrowthReport) => r.points.map((p) => [p.summary.keyword?.recall_at_5, p.summary.grep?.recall_at_5]);
    expect(recall(second)).toEqual(recall(first));
    expect(fs.readdirSync(temp)).toEqual([]);
  });

  it("runs none of the person's git hooks in its clone (post-checkout, post-commit from the global config)", async () => {
    vault = grownVault();
    const hooks = vault.tempDir('hooks');
    const marker = path.join(hooks, 'ran');
    for (const hook of ['post-checkout', 'post-commit', 'pre-commit'])
      fs.writeFileSync(path.join(hooks, hook), `#!/bin/sh\necho ${hook} >> '${marker}'\n`, { mode: 0o755 });
    const globalConfig = path.join(hooks, 'gitconfig');
    fs.writeFileSync(globalConfig, `[core]\n\thooksPath = ${hooks}\n`);
    vault.env.GIT_CONFIG_GLOBAL = globalConfig;
    v = await vault.open();
    await evalGrowth(v, { set: 'team', commits: 1, fillers: [1], strategies: [keywordStrategy], tempDir: vault.tempDir('growth') });
    expect(fs.existsSync(marker)).toBe(false);
    vault.git(['commit', '-q', '--allow-empty', '-m', 'the hooks do run for the person']);
    expect(fs.readFileSync(marker, 'utf8')).toContain('post-commit');
  });

  it('replays a vault that is a folder of a larger repository, at the commits that touched that folder', async () => {
    vault = makeTempVault({ 'code/main.c': 'int main(void) { return 0; }\n', 'vault/notes/a.md': '# Alpha\n\nThe alpha ledger holds invoices.\n' });
    vault.write('code/main.c', 'int main(void) { return 1; }\n');
    vault.git(['commit', '-qam', 'code only']);
    vault.write('vault/notes/b.md', '# Beta\n\nThe beta queue retries deliveries.\n');
    vault.write(
      'vault/evals/questions/team.jsonl',
      `${question('q1', 'where are invoices held?', 'notes/a.md')}\n${question('q2', 'what retries deliveries?', 'notes/b.md')}\n`,
    );
    vault.git(['add', '-A']);
    vault.git(['commit', '-qm', 'beta']);
    vault.write('code/main.c', 'int main(void) { return 2; }\n');
    vault.git(['commit', '-qam', 'code again']);
    v = await openVault({ root: path.join(vault.root, 'vault'), env: vault.env });
    const report = await evalGrowth(v, { set: 'team', commits: 4, fillers: [1], strategies: [keywordStrategy], tempDir: vault.tempDir('growth') });
    const first = vault.git(['rev-list', '--max-parents=0', 'HEAD']).trim();
    expect(report.points.map((p) => [p.commit, p.notes, p.questions, p.leftOut])).toEqual([
      [first, 1, 1, 1],
      [vault.head(), 2, 2, 0],
      [report.points[2].commit, 4, 2, 0],
    ]);
    expect(report.points[1].summary.keyword?.recall_at_5?.mean).toBe(1);
  });

  it('removes the temporary folder when a strategy fails or the run is stopped half way', async () => {
    vault = grownVault();
    v = await vault.open();
    const temp = vault.tempDir('growth');
    let calls = 0;
    const failing: Strategy = {
      name: 'failing',
      description: 'fails on its fourth question',
      rank: async () => {
        calls += 1;
        if (calls === 4) throw new Error('strategy broke');
        return [];
      },
    };
    await expect(evalGrowth(v, { set: 'team', commits: 2, strategies: [failing], tempDir: temp })).rejects.toThrow('strategy broke');
    expect(calls).toBeGreaterThanOrEqual(4);
    expect(fs.readdirSync(temp)).toEqual([]);
    const stop = new AbortController();
    const stopping = evalGrowth(v, {
      set: 'team',
      commits: 2,
      strategies,
      tempDir: temp,
      signal: stop.signal,
      onProgress: (p) => p.pointIndex === 2 && stop.abort(),
    });
    await expect(stopping).rejects.toThrow(/stopped/);
    expect(fs.readdirSync(temp)).toEqual([]);
  });

  it('says how to make a question set when the vault has none, and asks for --set when it has several', async () => {
    vault = makeTempVault({ 'notes/a.md': '# A\n\nText.\n' });
    v = await vault.open();
    await expect(evalGrowth(v, { strategies })).rejects.toThrow(/lucid eval generate/);
    vault.write('evals/questions/one.jsonl', `${question('q1', 'text?', 'notes/a.md')}\n`);
    vault.write('evals/questions/two.jsonl', `${question('q1', 'text?', 'notes/a.md')}\n`);
    await expect(evalGrowth(v, { strategies })).rejects.toThrow(/one, two.*--set/);
  });
  it('lucid eval growth prints recall@5 per point and strategy as a table, or the report as JSON', async () => {
    vault = grownVault();
    const out: string[] = [];
    const err: string[] = [];
    const io: Io & { isTTY: boolean } = { out: (t) => out.push(t), err: (t) => err.push(t), cwd: vault.root, env: vault.env, isTTY: false };
    expect(await cliEvalGrowth(io, { vault: vault.root, commits: '1' })).toBe(0);
    const lines = out.join('\n').split('\n');
    expect(lines[0]).toBe('Question set team: recall@5 (95% interval) as the vault grows');
    expect(lines[2]).toMatch(/^point\s+notes\s+questions\s+left out\s+none R@5\s+recent R@5\s+grep R@5\s+keyword R@5/);
    expect(lines.slice(3).map((l) => l.split(/\s{2,}/).slice(0, 4))).toEqual([
      [`2026-11-02 ${vault.git(['rev-parse', '--short=7', 'HEAD~2']).trim()}`, '3', '2', '1'],
      [`HEAD ${vault.head().slice(0, 7)}`, '5', '3', '0'],
      ['HEAD + 1x filler', '10', '3', '0'],
      ['HEAD + 3x filler', '20', '3', '0'],
      ['HEAD + 10x filler', '55', '3', '0'],
    ]);
    expect(lines[4]).toMatch(/ 1\.00 \[1\.00-1\.00\]/);
    expect(err).toEqual([]);
    out.length = 0;
    expect(await cliEvalGrowth(io, { vault: vault.root, commits: '0', set: 'team', strategies: 'keyword,grep', json: true })).toBe(0);
    const report = JSON.parse(out.join('\n')) as GrowthReport;
    expect(report.points.map((p) => p.label)).toEqual([`HEAD ${vault.head().slice(0, 7)}`, 'HEAD + 1x filler', 'HEAD + 3x filler', 'HEAD + 10x filler']);
    for (const point of report.points) expect(Object.keys(point.summary)).toEqual(['keyword', 'grep']);
    await expect(cliEvalGrowth(io, { vault: vault.root, k: '3' })).rejects.toThrow(/does not take --k/);
    await expect(cliEvalGrowth(io, { vault: vault.root, strategies: 'keyword,nope' })).rejects.toThrow(/no strategy "nope"/);
    await expect(cliEvalGrowth(io, { vault: vault.root, commits: 'many' })).rejects.toThrow(UsageError);
    await expect(cliEvalGrowth(io, { vault: vault.root, set: 'team,other' })).rejects.toThrow(UsageError);
  });
});
