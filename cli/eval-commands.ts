import {
  DEFAULT_K,
  defaultStrategies,
  type EvalProgress,
  MAX_K,
  questionCount,
  runEvaluation,
  type SetRun,
  type Strategy,
  type StrategyOptions,
  STRATEGY_NAMES,
  type StrategySummary,
  strategyByName,
} from '../lib/vault';
import { evalGenerate, evalGenerateOptions, evalGenerateUsage } from './eval-generate';
import { evalGrowth, evalGrowthOptions, evalGrowthUsage } from './eval-growth';
import { openCliVault, printJson, statusLine, UsageError, type Io } from './shared';

type Values = Record<string, string | boolean | undefined>;

/** Ollama's usual embeddings model. */
const DEFAULT_EMBEDDINGS_MODEL = 'nomic-embed-text';

const RUN_USAGE = `lucid eval run [--vault DIR] [--set NAME[,NAME]] [--k N] [--strategies a,b] [--embeddings-url URL [--embeddings-model M]] [--json]

  Measures how well each retrieval strategy finds the notes that answer the questions of a set
  (evals/questions/<set>.jsonl; every set by default), with no LLM: recall@1/5/10, MRR, nDCG@10,
  answer containment, tokens and latency, with 95% bootstrap intervals. Writes each set's run note
  (evals/runs/<YYYY-MM-DD-HHMM>-<set>.md) and its per-question results beside it, all in one
  commit as your edit (op eval). Progress goes to stderr on a terminal.

  --set         the question sets to run, comma-separated (default: every set)
  --k           notes per question, 1 to ${MAX_K} (default ${DEFAULT_K}); every strategy is also cut to
                2,000 tokens of retrieved text
  --strategies  the strategies to measure, comma-separated (default:
                ${STRATEGY_NAMES.filter((name) => name !== 'embeddings').join(', ')};
                embeddings only with --embeddings-url)
  --embeddings-url    also measure the embeddings strategy, against a local OpenAI-compatible
                      endpoint (its URL with /v1, e.g. http://127.0.0.1:11434/v1 for Ollama)
  --embeddings-model  the model it embeds with (default nomic-embed-text)

  No questions yet? lucid eval generate --vault DIR makes a set from your notes, or write
  evals/questions/<set>.jsonl by hand, one question a line:
  {"id": "q1", "question": "…", "gold": ["notes/a.md"], "answers": [], "kind": "hand", "split": "test"}`;

/** Comma-separated names, trimmed, blanks and repeats dropped. */
function listOf(value: string | boolean | undefined): string[] | undefined {
  if (typeof value !== 'string') return undefined;
  const names = [
    ...new Set(
      value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  return names.length > 0 ? names : undefined;
}

function kOf(value: string | boolean | undefined): number {
  if (value === undefined) return DEFAULT_K;
  const k = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw new UsageError(`--k must be a whole number from 1 to ${MAX_K}, not "${String(value)}"`);
  return k;
}

/** Progress on a terminal: one line per strategy, rewritten as its questions are done. */
function progressLine(io: Io & { isTTY?: boolean }): { update: (p: EvalProgress) => void; done: () => void } {
  const line = statusLine(io);
  return {
    update: (p) => line.show(`${p.set}: ${p.strategy} ${p.done}/${p.total}`, { now: p.done === 0, keep: p.done === p.total }),
    done: line.done,
  };
}

const COLUMNS: [keyof StrategySummary, string][] = [
  ['recall_at_1', 'R@1'],
  ['recall_at_5', 'R@5 (95%)'],
  ['recall_at_10', 'R@10'],
  ['mrr', 'MRR'],
  ['ndcg_at_10', 'nDCG@10'],
  ['answer_containment', 'answers'],
  ['tokens', 'tokens'],
  ['latency_ms', 'ms'],
];

/** One set's summary as an aligned text table. */
function table(run: SetRun, strategies: string[]): string {
  const rows = strategies.map((name) => {
    const s = run.summary[name] ?? {};
    return [
      name,
      ...COLUMNS.map(([metric]) => {
        const m = s[metric];
        if (!m) return '-';
        if (metric === 'recall_at_5') return `${m.mean.toFixed(2)} [${m.low.toFixed(2)}-${m.high.toFixed(2)}]`;
        if (metric === 'tokens') return String(Math.round(m.mean));
        if (metric === 'latency_ms') return m.mean.toFixed(1);
        return m.mean.toFixed(2);
      }),
    ];
  });
  const header = ['strategy', ...COLUMNS.map((c) => c[1])];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}

/** `eval run`'s options; other verbs add theirs to the `eval` verb's, and run refuses those. */
const RUN_OPTIONS = {
  vault: { type: 'string' as const, short: 'v' },
  json: { type: 'boolean' as const },
  set: { type: 'string' as const },
  k: { type: 'string' as const },
  strategies: { type: 'string' as const },
  'embeddings-url': { type: 'string' as const },
  'embeddings-model': { type: 'string' as const },
};

async function evalRun(io: Io, values: Values, args: string[]): Promise<number> {
  const foreign = Object.keys(values).find((key) => values[key] !== undefined && !(key in RUN_OPTIONS) && key !== 'help');
  if (foreign) throw new UsageError(`eval run does not take --${foreign}`);
  if (args.length > 0) throw new UsageError(`eval run takes no arguments, not "${args[0]}"`, 'name sets with --set');
  const k = kOf(values.k);
  const names = listOf(values.strategies);
  const url = typeof values['embeddings-url'] === 'string' ? values['embeddings-url'] : undefined;
  if (values['embeddings-model'] !== undefined && !url) throw new UsageError('--embeddings-model goes with --embeddings-url URL');
  if (names?.includes('embeddings') && !url) {
    throw new UsageError('the embeddings strategy needs the endpoint you run', 'add --embeddings-url http://127.0.0.1:11434/v1 for Ollama, with /v1');
  }
  const options: StrategyOptions = url ? { embeddings: { url, model: (values['embeddings-model'] as string | undefined) ?? DEFAULT_EMBEDDINGS_MODEL } } : {};
  const strategies: Strategy[] | undefined = names ? names.map((name) => strategyByName(name, options)) : url ? defaultStrategies(options) : undefined;
  const vault = await openCliVault(io, values.vault as string | undefined);
  const progress = progressLine(io);
  try {
    const result = await runEvaluation(vault, { sets: listOf(values.set), k, strategies, onProgress: progress.update });
    progress.done();
    if (values.json) {
      printJson(io, { commit: result.commit, runs: result.runs.map(({ results: _, ...run }) => run) });
      return 0;
    }
    const order = strategies?.map((s) => s.name);
    for (const run of result.runs) {
      io.out(`${run.set}: ${questionCount(run.questions)}, k ${k} -> ${run.notePath}\n`);
      io.out(`${table(run, order ?? Object.keys(run.summary))}\n`);
      if (run.missingGold.length > 0) {
        io.err(
          `${run.set}: ${run.missingGold.length} question(s) name a gold note that is not in the vault (a miss for every strategy): ${run.missingGold.slice(0, 10).join(', ')}`,
        );
      }
    }
    io.out(`Committed ${result.commit?.slice(0, 7)} (the run notes and their per-question results). R@5 shows its 95% bootstrap interval.`);
    return 0;
  } finally {
    progress.done();
    vault.close();
  }
}

const VERBS: Record<string, (io: Io, values: Values, args: string[]) => Promise<number>> = { run: evalRun, generate: evalGenerate, growth: evalGrowth };

/** `lucid eval <verb>`: the recall evaluation (`run`, `generate`, `growth`). */
export const evalCommand = {
  summary: 'Measure how well retrieval strategies find the notes that answer a question set (eval generate|run|growth)',
  usage: `${RUN_USAGE}\n\n${evalGenerateUsage}\n\n${evalGrowthUsage}`,
  options: { ...RUN_OPTIONS, ...evalGenerateOptions, ...evalGrowthOptions },
  async run(io: Io, values: Values, positionals: string[]): Promise<number> {
    const [verb, ...rest] = positionals;
    const run = verb === undefined ? undefined : VERBS[verb];
    if (!run)
      throw new UsageError(
        verb === undefined ? 'eval needs a verb, e.g. lucid eval run' : `unknown eval verb "${verb}"`,
        `verbs: ${Object.keys(VERBS).join(', ')}`,
      );
    return run(io, values, rest);
  },
};
