import { describe, expect, it } from 'vitest';
import { bootstrapDifference, bootstrapMean, mulberry32 } from '../../lib/vault';

describe('bootstrap', () => {
  it('mulberry32 repeats its sequence for a seed and differs for another', () => {
    const a = mulberry32(17);
    const b = mulberry32(17);
    const c = mulberry32(18);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    expect([c(), c(), c()]).not.toEqual(first);
    for (const x of first) expect(x >= 0 && x < 1).toBe(true);
  });

  it('gives the same interval for the same values and seed', () => {
    const values = [0.13, 0.92, 0.41, 0.77, 0.05, 0.66, 0.38, 0.2, 0.84, 0.51];
    expect(bootstrapMean(values)).toEqual(bootstrapMean(values));
    expect(bootstrapMean(values, { seed: 17 })).toEqual(bootstrapMean(values));
    expect(bootstrapMean(values, { seed: 5 })).not.toEqual(bootstrapMean(values, { seed: 6 }));
  });

  it('brackets the mean with a plausible 95% interval', () => {
    const values = Array.from({ length: 100 }, (_, i) => (i % 4 === 0 ? 0 : 1));
    const s = bootstrapMean(values);
    expect(s.mean).toBe(0.75);
    expect(s.n).toBe(100);
    expect(s.low).toBeLessThan(0.75);
    expect(s.high).toBeGreaterThan(0.75);
    // The normal approximation: 1.96 * sqrt(0.75 * 0.25 / 100) = 0.085.
    expect(s.high - s.low).toBeGreaterThan(0.12);
    expect(s.high - s.low).toBeLessThan(0.22);
  });

  it('has no width for constant values and nothing for no values', () => {
    expect(bootstrapMean([0.5, 0.5, 0.5])).toEqual({ mean: 0.5, low: 0.5, high: 0.5, n: 3 });
    expect(bootstrapMean([])).toEqual({ mean: 0, low: 0, high: 0, n: 0 });
  });

  it('covers the true mean about 95% of the time', () => {
    const random = mulberry32(99);
    let covered = 0;
    const trials = 200;
    for (let t = 0; t < trials; t += 1) {
      const sample = Array.from({ length: 40 }, () => (random() < 0.6 ? 1 : 0));
      const s = bootstrapMean(sample, { seed: t, resamples: 500 });
      if (s.low <= 0.6 && 0.6 <= s.high) covered += 1;
    }
    expect(covered / trials).toBeGreaterThan(0.88);
    expect(covered / trials).toBeLessThan(0.99);
  });

  it('pairs the difference question by question', () => {
    const a = [1, 1, 1, 1, 1, 1, 1, 1, 0, 1];
    const b = [0, 0, 1, 0, 0, 1, 0, 0, 0, 0];
    const d = bootstrapDifference(a, b);
    expect(d.mean).toBeCloseTo(0.7, 10);
    expect(d.low).toBeGreaterThan(0);
    const same = bootstrapDifference(a, a);
    expect(same).toEqual({ mean: 0, low: 0, high: 0, n: 10 });
    expect(() => bootstrapDifference([1], [1, 0])).toThrow(/same questions/);
  });
});
