import { describe, expect, it } from 'vitest';
import { BUDGET_TOKENS, type EvalQuestion, type QuestionResult, type RetrievedNote, scoreQuestion, summarize } from '../../lib/vault';

function question(gold: string[], answers: string[] = []): EvalQuestion {
  return { id: 'q1', question: 'which database?', gold, answers, kind: 'hand', split: 'test' };
}

function got(...paths: string[]): RetrievedNote[] {
  return paths.map((path) => ({ path, passage: `# ${path}\n`, tokens: 10 }));
}

describe('scoreQuestion on hand-computed cases', () => {
  it('scores a first-rank hit of the only gold note as perfect', () => {
    const m = scoreQuestion(question(['a.md']), got('a.md', 'b.md'), 12.345);
    expect(m).toEqual({ recall_at_1: 1, recall_at_5: 1, recall_at_10: 1, mrr: 1, ndcg_at_10: 1, answer_containment: null, tokens: 20, latency_ms: 12.35 });
  });

  it('scores a gold note at rank 3', () => {
    const m = scoreQuestion(question(['c.md']), got('a.md', 'b.md', 'c.md'), 0);
    expect(m.recall_at_1).toBe(0);
    expect(m.recall_at_5).toBe(1);
    expect(m.mrr).toBeCloseTo(1 / 3, 12);
    expect(m.ndcg_at_10).toBeCloseTo(1 / Math.log2(4), 12); // 0.5
  });

  it('scores two gold notes, one found at rank 2 and one missing', () => {
    const m = scoreQuestion(question(['b.md', 'z.md']), got('a.md', 'b.md', 'c.md'), 0);
    expect(m.recall_at_1).toBe(0);
    expect(m.recall_at_5).toBe(0.5);
    expect(m.recall_at_10).toBe(0.5);
    expect(m.mrr).toBe(0.5);
    // DCG = 1/log2(3); ideal = 1 + 1/log2(3).
    expect(m.ndcg_at_10).toBeCloseTo(1 / Math.log2(3) / (1 + 1 / Math.log2(3)), 12);
  });

  it('counts recall@5 and @10 only within their ranks', () => {
    const ranked = got('1.md', '2.md', '3.md', '4.md', '5.md', '6.md', '7.md');
    const m = scoreQuestion(question(['6.md', '7.md', '8.md', '9.md']), ranked, 0);
    expect(m.recall_at_5).toBe(0);
    expect(m.recall_at_10).toBe(0.5);
    expect(m.mrr).toBeCloseTo(1 / 6, 12);
  });

  it('scores nothing retrieved as zero, with no tokens', () => {
    expect(scoreQuestion(question(['a.md'], ['Postgres']), [], 1)).toEqual({
      recall_at_1: 0,
      recall_at_5: 0,
      recall_at_10: 0,
      mrr: 0,
      ndcg_at_10: 0,
      answer_containment: 0,
      tokens: 0,
      latency_ms: 1,
    });
  });

  it('finds answers in the passages as whole words, folding case and diacritics', () => {
    const passages: RetrievedNote[] = [
      { path: 'a.md', passage: '# A\nWe moved to POSTGRES last week.', tokens: 9 },
      { path: 'b.md', passage: 'Owner: José Díaz', tokens: 4 },
    ];
    expect(scoreQuestion(question(['a.md'], ['Postgres', 'Jose Diaz', 'MySQL']), passages, 0).answer_containment).toBeCloseTo(2 / 3, 12);
    expect(scoreQuestion(question(['a.md'], ['post']), passages, 0).answer_containment).toBe(0);
  });
});

describe('summarize', () => {
  const result = (recall: number, excluded = false, containment: number | null = null): QuestionResult => ({
    question_id: `q${recall}`,
    question: 'q',
    strategy: 's',
    kind: 'hand',
    split: 'test',
    gold: ['a.md'],
    retrieved: [],
    metrics: {
      recall_at_1: recall,
      recall_at_5: recall,
      recall_at_10: recall,
      mrr: recall,
      ndcg_at_10: recall,
      answer_containment: containment,
      tokens: 100,
      latency_ms: 2,
    },
    excluded,
  });

  it('averages over the questions that have a value and leaves excluded ones out', () => {
    const s = summarize([result(1), result(0), result(1, true), result(0.5, false, 1)]);
    expect(s.recall_at_5?.mean).toBe(0.5);
    expect(s.recall_at_5?.n).toBe(3);
    expect(s.answer_containment).toEqual({ mean: 1, low: 1, high: 1, n: 1 });
    expect(s.tokens?.mean).toBe(100);
    expect(s.tokens?.mean).toBeLessThanOrEqual(BUDGET_TOKENS);
  });

  it('omits a metric that no question has', () => {
    expect(summarize([result(1)]).answer_containment).toBeUndefined();
    expect(summarize([])).toEqual({});
  });
});
