import type { VaultLayout } from '../notes/layout';
import { VaultError } from '../errors';
import type { Vault } from '../vault';
import { cutToBudget } from './budget';
import { buildCorpus, resolveGold } from './corpus';
import { scoreQuestion, summarize } from './metrics';
import { listQuestionSets, readQuestionSet } from './questions';
import { kindOf, questionCount, renderRunNote, STRATEGY_SLUG, runNotePath, runResultsPath, serializeResults } from './run-note';
import { defaultStrategies } from './strategies/index';
import {
  BUDGET_TOKENS,
  DEFAULT_K,
  type EvalCorpus,
  type EvalProgress,
  type EvalQuestion,
  type QuestionResult,
  type Strategy,
  type StrategySummary,
} from './types';

/** What a run measures and who it is written as. */
export interface EvalRunOptions {
  /** Question sets to run (names without `.jsonl`); every set by default. */
  sets?: string[];
  /** Notes per question, 1 to 100 (default 5). */
  k?: number;
  /** Strategies to measure; the registry's `defaultStrategies()` by default. */
  strategies?: Strategy[];
  /** Called when a strategy starts on a set and after each question. */
  onProgress?: (p: EvalProgress) => void;
  /** Milliseconds for latency (default `performance.now`); the demo passes its own clock so its runs are reproducible. */
  timer?: () => number;
  /** Who the run is committed as (default: the person at this vault). */
  actor?: string;
  /** When the run ran (default: the vault clock), for the note's name and date. */
  now?: Date;
}

/** One set's run: where it was written and what it measured. */
export interface SetRun {
  set: string;
  notePath: string;
  resultsPath: string;
  questions: number;
  summary: Record<string, StrategySummary>;
  results: QuestionResult[];
  /** Ids of questions naming a gold note that is not in the corpus (scored as misses by every strategy). */
  missingGold: string[];
}

/** Most notes per question a run accepts. */
export const MAX_K = 100;

/** What to tell a person whose vault has no questions yet. */
function noQuestionsHint(layout: VaultLayout, set = '<set>'): string {
  return `Make one with \`lucid eval generate${set === '<set>' ? '' : ` --set ${set}`}\`, or write ${layout.evalQuestions}/${set}.jsonl by hand, one JSON question a line ({"id", "question", "gold", "answers", "kind", "split"}).`;
}

/** Strategies whose names can be front-matter fields and do not overwrite each other's results. */
function checkStrategies(strategies: readonly Strategy[]): void {
  if (strategies.length === 0) throw new VaultError('invalid_input', 'A run needs at least one strategy.');
  const seen = new Set<string>();
  for (const { name } of strategies) {
    if (!STRATEGY_SLUG.test(name))
      throw new VaultError(
        'invalid_input',
        `"${name}" is not a strategy name: use lowercase letters, digits and "-" (its results are <name>_<metric> fields).`,
      );
    if (seen.has(name)) throw new VaultError('invalid_input', `The strategy "${name}" is listed twice; name each strategy once.`);
    seen.add(name);
  }
}

function checkK(k: number): number {
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw new VaultError('invalid_input', `k must be a whole number from 1 to ${MAX_K}, not ${k}.`);
  return k;
}

/**
 * Scores every strategy on one set's questions against `corpus`: each strategy is prepared once,
 * ranks each question, and is cut to k notes and the token budget; a question paraphrased with a
 * strategy's own thesaurus is recorded as excluded for it and left out of its summary. Gold paths
 * are matched to the corpus's spelling first (see resolveGold). Results are
 * in strategy order, then question order. Writes nothing to the vault (it syncs the search index).
 */
export async function evaluateSet(
  vault: Vault,
  corpus: EvalCorpus,
  asWritten: EvalQuestion[],
  options: { k: number; strategies: Strategy[]; onProgress?: (p: EvalProgress) => void; set: string; timer?: () => number },
): Promise<{ results: QuestionResult[]; summary: Record<string, StrategySummary> }> {
  const k = checkK(options.k);
  checkStrategies(options.strategies);
  const questions = resolveGold(asWritten, corpus);
  await vault.syncSearch();
  const results: QuestionResult[] = [];
  const summary: Record<string, StrategySummary> = {};
  const total = questions.length;
  const timer = options.timer ?? (() => performance.now());
  for (const strategy of options.strategies) {
    const context = { corpus, vault, k };
    options.onProgress?.({ set: options.set, strategy: strategy.name, done: 0, total });
    await strategy.prepare?.(context);
    const own: QuestionResult[] = [];
    for (const [i, q] of questions.entries()) {
      const base = { question_id: q.id, question: q.question, strategy: strategy.name, kind: kindOf(q), template: q.template, split: q.split, gold: q.gold };
      if (q.paraphrased_with && strategy.thesaurus === q.paraphrased_with) {
        own.push({ ...base, retrieved: [], metrics: emptyMetrics(), excluded: true });
      } else {
        const started = timer();
        const ranked = await strategy.rank(q.question, context);
        const retrieved = cutToBudget(ranked, q.question, corpus, k);
        const latency = timer() - started;
        own.push({ ...base, retrieved: retrieved.map((r) => r.path), metrics: scoreQuestion(q, retrieved, latency) });
      }
      options.onProgress?.({ set: options.set, strategy: strategy.name, done: i + 1, total });
    }
    summary[strategy.name] = summarize(own);
    results.push(...own);
  }
  return { results, summary };
}

/**
 * Runs the strategies (the registry's by default) on the vault's question sets (every set by
 * default) and commits every set's run note and results file in ONE edit (op `eval`), as `actor`
 * (default: the person at this vault). Sets are read before anything runs, so a bad set fails
 * first; a named set with no questions is `not_found`, saying how to make one.
 */
export async function runEvaluation(vault: Vault, options: EvalRunOptions = {}): Promise<{ commit: string | null; runs: SetRun[] }> {
  const k = checkK(options.k ?? DEFAULT_K);
  const strategies = options.strategies ?? defaultStrategies();
  checkStrategies(strategies);
  const names = options.sets ?? (await listQuestionSets(vault));
  if (names.length === 0)
    throw new VaultError('not_found', `This vault has no question sets in ${vault.layout.evalQuestions}/. ${noQuestionsHint(vault.layout)}`);
  const sets: { set: string; questions: EvalQuestion[] }[] = [];
  for (const set of names) {
    const questions = await readQuestionSet(vault, set);
    if (questions.length > 0) sets.push({ set, questions });
    else if (options.sets) throw new VaultError('not_found', `The question set "${set}" has no questions. ${noQuestionsHint(vault.layout, set)}`);
  }
  if (sets.length === 0)
    throw new VaultError('not_found', `The question sets in ${vault.layout.evalQuestions}/ have no questions. ${noQuestionsHint(vault.layout)}`);

  const corpus = await buildCorpus(vault);
  const now = options.now ?? vault.clock();
  const existing = new Set((await vault.listFiles()).map((f) => f.path));
  const runs: SetRun[] = [];
  const changes: { path: string; content: string; expectedHash: null }[] = [];
  for (const { set, questions: asWritten } of sets) {
    const questions = resolveGold(asWritten, corpus);
    const { results, summary } = await evaluateSet(vault, corpus, questions, { k, strategies, onProgress: options.onProgress, set, timer: options.timer });
    let attempt = 1;
    let notePath = runNotePath(vault.layout, now, set, attempt);
    while (existing.has(notePath) || existing.has(runResultsPath(notePath))) notePath = runNotePath(vault.layout, now, set, ++attempt);
    const resultsPath = runResultsPath(notePath);
    const missingGold = questions.filter((q) => q.gold.some((g) => !corpus.byPath.has(g))).map((q) => q.id);
    existing.add(notePath);
    existing.add(resultsPath);
    const note = renderRunNote({
      set,
      now,
      questions,
      commit: corpus.commit,
      k,
      budgetTokens: BUDGET_TOKENS,
      strategies: strategies.map((s) => s.name),
      summary,
      results,
      resultsPath,
      missingGold,
    });
    changes.push({ path: notePath, content: note, expectedHash: null }, { path: resultsPath, content: serializeResults(results), expectedHash: null });
    runs.push({ set, notePath, resultsPath, questions: questions.length, summary, results, missingGold });
  }
  const edit = await vault.edit({
    actor: options.actor ?? vault.person,
    op: 'eval',
    path: runs[0].notePath,
    reason: `recall evaluation of ${runs.map((r) => `${r.set} (${questionCount(r.questions)})`).join(', ')}: ${strategies.length} strateg${strategies.length === 1 ? 'y' : 'ies'}, k ${k}${bestOf(runs[0])}`,
    changes,
  });
  return { commit: edit.commit, runs };
}

/** ", best recall@5: <strategy> <value>" for the changelog line, or nothing. */
function bestOf(run: SetRun): string {
  let best: [string, number] | null = null;
  for (const [name, s] of Object.entries(run.summary)) {
    const r = s.recall_at_5?.mean;
    if (r !== undefined && (!best || r > best[1])) best = [name, r];
  }
  return best ? `, best recall@5 on ${run.set}: ${best[0]} ${best[1].toFixed(2)}` : '';
}

function emptyMetrics(): QuestionResult['metrics'] {
  return { recall_at_1: null, recall_at_5: null, recall_at_10: null, mrr: null, ndcg_at_10: null, answer_containment: null, tokens: null, latency_ms: null };
}
