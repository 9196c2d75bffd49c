import { describe, expect, it } from 'vitest';
import { questionTerms, seeded } from '../../scripts/bench/words';
import { compareRatios, formatTable, interleave, median, percentile, percentileRows, row } from '../../scripts/bench/stats';

describe("the benchmark's arithmetic", () => {
  it('percentiles by nearest rank, medians averaging the middle pair', () => {
    const samples = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(samples, 50)).toBe(5);
    expect(percentile(samples, 95)).toBe(10);
    expect(percentile(samples, 10)).toBe(1);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
    expect(median(samples)).toBe(5.5);
    expect(median([3, 1, 2])).toBe(2);
    expect(samples).toEqual([5, 1, 4, 2, 3, 10, 9, 8, 7, 6]);
  });

  it("a row's ratio is value / baseline, and null when there is no usable baseline", () => {
    expect(row('search p50', 'ms', 30, 'rg', 12)).toEqual({
      name: 'search p50',
      value: 30,
      unit: 'ms',
      baseline: 'rg',
      baseline_value: 12,
      ratio: 2.5,
      target: null,
      met: null,
    });
    expect(row('search p50', 'ms', 30, null, null).ratio).toBeNull();
    expect(row('search p50', 'ms', 30, 'rg', 0).ratio).toBeNull();
    expect(row('x', 'ms', 1, 'rg', Number.NaN).baseline_value).toBeNull();
  });

  it('p50 and p95 rows divide the same percentile of both sides', () => {
    const [p50, p95] = percentileRows('write', { a: [10, 20, 30, 40, 100], b: [5, 5, 10, 10, 20] }, 'git commit');
    expect(p50).toMatchObject({ name: 'write p50', value: 30, baseline_value: 10, ratio: 3 });
    expect(p95).toMatchObject({ name: 'write p95', value: 100, baseline_value: 20, ratio: 5 });
    expect(percentileRows('write', { a: [1, 2], b: [] }, null).map((r) => r.ratio)).toEqual([null, null]);
  });

  it('interleaves A and B after untimed warm-up pairs, preparing before each sample', async () => {
    const order: string[] = [];
    const samples = await interleave(
      3,
      (i) => order.push(`a${i}`),
      (i) => order.push(`b${i}`),
      { warmup: 1, prepare: (i, which) => order.push(`p${which}${i}`) },
    );
    expect(order).toEqual(['pa2', 'a2', 'pb2', 'b2', 'pa0', 'a0', 'pb0', 'b0', 'pa1', 'a1', 'pb1', 'b1', 'pa2', 'a2', 'pb2', 'b2']);
    expect(samples.a).toHaveLength(3);
    expect(samples.b).toHaveLength(3);
    expect((await interleave(2, () => undefined, null)).b).toEqual([]);
  });

  it("compares two runs' ratios and flags changes over 25 %", () => {
    const first = [row('a', 'ms', 10, 'x', 10), row('b', 'ms', 10, 'x', 10), row('c', 'ms', 10, null, null)];
    const second = [row('a', 'ms', 12, 'x', 10), row('b', 'ms', 20, 'x', 10), row('c', 'ms', 10, null, null)];
    expect(compareRatios(first, second)).toEqual([
      { name: 'a', first: 1, second: 1.2, change: 0.2, within: true },
      { name: 'b', first: 1, second: 2, change: 1, within: false },
      { name: 'c', first: null, second: null, change: null, within: null },
    ]);
  });

  it('prints a markdown table with a dash where there is no baseline', () => {
    const table = formatTable([row('search p50', 'ms', 30, 'rg -e a|b', 12), row('rss', 'MB', 300, null, null)]);
    expect(table.split('\n')).toEqual([
      '| figure | value | baseline | baseline value | ratio | target | met |',
      '|---|--:|---|--:|--:|---|---|',
      '| search p50 | 30 ms | `rg -e a\\|b` | 12 ms | 2.50 |  |  |',
      '| rss | 300 MB | none | – | – |  |  |',
    ]);
  });

  it("the generator's random numbers and question terms are the same on every run", () => {
    const a = seeded(8);
    const b = seeded(8);
    expect(Array.from({ length: 5 }, a)).toEqual(Array.from({ length: 5 }, b));
    expect(questionTerms('Why did we move the billing queue to Postgres?')).toEqual(['move', 'billing', 'queue', 'postgres']);
  });
});
