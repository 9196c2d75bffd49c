import type { EvalFigure } from '@/lib/queries/eval';

// How the evaluation's charts and tables write and draw a figure, the same everywhere.

/** A mean as the page writes it: three decimals, as the run note's table. */
export function meanText(figure: EvalFigure | null): string {
  return figure ? figure.mean.toFixed(3) : '—';
}

/** The 95% interval as `0.600–0.900`, or a dash where there are no per-question results. */
export function intervalText(figure: EvalFigure | null): string {
  return figure && figure.low !== null && figure.high !== null ? `${figure.low.toFixed(3)}–${figure.high.toFixed(3)}` : '—';
}

/** The whiskers for recharts' ErrorBar: distances below and above the mean, or none. */
export function whiskers(figure: EvalFigure | null): [number, number] | undefined {
  if (!figure || figure.low === null || figure.high === null) return undefined;
  return [Math.max(0, figure.mean - figure.low), Math.max(0, figure.high - figure.mean)];
}
