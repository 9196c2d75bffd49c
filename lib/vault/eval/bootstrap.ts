import { VaultError } from '../errors';
import { mulberry32 } from '../ids';
import type { MetricSummary } from './types';

/** The seed every run's bootstrap starts from, so the same results give the same intervals. */
const BOOTSTRAP_SEED = 17;
/** Resamples per interval. */
const BOOTSTRAP_RESAMPLES = 2000;

/** How a bootstrap is drawn. */
export interface BootstrapOptions {
  seed?: number;
  resamples?: number;
}

function mean(values: readonly number[]): number {
  let sum = 0;
  for (const v of values) sum += v;
  return values.length === 0 ? 0 : sum / values.length;
}

/**
 * The mean of `values` with its 95% percentile bootstrap interval (seeded, so deterministic: seed
 * 17 and 2,000 resamples unless given). No values: mean, low and high 0 and `n` 0.
 */
export function bootstrapMean(values: readonly number[], options: BootstrapOptions = {}): MetricSummary {
  const n = values.length;
  const m = mean(values);
  if (n === 0) return { mean: 0, low: 0, high: 0, n: 0 };
  const resamples = Math.max(1, Math.floor(options.resamples ?? BOOTSTRAP_RESAMPLES));
  const random = mulberry32(options.seed ?? BOOTSTRAP_SEED);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r += 1) {
    let sum = 0;
    for (let i = 0; i < n; i += 1) sum += values[Math.floor(random() * n)];
    means[r] = sum / n;
  }
  means.sort();
  const low = means[Math.floor(0.025 * resamples)];
  const high = means[Math.max(0, Math.ceil(0.975 * resamples) - 1)];
  return { mean: m, low, high, n };
}

/**
 * The mean difference `a[i] - b[i]` of two strategies on the same questions (paired), with its 95%
 * bootstrap interval: the difference is real when the interval excludes zero.
 */
export function bootstrapDifference(a: readonly number[], b: readonly number[], options: BootstrapOptions = {}): MetricSummary {
  if (a.length !== b.length) {
    throw new VaultError('invalid_input', `A paired difference needs the same questions on both sides (${a.length} against ${b.length} values).`);
  }
  return bootstrapMean(
    a.map((x, i) => x - b[i]),
    options,
  );
}
