'use client';

import { ChartNumbers } from '@/components/chart-numbers';
import Link from 'next/link';
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from 'recharts';

/** Okabe–Ito: told apart with every common colour-vision deficiency; yellow last, as it is faint on white. */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#CC79A7', '#D55E00', '#56B4E9', '#000000', '#F0E442'];

/** One day of a chart: its label and the count of each series. */
export interface ChartDay {
  day: string;
  label: string;
  values: Record<string, number>;
}

/**
 * Edits per day as stacked bars, one colour per series, and the same numbers as a table beneath
 * (each series linking to its filtered changelog), so the figures are there without the picture.
 */
export function OverviewChart({
  id,
  title,
  seriesLabel,
  days,
  series,
  seriesHref,
}: {
  id: string;
  title: string;
  /** What a series is, for the table's header ("Agent or person", "Note type"). */
  seriesLabel: string;
  days: ChartDay[];
  series: string[];
  /** The changelog filtered to each series and the range; null where there is no such filter. */
  seriesHref: Record<string, string | null>;
}) {
  const rows = days.map((d) => ({ label: d.label, ...Object.fromEntries(series.map((s, i) => [`s${i}`, d.values[s] ?? 0])) }));
  const total = (s: string) => days.reduce((n, d) => n + (d.values[s] ?? 0), 0);
  return (
    <section aria-labelledby={`${id}-title`} className="rounded-lg border border-stone-200 bg-white p-4" data-testid={id}>
      <h2 id={`${id}-title`} className="mb-2 text-lg font-semibold">
        {title}
      </h2>
      {series.length === 0 ? (
        <p className="text-sm text-stone-600">No edits in this range.</p>
      ) : (
        <div aria-hidden="true">
          <BarChart responsive style={{ width: '100%', height: 240 }} data={rows} margin={{ top: 8, right: 8, bottom: 0, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" tick={{ fontSize: 12 }} interval="preserveStartEnd" />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {series.map((s, i) => (
              // Keys by index: a name may hold a dot, which recharts would read as a path.
              <Bar key={s} dataKey={`s${i}`} name={s} stackId="edits" fill={PALETTE[i % PALETTE.length]} isAnimationActive={false} />
            ))}
          </BarChart>
        </div>
      )}
      <ChartNumbers open={days.length <= 14} testId={`${id}-table`} caption={`${title}, per day`}>
        <thead>
          <tr className="border-b border-stone-200 text-stone-600">
            <th scope="col" className="py-1 pr-3 text-left font-normal">
              {seriesLabel}
            </th>
            {days.map((d) => (
              <th key={d.day} scope="col" className="whitespace-nowrap py-1 pl-2 text-right font-normal" data-day={d.day}>
                {d.label}
              </th>
            ))}
            <th scope="col" className="py-1 pl-2 text-right font-normal">
              Total
            </th>
          </tr>
        </thead>
        <tbody>
          {series.map((s, i) => (
            <tr key={s} className="border-b border-stone-100" data-series={s}>
              <th scope="row" className="py-1 pr-3 text-left font-normal">
                <span aria-hidden="true" className="mr-1.5 inline-block h-2.5 w-2.5 rounded-sm" style={{ background: PALETTE[i % PALETTE.length] }} />
                {seriesHref[s] ? (
                  <Link href={seriesHref[s] as string} className="break-all text-blue-800 underline">
                    {s}
                  </Link>
                ) : (
                  s
                )}
              </th>
              {days.map((d) => (
                <td key={d.day} className="py-1 pl-2 text-right tabular-nums" data-day={d.day}>
                  {d.values[s] ?? 0}
                </td>
              ))}
              <td className="py-1 pl-2 text-right font-medium tabular-nums">{total(s)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr className="font-medium">
            <th scope="row" className="py-1 pr-3 text-left">
              All
            </th>
            {days.map((d) => (
              <td key={d.day} className="py-1 pl-2 text-right tabular-nums">
                {Object.values(d.values).reduce((a, b) => a + b, 0)}
              </td>
            ))}
            <td className="py-1 pl-2 text-right tabular-nums">{series.reduce((n, s) => n + total(s), 0)}</td>
          </tr>
        </tfoot>
      </ChartNumbers>
    </section>
  );
}
