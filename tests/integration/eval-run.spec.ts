import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildCorpus,
  type EvalProgress,
  type EvalQuestion,
  defaultStrategies,
  evaluateSet,
  initVault,
  listEvalRuns,
  openVault,
  readRunResults,
  runEvaluation,
  type Strategy,
  type Vault,
  validateFrontmatter,
  parseFrontmatter,
} from '../../lib/vault';
import { makeTempVault, steppingClock, type TempVault, TEST_PERSON } from '../support/temp-vault';

/** The runner on a fresh vault: one commit per run, deterministic results, its notes read back. */

const QUESTIONS = [
  { id: 'q1', question: 'Which database did the team pick?', gold: ['decisions/database.md'], answers: ['Postgres'], kind: 'hand', split: 'test' },
  { id: 'q2', question: 'Who leads the billing work?', gold: ['people/ada.md'], answers: ['Ada'], kind: 'template', template: 'owner', split: 'dev' },
  { id: 'q3', question: 'Where do invoices get retried?', gold: ['notes/retries.md'], answers: [], kind: 'mined', split: 'test' },
  {
    id: 'q4',
    question: 'What store keeps the ledger?',
    gold: ['decisions/database.md'],
    answers: [],
    kind: 'hand',
    split: 'test',
    paraphrased_with: 'wordnet',
  },
];

/** Stand-ins: they test the runner, not retrieval. */
const searchStrategy: Strategy = {
  name: 'search',
  description: 'the vault search',
  rank: async (question, { vault }) => (await vault.search(question, { limit: 20 })).map((h) => h.path),
};
const fixedStrategy: Strategy = {
  name: 'fixed',
  description: 'always the same notes',
  thesaurus: 'wordnet',
  prepare: async ({ corpus }) => {
    prepared.push(corpus.notes.length);
  },
  rank: async () => ['people/ada.md', 'evals/questions/team.jsonl', 'changelog.md', 'notes/retries.md'],
};
const prepared: number[] = [];

let tv: TempVault;
let vault: Vault;

beforeAll(async () => {
  tv = makeTempVault({
    'decisions/database.md': '# Database\n\nThe team picked Postgres for the ledger, over MySQL.\n',
    'people/ada.md': '---\ntype: person\nname: Ada\n---\nAda leads the billing work.\n',
    'notes/retries.md': '# Retries\n\nInvoices get retried from a durable queue.\n',
    'notes/misc.md': '# Misc\n\nNothing much.\n',
  });
  await initVault({ dir: tv.root, env: tv.env });
  tv.write('evals/questions/team.jsonl', `${QUESTIONS.map((q) => JSON.stringify(q)).join('\n')}\n`);
  tv.write('evals/questions/empty.jsonl', '\n');
  tv.git(['add', '-A']);
  tv.git(['commit', '-q', '-m', 'questions']);
  vault = await tv.open();
});
afterAll(() => {
  vault?.close();
  tv?.cleanup();
});

/** A results file without its latencies, the one thing a rerun may change. */
function withoutLatency(text: string): unknown[] {
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const r = JSON.parse(line);
      r.metrics.latency_ms = r.metrics.latency_ms === null ? null : 'x';
      return r;
    });
}

describe('runEvaluation', () => {
  let first: Awaited<ReturnType<typeof runEvaluation>>;
  const progress: EvalProgress[] = [];
  const now = new Date(2026, 10, 20, 9, 5);

  it('writes the run note and its results in one commit with its changelog line', async () => {
    const before = tv.commitCount();
    first = await runEvaluation(vault, { strategies: [searchStrategy, fixedStrategy], sets: ['team'], now, onProgress: (p) => progress.push(p) });
    expect(tv.commitCount()).toBe(before + 1);
    expect(first.commit).toBe(tv.head());
    const [run] = first.runs;
    expect(run.notePath).toBe('evals/runs/2026-11-20-0905-team.md');
    expect(run.resultsPath).toBe('evals/runs/2026-11-20-0905-team.results.jsonl');
    const files = tv.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n').sort();
    expect(files).toEqual(['changelog.md', run.notePath, run.resultsPath].sort());
    const message = tv.git(['log', '-1', '--format=%B']);
    expect(message).toMatch(/^eval evals\/runs\/2026-11-20-0905-team\.md\n/);
    expect(message).toContain('\nLucid-Op: eval\n');
    expect(message).toContain(`\nLucid-Actor: human:${TEST_PERSON}\n`);
    expect(message).toMatch(/\nLucid-Edit: e[a-z2-7]{12}\n/);
    expect(tv.read('changelog.md')).toMatch(/· eval \[\[evals\/runs\/2026-11-20-0905-team\]\] · recall evaluation of team \(4 questions\): 2 strategies, k 5/);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it('reports progress after each question, per strategy', () => {
    expect(progress.filter((p) => p.strategy === 'search').map((p) => p.done)).toEqual([0, 1, 2, 3, 4]);
    expect(progress.filter((p) => p.strategy === 'fixed').map((p) => p.done)).toEqual([0, 1, 2, 3, 4]);
    expect(progress.every((p) => p.set === 'team' && p.total === 4)).toBe(true);
    // The corpus leaves out the evaluation folders, the changelog and AGENTS.md.
    expect(prepared).toEqual([4]);
  });

  it('writes a note that passes the eval-run schema, with its tables', () => {
    const text = tv.read(first.runs[0].notePath);
    const parsed = parseFrontmatter(text);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(validateFrontmatter(first.runs[0].notePath, parsed.data)).toEqual([]);
    expect(parsed.data).toMatchObject({
      type: 'eval-run',
      date: '2026-11-20',
      updated: '2026-11-20',
      question_set: 'team',
      questions: 4,
      k: 5,
      budget_tokens: 2000,
      harness: 'lucid',
    });
    expect(parsed.data.vault_commit).toMatch(/^[0-9a-f]{40}$/);
    // fixed retrieves ada and retries (the others are not in the corpus): q2 and q3 found, q4 left out.
    expect(parsed.data.fixed_recall_at_5).toBe(0.6667);
    expect(parsed.data.fixed_mrr).toBe(0.5);
    expect(parsed.data.search_recall_at_5).toBe(1);
    expect(parsed.data.search_answer_containment).toBe(1);
    expect(typeof parsed.data.search_tokens).toBe('number');
    expect(typeof parsed.data.search_latency_ms).toBe('number');
    expect(text).toContain('| strategy | recall@1 | recall@5 (95% interval) | recall@10 | MRR | nDCG@10 | answer containment | tokens | latency ms |');
    expect(text).toMatch(/\n\| fixed \| 0\.33 \| 0\.67 \(0\.00–1\.00\) \| 0\.67 \| 0\.50 \| /);
    expect(text).toContain('With k = 5, recall@10 and nDCG@10 see only the 5 notes retrieved.');
    expect(text).toContain('## Recall@5 by kind of question');
    expect(text).toContain('| owner | 1 | 1.00 (1.00–1.00) | 1.00 (1.00–1.00) |');
    expect(text).toContain('| hand | 2 | 1.00 (1.00–1.00) | 0.00 (0.00–0.00) |');
    expect(text).not.toContain('a gold note that is not in the vault');
    expect(text).toContain("Left out, as paraphrased with the strategy's own thesaurus: 1 for fixed.");
  });

  it('writes one result per question and strategy, a thesaurus paraphrase excluded for its strategy', async () => {
    const results = await readRunResults(vault, first.runs[0].notePath);
    expect(results.map((r) => `${r.strategy}:${r.question_id}`)).toEqual([
      'search:q1',
      'search:q2',
      'search:q3',
      'search:q4',
      'fixed:q1',
      'fixed:q2',
      'fixed:q3',
      'fixed:q4',
    ]);
    expect(results[7]).toMatchObject({ excluded: true, retrieved: [] });
    expect(results[3].excluded).toBeUndefined();
    expect(results[5]).toMatchObject({ kind: 'owner', template: 'owner', retrieved: ['people/ada.md', 'notes/retries.md'] });
    for (const r of results) expect((r.metrics.tokens ?? 0) <= 2000).toBe(true);
    expect(results).toEqual(first.runs[0].results.map((r) => JSON.parse(JSON.stringify(r))));
  });

  it('gives the same results file on a rerun, apart from latency, and a second run in the same minute its own name', async () => {
    const again = await runEvaluation(vault, { strategies: [searchStrategy, fixedStrategy], sets: ['team'], now });
    expect(again.runs[0].notePath).toBe('evals/runs/2026-11-20-0905-team-2.md');
    expect(withoutLatency(tv.read(again.runs[0].resultsPath))).toEqual(withoutLatency(tv.read(first.runs[0].resultsPath)));
    const strip = (text: string) => text.replace(/^(\w[\w-]*_latency_ms: ).*$/gm, '$1x').replace(/^(vault_commit|created): .*$/gm, '$1: x');
    const body = (text: string) =>
      strip(text)
        .replace(/\| [\d.]+ \|\n/g, '| x |\n')
        .replace(/commit `[0-9a-f]+`/, '')
        .replace(/results: `[^`]+`/, '');
    expect(body(tv.read(again.runs[0].notePath))).toEqual(body(tv.read(first.runs[0].notePath)));
  });

  it('runs every set that has questions by default, all in one commit', async () => {
    tv.write(
      'evals/questions/other.jsonl',
      `${JSON.stringify(QUESTIONS[0])}\n${JSON.stringify({ ...QUESTIONS[1], id: 'gone', gold: ['notes/deleted.md'] })}\n`,
    );
    tv.git(['add', '-A']);
    tv.git(['commit', '-q', '-m', 'other set']);
    const before = tv.commitCount();
    const both = await runEvaluation(vault, { strategies: [searchStrategy] });
    expect(both.runs.map((r) => r.set)).toEqual(['other', 'team']);
    expect(both.runs.map((r) => r.missingGold)).toEqual([['gone'], []]);
    expect(tv.read(both.runs[0].notePath)).toContain('1 question names a gold note that is not in the vault, scored as a miss by every strategy: gone.');
    expect(tv.commitCount()).toBe(before + 1);
    const files = tv.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n');
    expect(files).toHaveLength(5);
  });

  it('says how to make a set when there is none or it is empty, and writes nothing', async () => {
    const head = tv.head();
    await expect(runEvaluation(vault, { strategies: [searchStrategy], sets: ['empty'] })).rejects.toThrow(
      /"empty" has no questions\. Make one with `lucid eval generate --set empty`/,
    );
    await expect(runEvaluation(vault, { strategies: [searchStrategy], sets: ['nope'] })).rejects.toThrow(
      /no question set "nope".*lucid eval generate --set nope/,
    );
    await expect(runEvaluation(vault, { strategies: [searchStrategy], sets: ['../team'] })).rejects.toThrow(/"\.\.\/team" is not a question set name/);
    await expect(runEvaluation(vault, { strategies: [searchStrategy], k: 0 })).rejects.toThrow(/k must be a whole number from 1 to 100/);
    const bare = makeTempVault({ 'a.md': '# A\n' });
    try {
      const v = await bare.open();
      await expect(runEvaluation(v, { strategies: [searchStrategy] })).rejects.toThrow(
        /no question sets in evals\/questions\/\. Make one with `lucid eval generate`/,
      );
      v.close();
    } finally {
      bare.cleanup();
    }
    expect(tv.head()).toBe(head);
  });
});

describe('listEvalRuns', () => {
  it('lists every eval-run note newest first, other harnesses included, and skips malformed ones', async () => {
    tv.write(
      'evals/runs/2026-11-25-llm.md',
      '---\ntype: eval-run\ndate: 2026-11-25\nquestion_set: team\nquestions: 4\nvault_commit: abc\nk: 5\nbudget_tokens: 2000\nllm-with-memory_answer_containment: 0.75\nllm-with-memory_recall_at_5: 0.5\nllm_judge_score: 3\nnone_tokens: 0\n---\nAn LLM answered.\n',
    );
    tv.write('evals/runs/broken.md', '---\ntype: eval-run\ndate: [oops\n---\n');
    tv.write('evals/runs/no-date.md', '---\ntype: eval-run\nquestion_set: team\nquestions: 1\nvault_commit: abc\nk: 5\nbudget_tokens: 2000\n---\n');
    tv.write('evals/runs/not-a-run.md', '# Notes about runs\n');
    const rows = await listEvalRuns(vault);
    expect(rows.map((r) => r.path)).toEqual(['evals/runs/2026-11-25-llm.md', ...rows.filter((r) => r.harness === 'lucid').map((r) => r.path)]);
    expect(rows[0]).toEqual({
      path: 'evals/runs/2026-11-25-llm.md',
      date: '2026-11-25',
      time: null,
      set: 'team',
      questions: 4,
      k: 5,
      commit: 'abc',
      strategies: { 'llm-with-memory': { answer_containment: 0.75, recall_at_5: 0.5 }, none: { tokens: 0 } },
      harness: 'other',
      hasResults: false,
    });
    const lucid = rows.filter((r) => r.harness === 'lucid');
    expect(lucid.length).toBe(4);
    expect(lucid.every((r) => r.hasResults)).toBe(true);
    // The runs of the first tests were dated 2026-11-20 09:05; the one of every set, by the vault clock, 2026-11-15.
    expect(lucid.map((r) => r.path)).toEqual([
      'evals/runs/2026-11-20-0905-team-2.md',
      'evals/runs/2026-11-20-0905-team.md',
      'evals/runs/2026-11-15-1020-team.md',
      'evals/runs/2026-11-15-1020-other.md',
    ]);
    expect(lucid[1]).toMatchObject({ time: '09:05', set: 'team', questions: 4, k: 5 });
    expect(Object.keys(lucid[1].strategies)).toEqual(['search', 'fixed']);
    expect(await readRunResults(vault, 'evals/runs/2026-11-25-llm.md')).toEqual([]);
  });
});

describe('determinism', () => {
  it('gives the same results file on two copies of a vault, with every default strategy, apart from latency', async () => {
    const words = ['ledger', 'invoice', 'queue', 'retry', 'billing', 'postgres', 'cache', 'deploy', 'review', 'budget', 'audit', 'tenant'];
    const files: Record<string, string> = {};
    for (let i = 0; i < 36; i += 1) {
      const about = [words[i % 12], words[(i * 5 + 3) % 12], words[(i * 7 + 1) % 12]];
      const link = i > 0 ? ` See [[notes/n${i - 1}]].` : '';
      files[`notes/n${i}.md`] = `# Note ${i} on ${about[0]}\n\nThe ${about[0]} work touches the ${about[1]} and the ${about[2]}.${link}\n`;
    }
    const original = makeTempVault(files);
    try {
      await initVault({ dir: original.root, env: original.env });
      const questions = words.map((w, i) => ({
        id: `q${i}`,
        question: `Where is the ${w} handled together with the ${words[(i + 4) % 12]}?`,
        gold: [`notes/n${i}.md`],
        answers: [w],
        kind: 'hand',
        split: i % 2 ? 'dev' : 'test',
      }));
      original.write('evals/questions/gen.jsonl', `${questions.map((q) => JSON.stringify(q)).join('\n')}\n`);
      original.git(['add', '-A']);
      original.git(['commit', '-q', '-m', 'questions']);
      const roots = [original.root];
      for (const label of ['copy-a', 'copy-b']) {
        const root = path.join(original.tempDir(label), 'vault');
        fs.cpSync(original.root, root, { recursive: true });
        fs.rmSync(path.join(root, '.lucid'), { recursive: true, force: true });
        roots.push(root);
      }
      // Fresh copies (new mtimes, no search index): nothing may depend on file times or on an index's history.
      const texts: string[] = [];
      for (const root of roots.slice(1)) {
        const v = await openVault({ root, env: original.env, clock: steppingClock(new Date(2026, 10, 20, 9, 0), 1000) });
        try {
          const run = await runEvaluation(v, { now: new Date(2026, 10, 20, 9, 0) });
          expect(run.runs[0].summary.keyword).toBeDefined();
          texts.push(fs.readFileSync(path.join(root, run.runs[0].resultsPath), 'utf8'));
        } finally {
          v.close();
        }
      }
      expect(texts[0].split('\n').length).toBe(defaultStrategies().length * questions.length + 1);
      expect(withoutLatency(texts[1])).toEqual(withoutLatency(texts[0]));
    } finally {
      original.cleanup();
    }
  }, 120_000);
});

// Last: it reads the stepping clock, which the run names above depend on.
describe('evaluateSet', () => {
  it('matches a gold path spelt in another case or without .md to its note', async () => {
    const corpus = await buildCorpus(vault);
    const questions: EvalQuestion[] = [
      { ...QUESTIONS[0], split: 'test', id: 'case', gold: ['Decisions/DATABASE.md'] },
      { ...QUESTIONS[0], split: 'test', id: 'bare', gold: ['notes/retries'] },
      { ...QUESTIONS[0], split: 'test', id: 'gone', gold: ['notes/nowhere.md'] },
    ];
    const { results } = await evaluateSet(vault, corpus, questions, { k: 5, strategies: [searchStrategy], set: 'team' });
    expect(results.map((r) => r.gold)).toEqual([['decisions/database.md'], ['notes/retries.md'], ['notes/nowhere.md']]);
    expect(results[0].metrics.recall_at_5).toBe(1);
  });

  it('refuses a strategy name that is not a slug, or one listed twice, before it measures anything', async () => {
    const corpus = await buildCorpus(vault);
    const run = (strategies: Strategy[]) => evaluateSet(vault, corpus, QUESTIONS as EvalQuestion[], { k: 5, strategies, set: 'team' });
    await expect(run([{ ...searchStrategy, name: 'my_search' }])).rejects.toThrow('"my_search" is not a strategy name');
    await expect(run([searchStrategy, searchStrategy])).rejects.toThrow('The strategy "search" is listed twice');
    await expect(runEvaluation(vault, { strategies: [{ ...searchStrategy, name: 'Search' }] })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
