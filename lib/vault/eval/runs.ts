import { z } from 'zod';
import { isVaultError } from '../errors';
import { normalizeVaultPath } from '../notes/paths';
import type { Vault } from '../vault';
import { runResultsPath, STRATEGY_SLUG } from './run-note';
import { EVAL_METRICS, type EvalMetric, type QuestionResult } from './types';

/** One eval-run note as the page and the CLI list it. */
export interface EvalRunRow {
  path: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** `HH:MM` (from `created`, else from a `YYYY-MM-DD-HHMM-` file name), or null. */
  time: string | null;
  set: string;
  questions: number;
  k: number;
  commit: string;
  /** Metric means by strategy, from the `<strategy>_<metric>` fields. */
  strategies: Record<string, Partial<Record<EvalMetric, number>>>;
  /** `lucid` for Lucid's runs (`harness: lucid`), `other` for other harnesses'. */
  harness: 'lucid' | 'other';
  hasResults: boolean;
}

/** The fields every run has; they are not `<strategy>_<metric>` fields (`budget_tokens` would read as one). */
const FIXED = new Set(['type', 'date', 'question_set', 'questions', 'vault_commit', 'k', 'budget_tokens', 'harness', 'created', 'updated', 'tags', 'aliases']);
const METRICS: ReadonlySet<string> = new Set(EVAL_METRICS);

/**
 * The `<strategy>_<metric>` fields of a run's front matter, split at the first underscore; a field
 * whose rest is not one of EVAL_METRICS, or whose value is not a finite number, is ignored.
 */
function strategyMetrics(frontmatter: Record<string, unknown>): Record<string, Partial<Record<EvalMetric, number>>> {
  const out: Record<string, Partial<Record<EvalMetric, number>>> = {};
  for (const [key, value] of Object.entries(frontmatter)) {
    if (FIXED.has(key)) continue;
    const cut = key.indexOf('_');
    if (cut <= 0) continue;
    const strategy = key.slice(0, cut);
    const metric = key.slice(cut + 1);
    if (!STRATEGY_SLUG.test(strategy) || !METRICS.has(metric) || typeof value !== 'number' || !Number.isFinite(value)) continue;
    out[strategy] ??= {};
    out[strategy][metric as EvalMetric] = value;
  }
  return out;
}

function timeOf(path: string, created: unknown): string | null {
  if (typeof created === 'string') {
    const m = /^\d{4}-\d{2}-\d{2}T(\d{2}:\d{2})/.exec(created);
    if (m) return m[1];
  }
  const name = /(?:^|\/)\d{4}-\d{2}-\d{2}-(\d{2})(\d{2})-[^/]*$/.exec(path);
  return name ? `${name[1]}:${name[2]}` : null;
}

/**
 * Every eval-run note (`type: eval-run`) under the runs folder, newest first (by date and time,
 * then path), Lucid's and other harnesses' alike. A note that does not parse or breaks the
 * eval-run rules is skipped, never an error: the page lists what it can.
 */
export async function listEvalRuns(vault: Vault): Promise<EvalRunRow[]> {
  const folder = `${vault.layout.evalRuns}/`;
  const files = (await vault.listFiles()).filter((f) => f.path.startsWith(folder));
  const paths = new Set(files.map((f) => f.path));
  const rows: EvalRunRow[] = [];
  for (const file of files) {
    if (!file.path.toLowerCase().endsWith('.md')) continue;
    const note = await vault.readNote(file.path).catch(() => null);
    if (!note || note.problem || note.lucidType !== 'eval-run' || note.violations.length > 0) continue;
    const fm = note.frontmatter;
    rows.push({
      path: note.path,
      date: String(fm.date),
      time: timeOf(note.path, fm.created),
      set: String(fm.question_set),
      questions: fm.questions as number,
      k: fm.k as number,
      commit: String(fm.vault_commit),
      strategies: strategyMetrics(fm),
      harness: fm.harness === 'lucid' ? 'lucid' : 'other',
      hasResults: paths.has(runResultsPath(note.path)),
    });
  }
  // Within a minute, by name without `.md`: `…-team-2` (the second run) before `…-team`.
  const key = (r: EvalRunRow) => `${r.date} ${r.time ?? '00:00'} ${r.path.replace(/\.md$/i, '')}`;
  return rows.sort((a, b) => (key(a) < key(b) ? 1 : key(a) > key(b) ? -1 : 0));
}

const metricValue = z.number().finite().nullable().catch(null);
const resultSchema = z.object({
  question_id: z.string(),
  question: z.string(),
  strategy: z.string(),
  kind: z.string(),
  template: z.string().optional(),
  split: z.enum(['dev', 'test']),
  gold: z.array(z.string()),
  retrieved: z.array(z.string()),
  metrics: z.object(Object.fromEntries(EVAL_METRICS.map((m) => [m, metricValue.optional().transform((v) => v ?? null)]))),
  excluded: z.boolean().optional(),
});

/**
 * The per-question results of a run (`<run>.results.jsonl` beside its note), in file order; [] when
 * the run has no results file. Lines that are not results (another harness's own format) are skipped.
 */
export async function readRunResults(vault: Vault, runPath: string): Promise<QuestionResult[]> {
  const path = runResultsPath(normalizeVaultPath(runPath));
  let text: string;
  try {
    text = (await vault.readFileBytes(path)).toString('utf8');
  } catch (error) {
    if (isVaultError(error, 'not_found')) return [];
    throw error;
  }
  const results: QuestionResult[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const parsed = resultSchema.safeParse(value);
    if (parsed.success) results.push(parsed.data as QuestionResult);
  }
  return results;
}
