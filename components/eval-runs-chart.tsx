'use client';

import { ChartNumbers } from '@/components/chart-numbers';
import { CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { PALETTE } from '@/components/overview-chart';
import type { EvalLinePoint, EvalSeries } from '@/lib/queries/eval';

/**
 * Each strategy's figure across the runs of one question set (x: when each run was), other
 * harnesses' strategies dashed, and the same numbers as a table.
 */
export function EvalRunsChart({ set, metricName, series, points }: { set: string; metricName: string; series: EvalSeries[]; points: EvalLinePoint[] }) {
  // Keys by index: a strategy slug is safe, but recharts reads dots in keys as paths.
  const rows = points.map((p) => ({ when: p.when, ...Object.fromEntries(series.map((s, i) => [`s${i}`, p.values[s.strategy]])) }));
  return (
    <section aria-labelledby="eval-runs-title" className="rounded-lg border border-stone-200 bg-white p-4" data-testid="eval-runs">
      <h2 id="eval-runs-title" className="text-lg font-semibold">
        {metricName} across runs of {set}
      </h2>
      <p className="mb-2 text-sm text-stone-600">
        {points.length === 1 ? 'One run of this set so far: run it again after the vault changes to see a trend.' : `${points.length} runs, oldest first.`}
      </p>
      {series.length === 0 ? (
        <p className="text-sm text-stone-600">No run of this set has a {metricName} figure.</p>
      ) : (
        <div aria-hidden="true">
          <LineChart responsive style={{ width: '100%', height: 260 }} data={rows} margin={{ top: 8, right: 16, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="when" tick={{ fontSize: 11 }} interval="preserveStartEnd" />
            <YAxis domain={[0, 1]} tick={{ fontSize: 12 }} />
            <Tooltip formatter={(value) => (typeof value === 'number' ? value.toFixed(3) : String(value))} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {series.map((s, i) => (
              <Line
                key={s.strategy}
                dataKey={`s${i}`}
                name={s.harness === 'other' ? `${s.label} (another harness)` : s.label}
                stroke={s.strategy === 'none' && s.harness === 'lucid' ? '#8c8c8c' : PALETTE[i % PALETTE.length]}
                strokeDasharray={s.harness === 'other' ? '6 3' : undefined}
                connectNulls
                isAnimationActive={false}
              />
            ))}
          </LineChart>
        </div>
      )}
      <ChartNumbers open={points.length <= 6} testId="eval-runs-table" caption={`${metricName} of each strategy in each run of ${set}`}>
        <thead>
          <tr className="border-b border-stone-200 text-stone-600">
            <th scope="col" className="py-1 pr-3 text-left font-normal">
              Strategy
            </th>
            {points.map((p) => (
              <th key={p.run} scope="col" className="whitespace-nowrap py-1 pl-2 text-right font-normal" data-run={p.run}>
                {p.when}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {series.map((s) => (
            <tr key={s.strategy} className="border-b border-stone-100" data-strategy={s.strategy}>
              <th scope="row" className="py-1 pr-3 text-left font-normal">
                {s.label}
                {s.harness === 'other' ? <span className="ml-1 rounded bg-amber-100 px-1.5 text-xs text-amber-900">from another harness</span> : null}
              </th>
              {points.map((p) => (
                <td key={p.run} className="py-1 pl-2 text-right tabular-nums" data-run={p.run}>
                  {typeof p.values[s.strategy] === 'number' ? (p.values[s.strategy] as number).toFixed(3) : '—'}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </ChartNumbers>
    </section>
  );
}
