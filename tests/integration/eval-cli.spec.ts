import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/main';
import type { Io } from '../../cli/shared';
import { initVault } from '../../lib/vault/index';
import { testGitEnv } from '../support/fixtures';
import { makeTempVault, TEST_PERSON, type TempVault } from '../support/temp-vault';

/** `lucid eval run`: the real CLI, run from another folder as a user would. */

const BIN = path.resolve('bin/lucid');
let tv: TempVault;

function lucid(args: string[]) {
  const result = spawnSync(BIN, args, { cwd: tv.tempDir('cwd'), encoding: 'utf8', env: { ...testGitEnv() } as unknown as NodeJS.ProcessEnv, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The CLI in this process (for what needs no separate process), collecting what it prints. */
async function inProcess(args: string[], isTTY?: boolean): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: Io & { isTTY?: boolean } = {
    out: (t) => {
      stdout += t.endsWith('\n') ? t : `${t}\n`;
    },
    err: (t) => {
      stderr += t;
    },
    cwd: tv.root,
    env: tv.env,
    isTTY,
  };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  tv = makeTempVault({
    'decisions/database.md': '# Database\n\nWe picked Postgres for the ledger.\n',
    'people/ada.md': '---\ntype: person\nname: Ada\n---\nAda leads billing.\n',
  });
  await initVault({ dir: tv.root, env: tv.env });
});
afterAll(() => tv.cleanup());

describe('lucid eval', () => {
  it('says how to make a question set when there is none, and writes nothing', () => {
    const head = tv.head();
    const run = lucid(['eval', 'run', '--vault', tv.root]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'lucid: This vault has no question sets in evals/questions/. Make one with `lucid eval generate`, or write evals/questions/<set>.jsonl by hand',
    );
    expect(tv.head()).toBe(head);
  });

  it('refuses bad input with usage errors', async () => {
    expect(await inProcess(['eval', '--vault', tv.root])).toMatchObject({ code: 2, stderr: expect.stringContaining('eval needs a verb, e.g. lucid eval run') });
    expect(await inProcess(['eval', 'grow', '--vault', tv.root])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown eval verb "grow"') });
    expect(await inProcess(['eval', 'run', '--k', 'five', '--vault', tv.root])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--k must be a whole number from 1 to 100'),
    });
    expect(await inProcess(['eval', 'run', '--strategies', 'none,psychic', '--vault', tv.root])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('There is no strategy "psychic"'),
    });
    expect(await inProcess(['eval', 'run', '--strategies', 'embeddings', '--vault', tv.root])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('the embeddings strategy needs the endpoint you run (add --embeddings-url http://127.0.0.1:11434/v1'),
    });
    expect((await inProcess(['--help'])).stdout).toMatch(/\n {2}eval +Measure how well retrieval strategies/);
    // The default strategies named in the help are the ones a run measures: embeddings is off by default.
    const help = (await inProcess(['eval', '--help'])).stdout;
    expect(help).toContain('keyword-prf;\n                embeddings only with --embeddings-url');
  });

  it('runs a set, prints the table and commits the run as the person', () => {
    tv.write(
      'evals/questions/team.jsonl',
      '{"id":"q1","question":"Which database for the ledger?","gold":["decisions/database.md"],"answers":["Postgres"],"kind":"hand","split":"test"}\n' +
        '{"id":"q2","question":"Who leads billing?","gold":["people/ada.md"],"answers":[],"kind":"hand","split":"dev"}\n',
    );
    tv.git(['add', '-A']);
    tv.git(['commit', '-q', '-m', 'questions']);
    const before = tv.commitCount();
    const run = lucid(['eval', 'run', '--vault', tv.root, '--strategies', 'none,grep', '--k', '3']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^team: 2 questions, k 3 -> evals\/runs\/\d{4}-\d{2}-\d{2}-\d{4}-team\.md\n/);
    expect(run.stdout).toMatch(/\nstrategy +R@1 +R@5 \(95%\) +R@10 +MRR +nDCG@10 +answers +tokens +ms\n/);
    expect(run.stdout).toMatch(/\nnone +0\.00 +0\.00 \[0\.00-0\.00\] +0\.00 +0\.00 +0\.00 +0\.00 +0 +[\d.]+\n/);
    expect(run.stdout).toMatch(/\ngrep +1\.00 +1\.00 \[1\.00-1\.00\] +1\.00 +1\.00 +1\.00 +1\.00 +\d+ +[\d.]+\n/);
    expect(tv.commitCount()).toBe(before + 1);
    expect(tv.git(['log', '-1', '--format=%B'])).toContain(`Lucid-Actor: human:${TEST_PERSON}\nLucid-Op: eval\n`);
  });

  it('prints the summaries as JSON', async () => {
    const run = await inProcess(['eval', 'run', '--vault', tv.root, '--set', 'team', '--strategies', 'grep', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out.commit).toBe(tv.head());
    expect(out.runs).toHaveLength(1);
    expect(out.runs[0]).toMatchObject({ set: 'team', questions: 2, summary: { grep: { recall_at_5: { mean: 1, n: 2 } } } });
    expect(out.runs[0].results).toBeUndefined();
  });

  it('shows progress on stderr when it is a terminal, one line per strategy', async () => {
    const run = await inProcess(['eval', 'run', '--vault', tv.root, '--strategies', 'none,grep'], true);
    expect(run.code).toBe(0);
    const lines = run.stderr.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\r\u001b\[Kteam: none 0\/2.*\r\u001b\[Kteam: none 2\/2$/);
    expect(lines[1]).toMatch(/\r\u001b\[Kteam: grep 2\/2$/);
  });
});
