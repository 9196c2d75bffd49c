'use client';

import { ChartNumbers } from '@/components/chart-numbers';
import { Bar, BarChart, CartesianGrid, ErrorBar, Legend, Tooltip, XAxis, YAxis } from 'recharts';
import { intervalText, meanText, whiskers } from '@/components/eval-figures';
import { PALETTE } from '@/components/overview-chart';
import type { EvalKindRow, EvalSeries } from '@/lib/queries/eval';

/** The selected run's figures per kind of question (template, else kind), with intervals, and as a table. */
export function EvalKindChart({ metricName, series, rows }: { metricName: string; series: EvalSeries[]; rows: EvalKindRow[] }) {
  const data = rows.map((r) => ({
    kind: r.kind,
    ...Object.fromEntries(
      series.flatMap((s, i) => [[`s${i}`, r.figures[s.strategy]?.mean ?? null] as const, [`e${i}`, whiskers(r.figures[s.strategy] ?? null)] as const]),
    ),
  }));
  return (
    <section aria-labelledby="eval-kinds-title" className="rounded-lg border border-stone-200 bg-white p-4" data-testid="eval-kinds">
      <h2 id="eval-kinds-title" className="text-lg font-semibold">
        {metricName} by kind of question
      </h2>
      {rows.length === 0 ? (
        <p className="mt-2 text-sm text-stone-600">
          This run has no per-question results file (other harnesses write none), so it cannot be split by kind of question.
        </p>
      ) : (
        <>
          <p className="mb-2 text-sm text-stone-600">Each kind&apos;s questions scored on their own, with 95% intervals.</p>
          <div aria-hidden="true">
            <BarChart responsive style={{ width: '100%', height: 260 }} data={data} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="kind" tick={{ fontSize: 11 }} interval={0} angle={-25} textAnchor="end" height={56} />
              <YAxis domain={[0, 1]} tick={{ fontSize: 12 }} />
              <Tooltip formatter={(value) => (typeof value === 'number' ? value.toFixed(3) : String(value))} />
              <Legend wrapperStyle={{ fontSize: 12 }} />
              {series.map((s, i) => (
                <Bar
                  key={s.strategy}
                  dataKey={`s${i}`}
                  name={s.label}
                  fill={s.strategy === 'none' ? '#8c8c8c' : PALETTE[i % PALETTE.length]}
                  isAnimationActive={false}
                >
                  <ErrorBar dataKey={`e${i}`} width={3} stroke="#44403c" isAnimationActive={false} />
                </Bar>
              ))}
            </BarChart>
          </div>
          <ChartNumbers open testId="eval-kinds-table" caption={`${metricName} by kind of question and strategy, with 95% intervals`}>
            <thead>
              <tr className="border-b border-stone-200 text-stone-600">
                <th scope="col" className="py-1 pr-3 text-left font-normal">
                  Kind
                </th>
                <th scope="col" className="py-1 pl-2 text-right font-normal">
                  Questions
                </th>
                {series.map((s) => (
                  <th key={s.strategy} scope="col" className="whitespace-nowrap py-1 pl-3 text-right font-normal">
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.kind} className="border-b border-stone-100" data-kind={r.kind}>
                  <th scope="row" className="py-1 pr-3 text-left font-normal">
                    {r.kind}
                  </th>
                  <td className="py-1 pl-2 text-right tabular-nums">{r.questions}</td>
                  {series.map((s) => (
                    <td key={s.strategy} className="whitespace-nowrap py-1 pl-3 text-right tabular-nums">
                      {meanText(r.figures[s.strategy] ?? null)} <span className="text-xs text-stone-500">({intervalText(r.figures[s.strategy] ?? null)})</span>
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </ChartNumbers>
        </>
      )}
    </section>
  );
}
