/**
 * The recall evaluation's shared types: questions, strategies, metrics and runs, in the formats
 * VAULT-FORMAT's "Evaluation" section fixes. No LLM is involved: a strategy retrieves notes for a
 * question and is scored on whether the question's gold notes (and gold answers) are among them.
 */

/** Metric names, a fixed list; a run's front matter holds `<strategy>_<metric>` fields. */
export const EVAL_METRICS = ['recall_at_1', 'recall_at_5', 'recall_at_10', 'mrr', 'ndcg_at_10', 'answer_containment', 'tokens', 'latency_ms'] as const;
export type EvalMetric = (typeof EVAL_METRICS)[number];

/** The budget of retrieved text every strategy is cut to, in tokens (characters / 4). */
export const BUDGET_TOKENS = 2000;
/** Characters per token when counting a budget. */
export const CHARS_PER_TOKEN = 4;
/** Notes a strategy returns at most, unless a run asks for another k. */
export const DEFAULT_K = 5;

/** The strategies every run measures, in this order; `none` is recall with no memory. */
export const BASE_STRATEGIES = ['none', 'recent', 'grep', 'keyword', 'keyword-links', 'keyword-fields'] as const;

/** Question kinds VAULT-FORMAT names. */
export const QUESTION_KINDS = ['template', 'mined', 'hand'] as const;

/**
 * One question of a set, one line of `evals/questions/<set>.jsonl`. `template` and
 * `paraphrased_with` are Lucid's extensions (docs/decisions.md): which template made a generated
 * question (`superseded-by`, `project-decision`, `owner`, `last-session`, `skill-trigger`,
 * `two-hop`, `heading`, `link-context`), charted as its kind; and the thesaurus its wording was
 * paraphrased with, so no strategy using that thesaurus is judged on it.
 */
export interface EvalQuestion {
  id: string;
  question: string;
  /** Vault-relative paths of the notes that answer it. */
  gold: string[];
  /** Strings an answer must contain (may be empty: then answer containment is not scored). */
  answers: string[];
  kind: string;
  split: 'dev' | 'test';
  template?: string;
  paraphrased_with?: string;
}

/** One note a run can retrieve: what strategies rank and the budget cuts. */
export interface CorpusNote {
  path: string;
  title: string;
  aliases: string[];
  /** Front-matter `type` when it is one of Lucid's types, else null. */
  type: string | null;
  /** Parsed front matter (empty when none or unparseable). */
  frontmatter: Record<string, unknown>;
  /** The whole file text (front matter included), what the budget cuts passages from. */
  text: string;
  /** Vault paths this note links to (resolved wikilinks and markdown links). */
  links: string[];
  /** Vault paths that link to this note. */
  backlinks: string[];
  /** Unix seconds of the last commit that touched the note (0 when never committed). */
  committedAt: number;
}

/**
 * The notes of one vault at one commit that search would return (Lucid's system files, AGENTS.md
 * and the evaluation folders left out), built once per run and shared by every strategy.
 */
export interface EvalCorpus {
  /** The commit the notes were read at. */
  commit: string;
  notes: CorpusNote[];
  byPath: Map<string, CorpusNote>;
}

/** What a strategy gets besides the question. */
export interface StrategyContext {
  corpus: EvalCorpus;
  /** The vault at the corpus's commit (its search index is synced before the run starts). */
  vault: import('../vault').Vault;
  k: number;
}

/**
 * A retrieval strategy. It ranks notes for a question; the runner takes the first k and cuts
 * their passages to the budget, the same way for every strategy.
 */
export interface Strategy {
  /** Slug, `[a-z0-9-]`. */
  name: string;
  /** One line for the README and the page. */
  description: string;
  /** The thesaurus whose paraphrases this strategy must not be judged on (e.g. `wordnet`). */
  thesaurus?: string;
  /** Once per run, before the first question (builds what the strategy needs). */
  prepare?(context: StrategyContext): Promise<void>;
  /** Vault paths, best first; more than k is fine, the runner cuts. */
  rank(question: string, context: StrategyContext): Promise<string[]>;
}

/** One retrieved note after the k and budget cut. */
export interface RetrievedNote {
  path: string;
  /** The passage given to the reader: the note's best window within its share of the budget. */
  passage: string;
  tokens: number;
}

/** One question scored for one strategy: a line of `<run>.results.jsonl`. */
export interface QuestionResult {
  question_id: string;
  question: string;
  strategy: string;
  kind: string;
  template?: string;
  split: 'dev' | 'test';
  gold: string[];
  /** Paths retrieved, in rank order, after the cut. */
  retrieved: string[];
  /** Metric values; `answer_containment` is null when the question has no answers. */
  metrics: Record<EvalMetric, number | null>;
  /** True when the question was left out for this strategy (paraphrased with its own thesaurus). */
  excluded?: boolean;
}

/** A metric's mean over questions with its bootstrap 95% interval. */
export interface MetricSummary {
  mean: number;
  low: number;
  high: number;
  /** Questions that had a value. */
  n: number;
}

/** One strategy's metrics over a set (or over a kind of question within it). */
export type StrategySummary = Partial<Record<EvalMetric, MetricSummary>>;

/** Progress of a run, for a terminal or the dashboard. */
export interface EvalProgress {
  set: string;
  strategy: string;
  done: number;
  total: number;
}
