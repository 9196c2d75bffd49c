'use client';

import { Bar, BarChart, CartesianGrid, ErrorBar, Rectangle, Tooltip, XAxis, YAxis } from 'recharts';
import { intervalText, meanText, whiskers } from '@/components/eval-figures';
import { PALETTE } from '@/components/overview-chart';
import type { EvalStrategyBar } from '@/lib/queries/eval';

const COLOURS = { none: '#8c8c8c', lucid: PALETTE[0], other: PALETTE[1] };
const colourOf = (bar: EvalStrategyBar) => (bar.strategy === 'none' && bar.harness === 'lucid' ? COLOURS.none : COLOURS[bar.harness]);

/**
 * The selected run's strategies as bars with their 95% intervals (no memory grey, with memory blue,
 * other harnesses orange), and the same figures as a table; a bar or a row's button picks the
 * strategy whose missed questions are listed below.
 */
export function EvalStrategyChart({
  bars,
  metricName,
  metricNames,
  selected,
  onSelect,
}: {
  bars: EvalStrategyBar[];
  metricName: string;
  /** Every charted metric's name, for saying which ones a strategy without this one has. */
  metricNames: Record<string, string>;
  selected: string | null;
  onSelect: (strategy: string) => void;
}) {
  const charted = bars.filter((b) => b.figure !== null);
  const rows = charted.map((b) => ({ label: b.label, strategy: b.strategy, mean: b.figure?.mean ?? 0, err: whiskers(b.figure), fill: colourOf(b) }));
  const missing = bars.filter((b) => b.figure === null);
  return (
    <section aria-labelledby="eval-strategies-title" className="rounded-lg border border-stone-200 bg-white p-4" data-testid="eval-strategies">
      <h2 id="eval-strategies-title" className="text-lg font-semibold">
        {metricName} by strategy: no memory against memory
      </h2>
      <p className="mb-2 text-sm text-stone-600">Whiskers show the 95% bootstrap interval. Pick a strategy to see the questions it missed.</p>
      {charted.length === 0 ? (
        <p className="text-sm text-stone-600">No strategy of this run has a {metricName} figure.</p>
      ) : (
        // The whiskers are drawn over the bars: clicks go through them to the bar.
        <div aria-hidden="true" className="[&_.recharts-errorBar]:pointer-events-none">
          <BarChart responsive style={{ width: '100%', height: 280 }} data={rows} margin={{ top: 8, right: 8, bottom: 24, left: -16 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="label" tick={{ fontSize: 12 }} interval={0} angle={-25} textAnchor="end" />
            <YAxis domain={[0, 1]} tick={{ fontSize: 12 }} />
            <Tooltip formatter={(value) => (typeof value === 'number' ? value.toFixed(3) : String(value))} />
            <Bar
              dataKey="mean"
              name={metricName}
              isAnimationActive={false}
              cursor="pointer"
              onClick={(item) => onSelect((item.payload as { strategy: string }).strategy)}
              shape={(props) => (
                <Rectangle
                  {...props}
                  fill={(props.payload as { fill: string }).fill}
                  stroke={(props.payload as { strategy: string }).strategy === selected ? '#1c1917' : 'none'}
                  strokeWidth={2}
                />
              )}
            >
              <ErrorBar dataKey="err" width={6} stroke="#1c1917" isAnimationActive={false} />
            </Bar>
          </BarChart>
          <p className="mt-1 flex flex-wrap gap-x-4 text-xs text-stone-600">
            <span>
              <span className="mr-1 inline-block h-2.5 w-2.5 rounded-sm" style={{ background: COLOURS.none }} />
              no memory
            </span>
            <span>
              <span className="mr-1 inline-block h-2.5 w-2.5 rounded-sm" style={{ background: COLOURS.lucid }} />
              with memory (this run)
            </span>
            <span>
              <span className="mr-1 inline-block h-2.5 w-2.5 rounded-sm" style={{ background: COLOURS.other }} />
              from another harness
            </span>
          </p>
        </div>
      )}
      <div className="mt-3 overflow-x-auto">
        <table className="w-full text-sm" data-testid="eval-strategies-table">
          <caption className="sr-only">{metricName} by strategy, with 95% intervals</caption>
          <thead>
            <tr className="border-b border-stone-200 text-stone-600">
              <th scope="col" className="py-1 pr-3 text-left font-normal">
                Strategy
              </th>
              <th scope="col" className="py-1 pl-2 text-right font-normal">
                {metricName}
              </th>
              <th scope="col" className="py-1 pl-2 text-right font-normal">
                95% interval
              </th>
              <th scope="col" className="py-1 pl-2 text-right font-normal">
                Questions
              </th>
              <th scope="col" className="py-1 pl-3 text-left font-normal">
                From
              </th>
            </tr>
          </thead>
          <tbody>
            {bars.map((b) => (
              <tr
                key={`${b.run}:${b.strategy}`}
                className={`border-b border-stone-100 ${b.strategy === selected ? 'bg-sky-50' : ''}`}
                data-strategy={b.strategy}
              >
                <th scope="row" className="py-1 pr-3 text-left font-normal">
                  <button
                    type="button"
                    aria-pressed={b.strategy === selected}
                    onClick={() => onSelect(b.strategy)}
                    className="inline-flex items-center text-left text-blue-800 underline"
                  >
                    <span aria-hidden="true" className="mr-1.5 inline-block h-2.5 w-2.5 rounded-sm" style={{ background: colourOf(b) }} />
                    {b.label}
                  </button>
                  {b.label !== b.strategy ? <span className="ml-1 text-xs text-stone-500">({b.strategy})</span> : null}
                </th>
                <td className="py-1 pl-2 text-right tabular-nums" data-testid="eval-mean">
                  {meanText(b.figure)}
                </td>
                <td className="py-1 pl-2 text-right tabular-nums text-stone-600" data-testid="eval-interval">
                  {intervalText(b.figure)}
                </td>
                <td className="py-1 pl-2 text-right tabular-nums text-stone-600">{b.figure?.n ?? '—'}</td>
                <td className="py-1 pl-3 text-stone-600">
                  {b.harness === 'other' ? (
                    <span className="rounded bg-amber-100 px-1.5 text-xs text-amber-900">from another harness · {b.when}</span>
                  ) : (
                    'this run'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {missing.length > 0 ? (
        <p className="mt-2 text-xs text-stone-600">
          No {metricName} in their run:{' '}
          {missing.map((b) => `${b.label}${b.metrics.length > 0 ? ` (has ${b.metrics.map((m) => metricNames[m] ?? m).join(', ')})` : ''}`).join('; ')}. Pick
          another metric above to chart them.
        </p>
      ) : null}
    </section>
  );
}
