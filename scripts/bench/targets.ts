/**
 * Issue 18's targets: one table, keyed by a row's name less its trailing sample note ("(median)",
 * "(median of 7)"), so that a change of sample count keeps its target. A row without an entry keeps
 * `target: null`; an entry without a row (a section not run, a page not in this version) is skipped.
 * Why a target is missed is written by the person running the benchmark in bench/explanations.json,
 * kept in git, and copied into each missed row's `why`.
 */
import { existsSync, readFileSync } from 'node:fs';

/** What a row must reach. */
export interface Target {
  /** What is bounded: the row's ratio (value / baseline), or its value (in the row's unit). */
  of: 'ratio' | 'value';
  /** Met when the figure is at most this (strictly below it when `strict`). */
  max: number;
  strict?: boolean;
  /** `max` is a share of this other row's value in the same run (its key, as in TARGETS). */
  share_of?: string;
  /** The bound in the row's unit when `share_of` is set (`max` × that row's value); filled per run. */
  limit?: number;
}

const ratio = (max: number): Target => ({ of: 'ratio', max });
const pageRows = (page: string, max: number): Record<string, Target> => ({
  [`${page}, first request after start`]: ratio(max),
  [`${page}, warm p50`]: ratio(max),
  [`${page}, warm p95`]: ratio(max),
});

/** One line of bench/results.json. */
export interface ResultRow {
  name: string;
  /** null when the figure could not be measured at all (a page that failed; `error` says how). */
  value: number | null;
  unit: string;
  /** What the baseline is, in words (the command or code it times). */
  baseline: string | null;
  baseline_value: number | null;
  /** value / baseline_value; null when the baseline could not be measured (e.g. no ripgrep). */
  ratio: number | null;
  /** Issue 18's target for this figure (scripts/bench/targets.ts); null when it has none. */
  target: Target | null;
  /** Whether the target is met; null without a target or when the figure has no baseline. */
  met: boolean | null;
  /** Why a missed target is missed (bench/explanations.json), present only when met is false. */
  why?: string | null;
  /** What went wrong when the figure could not be measured. */
  error?: string;
}

/** Issue 18, on the 10,000-note vault with 20,000 commits. */
export const TARGETS: Readonly<Record<string, Target>> = {
  'search, in process p95': ratio(0.1),
  'search, MCP over stdio p95': ratio(0.33),
  start_session: ratio(1),
  'cold index build': ratio(10),
  're-index 1 changed note': { of: 'value', max: 0.05, share_of: 'cold index build' },
  'backlinks, 200 of them': ratio(1),
  'changelog, newest 100 edits': ratio(3),
  ...pageRows('page /changelog', 3),
  ...pageRows('page /skills/<skill with the longest history>', 3),
  'write, MCP end to end p50': ratio(3),
  'write, MCP end to end p95': ratio(3),
  'lucid --help': ratio(2),
  'server peak RSS, process tree': { of: 'value', max: 400, strict: true },
};

/**
 * On the 50,000-note vault (`--large`) the issue asks only that every page answers; a page that
 * takes longer than 10 s is reported as missed too, since a person gives up well before that.
 */
const LARGE_PAGE_LIMIT_MS = 10_000;

/** The key of a row in TARGETS and bench/explanations.json: its name less a trailing "(…)". */
export function targetKey(name: string): string {
  return name.replace(/\s*\([^()]*\)$/, '');
}

/** The target of a row in a run on `notes` notes, or null. */
export function targetFor(name: string, notes: number): Target | null {
  const key = targetKey(name);
  if (notes === 10_000) return TARGETS[key] ?? null;
  if (notes > 10_000 && key.startsWith('page ')) return { of: 'value', max: LARGE_PAGE_LIMIT_MS };
  return null;
}

/** bench/explanations.json: for each vault size, why a target is missed, by row key. */
export type Explanations = Record<string, Record<string, string>>;

/** Reads the explanations file; a missing file is no explanation. */
export function readExplanations(file: string): Explanations {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Explanations) : {};
}

/** How the targets came out in one run. */
export interface TargetSummary {
  met: number;
  total: number;
  /** Rows with a target whose figure was not measured (no baseline, e.g. no ripgrep). */
  unmeasured: string[];
  /** Missed rows that bench/explanations.json does not explain yet. */
  unexplained: string[];
}

/**
 * Fills `target`, `met` and, for a missed target, `why` in every row (a copy; rows without a
 * target keep null). A page that failed (an `error`, with or without a figure from the starts where
 * it answered) misses its target, and the error is its why unless the explanations say more.
 */
export function applyTargets(rows: readonly ResultRow[], notes: number, explanations: Explanations = {}): { rows: ResultRow[]; summary: TargetSummary } {
  const byKey = new Map(rows.map((r) => [targetKey(r.name), r]));
  const why = explanations[String(notes)] ?? {};
  const summary: TargetSummary = { met: 0, total: 0, unmeasured: [], unexplained: [] };
  const out = rows.map((r): ResultRow => {
    const found = targetFor(r.name, notes);
    if (!found) return { ...r, target: null, met: null };
    const target: Target = { ...found };
    let figure: number | null = target.of === 'ratio' ? r.ratio : r.value;
    if (target.share_of) {
      const other = byKey.get(target.share_of)?.value ?? null;
      target.limit = other === null ? undefined : round(other * target.max);
      if (target.limit === undefined) figure = null;
    }
    const bound = target.limit ?? target.max;
    summary.total += 1;
    // A page that failed (in every start, or only in some) misses its target whatever its figure.
    const failed = r.value === null || r.error !== undefined;
    if (figure === null && !failed) {
      summary.unmeasured.push(r.name);
      return { ...r, target, met: null };
    }
    const met = !failed && (target.strict ? figure! < bound : figure! <= bound);
    if (met) {
      summary.met += 1;
      return { ...r, target, met };
    }
    const explained = why[targetKey(r.name)] ?? null;
    if (!explained) summary.unexplained.push(r.name);
    return { ...r, target, met, why: explained ?? r.error ?? null };
  });
  return { rows: out, summary };
}

/** A target in words, for the printed table: "≤ 0.1 × baseline", "< 400 MB", "≤ 5 % of cold index build". */
export function describeTarget(target: Target | null, unit: string): string {
  if (!target) return '';
  const op = target.strict ? '<' : '≤';
  if (target.share_of) return `${op} ${target.max * 100} % of ${target.share_of}${target.limit === undefined ? '' : ` (${target.limit} ${unit})`}`;
  return target.of === 'ratio' ? `ratio ${op} ${target.max}` : `${op} ${target.max} ${unit}`;
}

/** The run's last line: "N of M targets met", with what is not measured or not explained. */
export function summaryLine(summary: TargetSummary): string {
  const extra = [
    summary.unmeasured.length ? `${summary.unmeasured.length} not measured` : '',
    summary.unexplained.length ? `${summary.unexplained.length} missed without a why in bench/explanations.json` : '',
  ].filter(Boolean);
  return `${summary.met} of ${summary.total} targets met${extra.length ? ` (${extra.join('; ')})` : ''}.`;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
