// The recall figures of issue 17 for the README: every strategy on the demo vault and on `lucid init`-ed
// copies of the fixture vaults (their hand-written sets from tests/evals/ and a set generated from each
// vault), TEST split only, with 95% bootstrap intervals; then the default-strategy decision: the strategy
// with the best recall@5 pooled over the fixture vaults' test splits, against the current default
// (`keyword`, i.e. vault.search), changed only when the paired bootstrap interval of the difference
// excludes zero. Copies only: the fixtures and the repository are never changed.
// Run: node --import tsx scripts/eval-fixtures.ts [--no-demo] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generateDemoVault } from '../lib/demo/demo';
import { bootstrapDifference, bootstrapMean } from '../lib/vault/eval/bootstrap';
import { generateQuestions } from '../lib/vault/eval/generate/index';
import {
  buildCorpus,
  evaluateSet,
  listQuestionSets,
  openVault,
  readQuestionSet,
  type EvalQuestion,
  type MetricSummary,
  type QuestionResult,
  type Strategy,
  type StrategySummary,
  type Vault,
} from '../lib/vault/index';
import { defaultStrategies } from '../lib/vault/eval/strategies/index';
import { FIXTURE_VAULTS, haveFixtures, testGitEnv } from '../tests/support/fixtures';
import { prepareFixture, questionSetFile } from './search-recall';

/** The default search today: `search_notes`, `start_session` and the dashboard all use vault.search. */
export const CURRENT_DEFAULT = 'keyword';
const K = 5;
const DEMO_ANCHOR = new Date(2026, 10, 30);

/** One question set's test split, scored by every strategy. */
export interface SetFigures {
  vault: string;
  set: string;
  /** `hand` for a set written by people (the fixtures' tests/evals/ files, the demo's sets whose questions are all `hand`), `generated` for `generateQuestions`'. */
  origin: 'hand' | 'generated';
  questions: number;
  summary: Record<string, StrategySummary>;
  results: QuestionResult[];
  /** Strategies whose mean recall@5 is below grep's on this set. */
  belowGrep: string[];
}

/** The default-strategy decision over the fixture vaults' test splits. */
export interface DefaultDecision {
  current: string;
  /** The strategy furthest ahead of the current default on the questions both were judged on (the current default when none is ahead). */
  best: string;
  /** Pooled recall@5 per strategy (its own questions: paraphrases with its own thesaurus left out). */
  pooled: Record<string, MetricSummary>;
  /** Per strategy, recall@5 minus the current default's, paired on the questions both were scored on. */
  differences: Record<string, MetricSummary>;
  /** Strategies whose difference interval lies wholly above zero: each would be a better default. */
  beatsCurrent: string[];
  change: boolean;
  verdict: string;
}

type Progress = (text: string) => void;

/** Scores every strategy on the test split of each set of an opened vault (generating one more set from the vault). */
export async function measureVault(
  name: string,
  vault: Vault,
  hand: { set: string; questions: EvalQuestion[] }[],
  options: { strategies?: Strategy[]; progress?: Progress } = {},
): Promise<SetFigures[]> {
  const strategies = options.strategies ?? defaultStrategies();
  await vault.syncSearch();
  const corpus = await buildCorpus(vault);
  const generated = await generateQuestions(vault, { set: 'generated' });
  const sets = [...hand.map((h) => ({ ...h, origin: 'hand' as const })), { set: 'generated', questions: generated.questions, origin: 'generated' as const }];
  const figures: SetFigures[] = [];
  for (const { set, questions, origin } of sets) {
    const test = questions.filter((q) => q.split === 'test');
    if (test.length === 0) continue;
    const { results, summary } = await evaluateSet(vault, corpus, test, {
      k: K,
      strategies,
      set,
      onProgress: (p) => options.progress?.(`${name} ${set}: ${p.strategy} ${p.done}/${p.total}`),
    });
    const grep = summary.grep?.recall_at_5?.mean;
    const belowGrep = grep === undefined ? [] : Object.keys(summary).filter((s) => s !== 'none' && (summary[s].recall_at_5?.mean ?? 1) < grep);
    figures.push({ vault: name, set, origin, questions: test.length, summary, results, belowGrep });
  }
  return figures;
}

/** Every fixture vault that has a hand-written set, each on a fresh `lucid init`-ed copy, measured and removed. */
export async function measureFixtureVaults(options: { strategies?: Strategy[]; progress?: Progress } = {}): Promise<SetFigures[]> {
  const figures: SetFigures[] = [];
  for (const fixture of FIXTURE_VAULTS) {
    if (!questionSetFile(fixture)) continue;
    options.progress?.(`${fixture}: preparing a copy`);
    const { vault, cleanup } = await prepareFixture(fixture);
    try {
      figures.push(...(await measureVault(fixture, vault, [{ set: fixture, questions: await readQuestionSet(vault, fixture) }], options)));
    } finally {
      vault.close();
      cleanup();
    }
  }
  return figures;
}

/** The demo vault (fixed anchor), made in a temporary folder, measured on its own sets and a generated one, and removed. */
export async function measureDemoVault(options: { strategies?: Strategy[]; progress?: Progress } = {}): Promise<SetFigures[]> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'lucid-eval-demo-'));
  try {
    options.progress?.('demo: generating the vault');
    const env = testGitEnv();
    const { root } = await generateDemoVault({ dir: path.join(base, 'vault'), env, anchor: DEMO_ANCHOR, fallbackUser: 'Demo' });
    const vault = await openVault({ root, env, fallbackUser: 'Demo' });
    try {
      const sets = await Promise.all((await listQuestionSets(vault)).map(async (set) => ({ set, questions: await readQuestionSet(vault, set) })));
      // The demo's own generated set is what generateQuestions makes again below: only people's sets count as hand-written.
      const hand = sets.filter((s) => s.questions.every((q) => q.kind === 'hand'));
      return await measureVault('demo', vault, hand, options);
    } finally {
      vault.close();
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/**
 * The default-strategy decision (issue 17): pooled over every set given (the caller passes the
 * fixture vaults' test splits, hand-written sets included), the strategy with the best recall@5;
 * its paired bootstrap difference against the current default (the best is the one ahead by the most
 * on the questions both were judged on); the default changes only when that
 * interval excludes zero. A question a strategy was not judged on (`excluded`: paraphrased with its
 * own thesaurus) is left out of that strategy's pool and of its pairs.
 */
export function decideDefault(figures: readonly SetFigures[], current = CURRENT_DEFAULT): DefaultDecision {
  const byStrategy = new Map<string, Map<string, number>>();
  for (const f of figures) {
    for (const r of f.results) {
      if (r.excluded) continue;
      const value = r.metrics.recall_at_5;
      if (value === null) continue;
      let scores = byStrategy.get(r.strategy);
      if (!scores) byStrategy.set(r.strategy, (scores = new Map()));
      scores.set(`${f.vault}\u0000${f.set}\u0000${r.question_id}`, value);
    }
  }
  const base = byStrategy.get(current) ?? new Map<string, number>();
  const pooled: Record<string, MetricSummary> = {};
  const differences: Record<string, MetricSummary> = {};
  for (const [strategy, scores] of byStrategy) {
    pooled[strategy] = bootstrapMean([...scores.values()]);
    if (strategy === current) continue;
    const pairs = [...scores.keys()].filter((key) => base.has(key));
    differences[strategy] = bootstrapDifference(
      pairs.map((key) => scores.get(key) as number),
      pairs.map((key) => base.get(key) as number),
    );
  }
  // Best by the paired difference, on the questions both were judged on: pooled means alone would
  // favour a strategy left out of the questions paraphrased with its own thesaurus (the hard ones).
  let best = current;
  let bestGain = 0;
  for (const [strategy, diff] of Object.entries(differences)) {
    if (diff.n > 0 && diff.mean > bestGain) [best, bestGain] = [strategy, diff.mean];
  }
  const beatsCurrent = Object.keys(differences).filter((s) => differences[s].n > 0 && differences[s].low > 0);
  const change = best !== current && beatsCurrent.includes(best);
  const d = differences[best];
  const verdict =
    best === current
      ? `Keep \`${current}\`: no strategy has a better recall@5 on the same questions (pooled ${f3(pooled[current]?.mean ?? 0)}).`
      : change
        ? `Change the default to \`${best}\`: recall@5 ${f3(pooled[best].mean)} against ${f3(pooled[current]?.mean ?? 0)}, a difference of ${signed(d.mean)} (95% interval ${signed(d.low)} to ${signed(d.high)}, ${d.n} paired questions), which excludes zero.`
        : `Keep \`${current}\`: \`${best}\` has the best pooled recall@5 (${f3(pooled[best].mean)} against ${f3(pooled[current]?.mean ?? 0)}), but the difference ${signed(d.mean)} has a 95% interval of ${signed(d.low)} to ${signed(d.high)} (${d.n} paired questions), which includes zero.`;
  const others = beatsCurrent.filter((s) => s !== best);
  const note = others.length > 0 ? ` Also better than \`${current}\` with an interval above zero: ${others.map((s) => `\`${s}\``).join(', ')}.` : '';
  return { current, best, pooled, differences, beatsCurrent, change, verdict: verdict + note };
}

const f3 = (x: number) => x.toFixed(3);
// Exactly zero reads as 0, and a bound that only rounds to zero keeps its sign and first digit: whether
// an interval excludes zero is the whole decision.
const signed = (x: number) => (x === 0 ? '0' : `${x > 0 ? '+' : '−'}${Math.abs(x) < 0.0005 ? Math.abs(x).toPrecision(1) : Math.abs(x).toFixed(3)}`);
const cell = (m: MetricSummary | undefined, digits = 2) => (m ? `${m.mean.toFixed(digits)} (${m.low.toFixed(digits)}–${m.high.toFixed(digits)})` : '–');

/** One markdown table per set: strategy × recall@1/@5/MRR/answer containment/tokens, with intervals; strategies below grep marked. */
export function setTable(f: SetFigures): string {
  const lines = [
    `### ${f.vault}: ${f.set} (${f.origin}, test split, ${f.questions} questions)`,
    '',
    '| strategy | recall@1 | recall@5 | MRR | answer containment | tokens |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const [strategy, s] of Object.entries(f.summary)) {
    const mark = f.belowGrep.includes(strategy) ? ' ⚠ below grep' : '';
    lines.push(
      `| ${strategy}${mark} | ${cell(s.recall_at_1)} | ${cell(s.recall_at_5)} | ${cell(s.mrr)} | ${cell(s.answer_containment)} | ${s.tokens ? Math.round(s.tokens.mean) : '–'} |`,
    );
  }
  if (f.belowGrep.length > 0) lines.push('', `Below \`grep\` on recall@5 on this set: ${f.belowGrep.map((s) => `\`${s}\``).join(', ')}.`);
  return lines.join('\n');
}

/** The decision as markdown: pooled recall@5 and the paired difference against the current default per strategy, then the verdict. */
export function decisionTable(d: DefaultDecision): string {
  const lines = [
    '### Default strategy (fixture vaults, test splits pooled, hand-written and generated sets)',
    '',
    `| strategy | recall@5 | questions | difference from \`${d.current}\` | paired questions |`,
    '|---|---:|---:|---:|---:|',
  ];
  for (const [strategy, p] of Object.entries(d.pooled).sort((a, b) => b[1].mean - a[1].mean)) {
    const diff = d.differences[strategy];
    lines.push(
      `| ${strategy} | ${cell(p)} | ${p.n} | ${diff ? `${signed(diff.mean)} (${signed(diff.low)} to ${signed(diff.high)})` : '(current default)'} | ${diff ? diff.n : p.n} |`,
    );
  }
  lines.push('', d.verdict);
  return lines.join('\n');
}

async function main(): Promise<void> {
  if (!haveFixtures) {
    console.error('The fixture vaults are not here (../shared/fixtures/vaults): nothing to measure.');
    process.exitCode = 1;
    return;
  }
  const progress: Progress | undefined = process.stderr.isTTY ? (text) => process.stderr.write(`\r\u001b[K${text}`) : undefined;
  const demo = process.argv.includes('--no-demo') ? [] : await measureDemoVault({ progress });
  const fixtures = await measureFixtureVaults({ progress });
  if (progress) process.stderr.write('\r\u001b[K');
  const decision = decideDefault(fixtures);
  if (process.argv.includes('--json')) {
    const strip = (f: SetFigures) => ({ ...f, results: undefined });
    console.log(JSON.stringify({ demo: demo.map(strip), fixtures: fixtures.map(strip), decision }, null, 2));
    return;
  }
  for (const f of [...demo, ...fixtures]) console.log(`${setTable(f)}\n`);
  console.log(decisionTable(decision));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
