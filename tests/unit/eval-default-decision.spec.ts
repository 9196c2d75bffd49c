import { describe, expect, it } from 'vitest';
import type { QuestionResult } from '../../lib/vault/eval/types';
import { decideDefault, type SetFigures } from '../../scripts/eval-fixtures';

function result(strategy: string, id: string, recall: number, excluded = false): QuestionResult {
  const metrics = {
    recall_at_1: recall,
    recall_at_5: recall,
    recall_at_10: recall,
    mrr: recall,
    ndcg_at_10: recall,
    answer_containment: null,
    tokens: 100,
    latency_ms: 1,
  };
  return {
    question_id: id,
    question: `question ${id}?`,
    strategy,
    kind: 'hand',
    split: 'test',
    gold: ['a.md'],
    retrieved: [],
    metrics,
    ...(excluded ? { excluded } : {}),
  };
}

/** One set of `n` questions: per strategy, the questions (by index) it finds. */
function figures(n: number, finds: Record<string, (i: number) => boolean>, excluded: Record<string, (i: number) => boolean> = {}): SetFigures {
  const results = Object.entries(finds).flatMap(([strategy, found]) =>
    Array.from({ length: n }, (_, i) => result(strategy, `q${i}`, found(i) ? 1 : 0, excluded[strategy]?.(i) ?? false)),
  );
  return { vault: 'v', set: 's', origin: 'hand', questions: n, summary: {}, results, belowGrep: [] };
}

describe('decideDefault', () => {
  it('changes the default when the best strategy beats it with an interval above zero', () => {
    const d = decideDefault([figures(100, { keyword: (i) => i < 50, better: (i) => i < 80, grep: (i) => i < 40 })]);
    expect(d.best).toBe('better');
    expect(d.change).toBe(true);
    expect(d.beatsCurrent).toEqual(['better']);
    expect(d.differences.better.mean).toBeCloseTo(0.3);
    expect(d.differences.better.low).toBeGreaterThan(0);
    expect(d.verdict).toMatch(/^Change the default to `better`/);
  });

  it('keeps the default when the best strategy is ahead by an interval that includes zero, or not ahead at all', () => {
    const close = decideDefault([figures(100, { keyword: (i) => i < 50, better: (i) => i < 51 })]);
    expect(close.best).toBe('better');
    expect(close.change).toBe(false);
    expect(close.beatsCurrent).toEqual([]);
    expect(close.verdict).toMatch(/^Keep `keyword`: `better` has the best pooled recall@5 .* which includes zero\.$/);
    const tie = decideDefault([figures(100, { keyword: (i) => i < 50, same: (i) => i < 50 })]);
    expect(tie.best).toBe('keyword');
    expect(tie.verdict).toMatch(/^Keep `keyword`: no strategy has a better recall@5 on the same questions/);
  });

  it('judges no strategy on the questions it was excluded from, in its pool and in its pairs', () => {
    // `thesaurus` finds every question, but the 60 it finds that keyword misses were paraphrased with its own thesaurus.
    const d = decideDefault([figures(100, { keyword: (i) => i < 40, thesaurus: () => true }, { thesaurus: (i) => i >= 40 })]);
    expect(d.pooled.thesaurus.n).toBe(40);
    expect(d.pooled.keyword.n).toBe(100);
    expect(d.differences.thesaurus).toMatchObject({ mean: 0, n: 40 });
    expect(d.change).toBe(false);
  });

  it('picks the best by its paired gain, so a strategy left out of the hard questions does not win on its pool alone', () => {
    const d = decideDefault([figures(100, { keyword: (i) => i < 40, thesaurus: () => true, better: (i) => i < 70 }, { thesaurus: (i) => i >= 40 })]);
    expect(d.pooled.thesaurus.mean).toBe(1);
    expect(d.best).toBe('better');
    expect(d.change).toBe(true);
  });

  it('pools questions over vaults and sets without mixing up questions that share an id', () => {
    const a = figures(30, { keyword: () => false, better: () => true });
    const b = { ...figures(30, { keyword: () => true, better: () => false }), vault: 'w' };
    const d = decideDefault([a, b]);
    expect(d.pooled.better.n).toBe(60);
    expect(d.differences.better).toMatchObject({ mean: 0, n: 60 });
    expect(d.change).toBe(false);
  });
});
