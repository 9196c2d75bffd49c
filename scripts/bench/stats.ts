/** The benchmark's arithmetic: percentiles, interleaved sampling, and the table of ratios. */
import { describeTarget, type ResultRow } from './targets';

/** The `p`-th percentile (0..100) by nearest rank; NaN for no samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** The median: the 50th percentile, averaging the two middle samples of an even count. */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Milliseconds `fn` took. */
async function timed(fn: () => unknown): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/**
 * Runs the measured things and their baseline alternately, `n` times each, after `warmup` untimed
 * rounds: A B C A B C ..., so drift of the machine's speed lands on all of them. Warm-up rounds get
 * the indexes of the last samples (n - warmup … n - 1). `prepare` runs untimed before every sample
 * (e.g. to change a file that the sample must then notice). Returns each function's samples in ms.
 */
export async function interleaveAll(
  n: number,
  fns: readonly ((i: number) => unknown)[],
  options: { warmup?: number; prepare?: (i: number, which: number) => unknown } = {},
): Promise<number[][]> {
  const out = fns.map(() => [] as number[]);
  const warmup = options.warmup ?? 0;
  for (let k = -warmup; k < n; k += 1) {
    const i = (k + n) % n;
    for (const [which, fn] of fns.entries()) {
      await options.prepare?.(i, which);
      const t = await timed(() => fn(i));
      if (k >= 0) out[which].push(t);
    }
  }
  return out;
}

/** {@link interleaveAll} of one measured thing (a) and its baseline (b, or none). */
export async function interleave(
  n: number,
  a: (i: number) => unknown,
  b: ((i: number) => unknown) | null,
  options: { warmup?: number; prepare?: (i: number, which: 'a' | 'b') => unknown } = {},
): Promise<{ a: number[]; b: number[] }> {
  const prepare = options.prepare;
  const [sa, sb = []] = await interleaveAll(n, b ? [a, b] : [a], {
    warmup: options.warmup,
    prepare: prepare && ((i, which) => prepare(i, which === 0 ? 'a' : 'b')),
  });
  return { a: sa, b: sb };
}

/** A result row; the ratio is value / baseline_value. */
export function row(name: string, unit: string, value: number, baseline: string | null, baselineValue: number | null): ResultRow {
  const usable = baseline !== null && baselineValue !== null && Number.isFinite(baselineValue) && baselineValue > 0;
  return {
    name,
    value: round(value),
    unit,
    baseline,
    baseline_value: usable ? round(baselineValue!) : null,
    ratio: usable ? Number((value / baselineValue!).toPrecision(3)) : null,
    target: null,
    met: null,
  };
}

/** A figure that could not be measured (e.g. a page that did not answer), with the reason. */
export function failedRow(name: string, unit: string, error: string): ResultRow {
  return { name, value: null, unit, baseline: null, baseline_value: null, ratio: null, target: null, met: null, error };
}

/** p50 and p95 rows of sampled figures: each percentile of the value beside the same percentile of its baseline. */
export function percentileRows(name: string, samples: { a: number[]; b: number[] }, baseline: string | null): ResultRow[] {
  const b = baseline && samples.b.length > 0 ? samples.b : null;
  return [50, 95].map((p) => row(`${name} p${p}`, 'ms', percentile(samples.a, p), b ? baseline : null, b ? percentile(b, p) : null));
}

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** The results as a markdown table, with each figure's target and whether it is met. */
export function formatTable(rows: readonly ResultRow[]): string {
  const lines = ['| figure | value | baseline | baseline value | ratio | target | met |', '|---|--:|---|--:|--:|---|---|'];
  const met = (r: ResultRow) => (r.target === null ? '' : r.met === null ? 'not measured' : r.met ? 'yes' : 'no');
  for (const r of rows) {
    const unit = (v: number | null) => (v === null ? '–' : `${v} ${r.unit}`);
    const value = r.value === null ? `failed: ${(r.error ?? 'no figure').replace(/\|/g, '\\|')}` : unit(r.value);
    lines.push(
      `| ${r.name} | ${value} | ${r.baseline === null ? 'none' : `\`${r.baseline.replace(/\|/g, '\\|')}\``} | ${unit(r.baseline_value)} | ${r.ratio === null ? '–' : r.ratio.toFixed(2)} | ${describeTarget(r.target, r.unit)} | ${met(r)} |`,
    );
  }
  return lines.join('\n');
}

/**
 * Compares the ratios of two runs figure by figure: the relative difference
 * |r2 - r1| / min(r1, r2), and whether it is within `tolerance` (0.25 = 25 %).
 */
export function compareRatios(
  first: readonly ResultRow[],
  second: readonly ResultRow[],
  tolerance = 0.25,
): { name: string; first: number | null; second: number | null; change: number | null; within: boolean | null }[] {
  const byName = new Map(second.map((r) => [r.name, r]));
  return first.map((r) => {
    const other = byName.get(r.name);
    if (r.ratio === null || !other || other.ratio === null) return { name: r.name, first: r.ratio, second: other?.ratio ?? null, change: null, within: null };
    const change = Math.abs(other.ratio - r.ratio) / Math.min(r.ratio, other.ratio);
    return { name: r.name, first: r.ratio, second: other.ratio, change: round(change, 3), within: change <= tolerance };
  });
}
