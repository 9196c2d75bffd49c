import { describe, expect, it, vi } from 'vitest';
import type { EvalRunRow, QuestionResult } from '../../lib/vault';

// The evaluation page's data shaping, on literal run rows and results (no vault, no disk).

vi.mock('server-only', () => ({}));
vi.mock('@/lib/vault', async () => import('../../lib/vault/index'));
vi.mock('../../lib/server/vault', () => ({ getVault: () => Promise.reject(new Error('no vault in a unit test')) }));

const { kindRows, missedQuestions, pickRun, runLines, strategyBars, strategyIntervals, strategyLabel } = await import('../../lib/server/data-eval');

function row(path: string, over: Partial<EvalRunRow>): EvalRunRow {
  return {
    path,
    date: '2026-11-20',
    time: '10:00',
    set: 'demo',
    questions: 4,
    k: 5,
    commit: 'c'.repeat(40),
    strategies: {},
    harness: 'lucid',
    hasResults: true,
    ...over,
  };
}

function result(id: string, strategy: string, recall5: number, over: Partial<QuestionResult> = {}): QuestionResult {
  return {
    question_id: id,
    question: `question ${id}?`,
    strategy,
    kind: 'template',
    split: 'test',
    gold: [`notes/${id}.md`],
    retrieved: recall5 === 1 ? [`notes/${id}.md`, 'notes/other.md'] : ['notes/other.md', 'notes/else.md'],
    metrics: {
      recall_at_1: recall5,
      recall_at_5: recall5,
      recall_at_10: recall5,
      mrr: recall5,
      ndcg_at_10: recall5,
      answer_containment: null,
      tokens: 100,
      latency_ms: 1,
    },
    ...over,
  };
}

const newer = row('evals/runs/2026-11-27-0900-demo.md', {
  date: '2026-11-27',
  time: '09:00',
  strategies: { keyword: { recall_at_5: 0.75 }, none: { recall_at_5: 0 } },
});
const older = row('evals/runs/2026-11-20-1000-demo.md', { strategies: { none: { recall_at_5: 0 }, keyword: { recall_at_5: 0.5 } } });
const llm = row('evals/runs/2026-11-25-llm-demo.md', {
  date: '2026-11-25',
  time: null,
  harness: 'other',
  hasResults: false,
  strategies: { 'llm-no-memory': { answer_containment: 0.1 }, 'llm-with-memory': { recall_at_5: 0.6, answer_containment: 0.7 }, keyword: { recall_at_5: 0.2 } },
});
const otherSet = row('evals/runs/2026-11-26-0800-mine.md', { set: 'mine', date: '2026-11-26', strategies: { keyword: { recall_at_5: 1 } } });
const runs = [newer, otherSet, llm, older];

describe('the evaluation page data', () => {
  it('opens the run the URL names, else the newest Lucid run, and says why when the URL names none', () => {
    expect(pickRun(runs, undefined)).toEqual({ run: newer, problem: null });
    expect(pickRun(runs, older.path)).toEqual({ run: older, problem: null });
    const missing = pickRun(runs, '../../etc/passwd.md');
    expect(missing.run).toBe(newer);
    expect(missing.problem).toContain('no evaluation run at "../../etc/passwd.md"');
    expect(pickRun([llm], undefined).run).toBe(llm);
    expect(pickRun([], 'x.md')).toMatchObject({ run: null });
  });

  it('charts no memory first, takes means from the front matter and intervals from the results, and adds other harnesses of the same set', () => {
    const bars = strategyBars(newer, runs, 'recall_at_5', { keyword: { mean: 0.74999, low: 0.5, high: 1, n: 4 }, none: { mean: 0, low: 0, high: 0, n: 4 } });
    expect(bars.map((b) => [b.strategy, b.label, b.harness])).toEqual([
      ['none', 'no memory', 'lucid'],
      ['keyword', 'keyword', 'lucid'],
      ['llm-no-memory', 'llm-no-memory', 'other'],
      ['llm-with-memory', 'llm-with-memory', 'other'],
    ]);
    expect(bars[1]).toMatchObject({ figure: { mean: 0.75, low: 0.5, high: 1, n: 4 }, perQuestion: true, run: newer.path });
    // Another harness's strategy: its run's mean, no interval, no per-question results; one without the metric has no figure.
    expect(bars[3]).toMatchObject({ figure: { mean: 0.6, low: null, high: null, n: null }, perQuestion: false, run: llm.path, when: '2026-11-25' });
    expect(bars[2]).toMatchObject({ figure: null, metrics: ['answer_containment'] });
    // The other set's run is not alongside.
    expect(bars.some((b) => b.run === otherSet.path)).toBe(false);
  });

  it('draws one point per run of the set, oldest first, with null where a run lacks a strategy', () => {
    const { series, points } = runLines(runs, 'demo', 'recall_at_5');
    expect(points.map((p) => p.when)).toEqual(['2026-11-20 10:00', '2026-11-25', '2026-11-27 09:00']);
    expect(series.map((s) => `${s.strategy}:${s.harness}`)).toEqual(['none:lucid', 'keyword:lucid', 'llm-with-memory:other']);
    expect(points.map((p) => p.values.keyword)).toEqual([0.5, 0.2, 0.75]);
    expect(points.map((p) => p.values['llm-with-memory'])).toEqual([null, 0.6, null]);
  });

  it('splits results by template, else kind, with a seeded interval per strategy', () => {
    const results = [
      result('a', 'keyword', 1, { template: 'owner' }),
      result('b', 'keyword', 0, { template: 'owner' }),
      result('c', 'keyword', 1, { kind: 'hand' }),
      result('a', 'none', 0, { template: 'owner' }),
      result('b', 'none', 0, { template: 'owner' }),
      result('c', 'none', 0, { kind: 'hand' }),
    ];
    const { series, rows } = kindRows(results, 'recall_at_5');
    expect(series.map((s) => s.label)).toEqual(['no memory', 'keyword']);
    expect(rows.map((r) => [r.kind, r.questions])).toEqual([
      ['hand', 1],
      ['owner', 2],
    ]);
    expect(rows[1].figures.keyword).toMatchObject({ mean: 0.5, n: 2 });
    expect(rows[1].figures.keyword?.low).toBeLessThanOrEqual(0.5);
    expect(rows[1].figures.keyword?.high).toBeGreaterThanOrEqual(0.5);
    expect(kindRows(results, 'recall_at_5')).toEqual({ series, rows });
    // A metric no question has (answer containment without answers) gives no figure, but the strategy has results.
    expect(strategyIntervals(results, 'answer_containment')).toEqual({ keyword: null, none: null });
  });

  it('lists the questions a strategy missed in its first five, with what it retrieved instead, leaving out excluded ones', () => {
    const results = [
      result('a', 'keyword', 1),
      result('b', 'keyword', 0),
      result('c', 'keyword', 0.5, { gold: ['notes/c.md', 'notes/c2.md'], retrieved: ['notes/x.md', 'notes/c.md'] }),
      result('d', 'keyword', 0, { excluded: true }),
      result('b', 'none', 0),
    ];
    const { scored, missed } = missedQuestions(results, 'keyword');
    expect(scored).toBe(3);
    expect(missed.map((q) => q.id)).toEqual(['b', 'c']);
    expect(missed[1]).toMatchObject({
      recall: 0.5,
      gold: [
        { path: 'notes/c.md', found: true },
        { path: 'notes/c2.md', found: false },
      ],
      retrieved: [
        { path: 'notes/x.md', gold: false },
        { path: 'notes/c.md', gold: true },
      ],
    });
    expect(strategyLabel('none')).toBe('no memory');
  });
});

describe('the intervals the page draws', () => {
  it('are the ones summarize gives for that metric', async () => {
    const { summarize } = await import('../../lib/vault/index');
    const results = ['a', 'b', 'c', 'd', 'e'].map((id, i) => result(id, 'keyword', i % 2, { excluded: id === 'e' }));
    const summary = summarize(results).recall_at_5;
    expect(strategyIntervals(results, 'recall_at_5').keyword).toEqual({ mean: summary?.mean, low: summary?.low, high: summary?.high, n: summary?.n });
    expect(summary?.n).toBe(4);
  });
});
