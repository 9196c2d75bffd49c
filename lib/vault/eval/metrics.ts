import { bootstrapMean } from './bootstrap';
import { containsWords } from './leak';
import { EVAL_METRICS, type EvalMetric, type EvalQuestion, type QuestionResult, type RetrievedNote, type StrategySummary } from './types';

function recallAt(gold: ReadonlySet<string>, paths: readonly string[], k: number): number {
  let found = 0;
  for (const path of new Set(paths.slice(0, k))) if (gold.has(path)) found += 1;
  return found / gold.size;
}

/**
 * One question's metrics for what a strategy retrieved (in rank order, after the k and budget cut):
 * recall@k is the share of gold notes among the first k; MRR is 1 / the rank of the first gold note
 * (0 when none); nDCG@10 counts every gold note as equally relevant; answer containment is the share
 * of gold answers found as whole words in the passages (case, diacritics and punctuation folded;
 * null when the question has no answers); tokens is the passages' total.
 */
export function scoreQuestion(question: EvalQuestion, retrieved: RetrievedNote[], latencyMs: number): Record<EvalMetric, number | null> {
  const gold = new Set(question.gold);
  const paths = retrieved.map((r) => r.path);
  const firstGold = paths.findIndex((p) => gold.has(p));
  let dcg = 0;
  const seen = new Set<string>();
  paths.slice(0, 10).forEach((path, i) => {
    if (gold.has(path) && !seen.has(path)) dcg += 1 / Math.log2(i + 2);
    seen.add(path);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(gold.size, 10); i += 1) ideal += 1 / Math.log2(i + 2);
  const passages = retrieved.map((r) => r.passage).join('\n');
  const answers = question.answers.filter((a) => a.trim() !== '');
  return {
    recall_at_1: gold.size === 0 ? 0 : recallAt(gold, paths, 1),
    recall_at_5: gold.size === 0 ? 0 : recallAt(gold, paths, 5),
    recall_at_10: gold.size === 0 ? 0 : recallAt(gold, paths, 10),
    mrr: firstGold < 0 ? 0 : 1 / (firstGold + 1),
    ndcg_at_10: ideal === 0 ? 0 : dcg / ideal,
    answer_containment: answers.length === 0 ? null : answers.filter((a) => containsWords(passages, a)).length / answers.length,
    tokens: retrieved.reduce((sum, r) => sum + r.tokens, 0),
    latency_ms: Math.round(latencyMs * 100) / 100,
  };
}

/**
 * Each metric's mean over the results that have a value (excluded questions left out), with its
 * bootstrap 95% interval (seeded: the same results give the same summary). A metric no result has a
 * value for is absent.
 */
export function summarize(results: readonly QuestionResult[], seed?: number): StrategySummary {
  const summary: StrategySummary = {};
  const kept = results.filter((r) => !r.excluded);
  for (const metric of EVAL_METRICS) {
    const values = kept.map((r) => r.metrics[metric]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    if (values.length > 0) summary[metric] = bootstrapMean(values, { seed });
  }
  return summary;
}
