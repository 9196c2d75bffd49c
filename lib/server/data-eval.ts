import 'server-only';
import { bootstrapMean, type EvalMetric, type EvalRunRow, listEvalRuns, listQuestionSets, type QuestionResult, readRunResults, VaultError } from '@/lib/vault';
import { getVault } from './vault';

// The evaluation page's reads: runs from their notes' front matter (every harness), intervals and
// missed questions from a Lucid run's results file.

/** The metrics the page charts, the first the default: the share of gold notes among the first five. */
export const CHART_METRICS = ['recall_at_5', 'recall_at_1', 'recall_at_10', 'mrr', 'ndcg_at_10', 'answer_containment'] as const;
export type ChartMetric = (typeof CHART_METRICS)[number];

/** The strategy that retrieves nothing: recall with no memory. */
const NO_MEMORY = 'none';
/** Missed questions listed at most for one strategy (the rest are counted). */
const MISSED_LIMIT = 300;

/** A mean, with its bootstrap 95% interval when per-question results exist. */
export interface EvalFigure {
  mean: number;
  low: number | null;
  high: number | null;
  /** Questions scored, when known. */
  n: number | null;
}

/** One run as the run picker lists it. */
export interface EvalRunChoice {
  path: string;
  set: string;
  /** `YYYY-MM-DD HH:MM`, or the date alone. */
  when: string;
  questions: number;
  k: number;
  harness: 'lucid' | 'other';
  hasResults: boolean;
}

/** One strategy of the selected run (or of another harness's run of the same set), charted as a bar. */
export interface EvalStrategyBar {
  strategy: string;
  /** `no memory` for `none`, else the slug. */
  label: string;
  harness: 'lucid' | 'other';
  /** The run this figure comes from, and when it was. */
  run: string;
  when: string;
  figure: EvalFigure | null;
  /** The chart metrics this strategy has a figure for in its run. */
  metrics: ChartMetric[];
  /** Whether the run has per-question results for it (its missed questions can be listed). */
  perQuestion: boolean;
}

/** A strategy as a series of the lines and the by-kind chart. */
export interface EvalSeries {
  strategy: string;
  label: string;
  harness: 'lucid' | 'other';
}

/** One run of the selected set on the lines chart. */
export interface EvalLinePoint {
  run: string;
  when: string;
  harness: 'lucid' | 'other';
  values: Record<string, number | null>;
}

/** One kind of question (its template, else its kind) with each strategy's figure. */
export interface EvalKindRow {
  kind: string;
  questions: number;
  figures: Record<string, EvalFigure | null>;
}

/** Everything the evaluation page shows. */
export interface EvaluationView {
  vaultRoot: string;
  questionsFolder: string;
  sets: string[];
  runs: EvalRunChoice[];
  selected: EvalRunChoice | null;
  metric: ChartMetric;
  /** Every charted metric with its name on the page, for the picker. */
  metricChoices: { metric: ChartMetric; label: string }[];
  bars: EvalStrategyBar[];
  lines: { series: EvalSeries[]; points: EvalLinePoint[] };
  kinds: { series: EvalSeries[]; rows: EvalKindRow[] };
  /** The strategy the URL asks to open (one of the bars), or null. */
  strategy: string | null;
  /** Why the URL's run or metric was not used, or null. */
  problem: string | null;
}

/** One question a strategy missed: what should have been found and what was retrieved instead. */
export interface MissedQuestion {
  id: string;
  question: string;
  kind: string;
  split: 'dev' | 'test';
  recall: number;
  gold: { path: string; found: boolean }[];
  retrieved: { path: string; gold: boolean }[];
}

/** A strategy's missed questions in one run, or why there are none to list. */
export interface MissedView {
  run: string;
  strategy: string;
  label: string;
  harness: 'lucid' | 'other';
  /** False when the run has no per-question results for this strategy (another harness's run). */
  perQuestion: boolean;
  /** Questions scored (excluded ones left out), and how many it missed. */
  scored: number;
  missedCount: number;
  missed: MissedQuestion[];
}

/** `no memory` for the strategy that retrieves nothing, else the slug. */
export function strategyLabel(strategy: string): string {
  return strategy === NO_MEMORY ? 'no memory' : strategy;
}

/** How each charted metric is named on the page. */
const METRIC_LABELS: Record<ChartMetric, string> = {
  recall_at_5: 'recall@5',
  recall_at_1: 'recall@1',
  recall_at_10: 'recall@10',
  mrr: 'MRR',
  ndcg_at_10: 'nDCG@10',
  answer_containment: 'answer containment',
};

function choiceOf(row: EvalRunRow): EvalRunChoice {
  return {
    path: row.path,
    set: row.set,
    when: row.time ? `${row.date} ${row.time}` : row.date,
    questions: row.questions,
    k: row.k,
    harness: row.harness,
    hasResults: row.hasResults,
  };
}

const chartMetricsOf = (values: Partial<Record<EvalMetric, number>>): ChartMetric[] => CHART_METRICS.filter((m) => typeof values[m] === 'number');

/** The run the URL names when it is one of the runs, else the newest Lucid run, else the newest run. */
export function pickRun(runs: readonly EvalRunRow[], requested: string | undefined): { run: EvalRunRow | null; problem: string | null } {
  const fallback = runs.find((r) => r.harness === 'lucid') ?? runs[0] ?? null;
  if (requested === undefined) return { run: fallback, problem: null };
  const run = runs.find((r) => r.path === requested);
  if (run) return { run, problem: null };
  return {
    run: fallback,
    problem: `There is no evaluation run at "${requested.slice(0, 200)}"; showing ${fallback ? 'the newest run' : 'what there is'} instead.`,
  };
}

/** Orders strategies as a reader compares them: no memory first, then the others in their run's order. */
function ordered(names: string[]): string[] {
  return [...names.filter((n) => n === NO_MEMORY), ...names.filter((n) => n !== NO_MEMORY)];
}

/**
 * The bars: the selected run's strategies, then the strategies of other harnesses' runs of the same
 * set that the selected run does not have (each from the newest such run). Intervals where the
 * results are given, else the front matter's mean alone.
 */
export function strategyBars(
  selected: EvalRunRow,
  runs: readonly EvalRunRow[],
  metric: ChartMetric,
  intervals: Record<string, EvalFigure | null>,
): EvalStrategyBar[] {
  const bar = (row: EvalRunRow, strategy: string, perQuestion: boolean): EvalStrategyBar => {
    const values = row.strategies[strategy] ?? {};
    const mean = values[metric];
    const interval = row === selected ? intervals[strategy] : undefined;
    const figure: EvalFigure | null =
      typeof mean === 'number' ? { mean, low: interval?.low ?? null, high: interval?.high ?? null, n: interval?.n ?? null } : (interval ?? null);
    return {
      strategy,
      label: strategyLabel(strategy),
      harness: row.harness,
      run: row.path,
      when: choiceOf(row).when,
      figure,
      metrics: chartMetricsOf(values),
      perQuestion,
    };
  };
  const bars = ordered(Object.keys(selected.strategies)).map((s) => bar(selected, s, s in intervals));
  const seen = new Set(bars.map((b) => b.strategy));
  for (const row of runs) {
    if (row === selected || row.harness !== 'other' || row.set !== selected.set) continue;
    for (const strategy of Object.keys(row.strategies)) {
      if (seen.has(strategy)) continue;
      seen.add(strategy);
      bars.push(bar(row, strategy, false));
    }
  }
  return bars;
}

/** The lines: every run of the set, oldest first, with each strategy's mean from its front matter. */
export function runLines(runs: readonly EvalRunRow[], set: string, metric: ChartMetric): { series: EvalSeries[]; points: EvalLinePoint[] } {
  const ofSet = runs.filter((r) => r.set === set).reverse();
  const series = new Map<string, EvalSeries>();
  for (const row of ofSet) {
    for (const strategy of ordered(Object.keys(row.strategies))) {
      if (typeof row.strategies[strategy][metric] !== 'number' || series.has(strategy)) continue;
      series.set(strategy, { strategy, label: strategyLabel(strategy), harness: row.harness });
    }
  }
  const points = ofSet.map((row) => ({
    run: row.path,
    when: choiceOf(row).when,
    harness: row.harness,
    values: Object.fromEntries([...series.keys()].map((s) => [s, row.strategies[s]?.[metric] ?? null])),
  }));
  return { series: ordered([...series.keys()]).map((s) => series.get(s) as EvalSeries), points };
}

/** The kind a question is charted under: its template when it has one, else its kind. */
const kindOf = (r: QuestionResult) => r.template ?? r.kind;

/** The metric's mean and interval over the results, as `summarize` gives it for that one metric (the others are not drawn). */
function figureOf(results: readonly QuestionResult[], metric: ChartMetric): EvalFigure | null {
  const values = results.filter((r) => !r.excluded).map((r) => r.metrics[metric]);
  const numbers = values.filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
  if (numbers.length === 0) return null;
  const { mean, low, high, n } = bootstrapMean(numbers);
  return { mean, low, high, n };
}

/** Per strategy in a run's results: its figure for the metric with its interval (null when no question has a value). */
export function strategyIntervals(results: readonly QuestionResult[], metric: ChartMetric): Record<string, EvalFigure | null> {
  const out: Record<string, EvalFigure | null> = {};
  for (const [strategy, rows] of groupBy(results, (r) => r.strategy)) out[strategy] = figureOf(rows, metric);
  return out;
}

/** Per kind of question: each strategy's figure with its interval, kinds in name order. */
export function kindRows(results: readonly QuestionResult[], metric: ChartMetric): { series: EvalSeries[]; rows: EvalKindRow[] } {
  const strategies = ordered([...new Set(results.map((r) => r.strategy))]);
  const rows: EvalKindRow[] = [];
  for (const [kind, ofKind] of [...groupBy(results, kindOf)].sort(([a], [b]) => a.localeCompare(b))) {
    const byStrategy = groupBy(ofKind, (r) => r.strategy);
    rows.push({
      kind,
      questions: new Set(ofKind.map((r) => r.question_id)).size,
      figures: Object.fromEntries(strategies.map((s) => [s, byStrategy.has(s) ? figureOf(byStrategy.get(s) as QuestionResult[], metric) : null])),
    });
  }
  return { series: strategies.map((s) => ({ strategy: s, label: strategyLabel(s), harness: 'lucid' as const })), rows };
}

/** The questions a strategy missed (recall@5 below 1; excluded ones left out), in the results' order. */
export function missedQuestions(results: readonly QuestionResult[], strategy: string): { scored: number; missed: MissedQuestion[] } {
  const scored = results.filter((r) => r.strategy === strategy && !r.excluded);
  const missed = scored
    .filter((r) => (r.metrics.recall_at_5 ?? 0) < 1)
    .map((r) => {
      const gold = new Set(r.gold);
      const top = new Set(r.retrieved.slice(0, 5));
      return {
        id: r.question_id,
        question: r.question,
        kind: kindOf(r),
        split: r.split,
        recall: r.metrics.recall_at_5 ?? 0,
        gold: r.gold.map((path) => ({ path, found: top.has(path) })),
        retrieved: r.retrieved.map((path) => ({ path, gold: gold.has(path) })),
      };
    });
  return { scored: scored.length, missed };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/** The evaluation page: the runs, the chosen run's strategies with intervals, the set's runs over time, and by kind. */
export async function fetchEvaluation(params: Record<string, string | string[] | undefined>): Promise<EvaluationView> {
  const vault = await getVault();
  const [sets, runs] = await Promise.all([listQuestionSets(vault), listEvalRuns(vault)]);
  const { run, problem: runProblem } = pickRun(runs, one(params.run));
  const requestedMetric = one(params.metric);
  const metric = (CHART_METRICS as readonly string[]).includes(requestedMetric ?? '') ? (requestedMetric as ChartMetric) : 'recall_at_5';
  const metricProblem =
    requestedMetric !== undefined && requestedMetric !== metric ? `"${requestedMetric.slice(0, 40)}" is not a metric the page charts; showing recall@5.` : null;
  const results = run?.hasResults ? await readRunResults(vault, run.path) : [];
  const bars = run ? strategyBars(run, runs, metric, strategyIntervals(results, metric)) : [];
  const requestedStrategy = one(params.strategy);
  return {
    vaultRoot: vault.root,
    questionsFolder: vault.layout.evalQuestions,
    sets,
    runs: runs.map(choiceOf),
    selected: run ? choiceOf(run) : null,
    metric,
    metricChoices: CHART_METRICS.map((m) => ({ metric: m, label: METRIC_LABELS[m] })),
    bars,
    lines: run ? runLines(runs, run.set, metric) : { series: [], points: [] },
    kinds: kindRows(results, metric),
    strategy: bars.some((b) => b.strategy === requestedStrategy) ? (requestedStrategy as string) : null,
    problem: runProblem ?? metricProblem,
  };
}

/**
 * The questions a strategy missed in a run (one of the listed runs: a path is never read unless a
 * run note is there). A strategy with no per-question results (another harness's) says so.
 */
export async function fetchMissedQuestions(runPath: string, strategy: string): Promise<MissedView> {
  const vault = await getVault();
  const row = (await listEvalRuns(vault)).find((r) => r.path === runPath);
  if (!row) throw new VaultError('not_found', `There is no evaluation run at ${runPath}. Reload the page and pick a run from the list.`);
  const results = row.hasResults ? (await readRunResults(vault, row.path)).filter((r) => r.strategy === strategy) : [];
  const base = { run: row.path, strategy, label: strategyLabel(strategy), harness: row.harness };
  if (results.length === 0) return { ...base, perQuestion: false, scored: 0, missedCount: 0, missed: [] };
  const { scored, missed } = missedQuestions(results, strategy);
  return { ...base, perQuestion: true, scored, missedCount: missed.length, missed: missed.slice(0, MISSED_LIMIT) };
}
