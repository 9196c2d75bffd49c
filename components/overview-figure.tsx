import Link from 'next/link';
import type { ReactNode } from 'react';

/** One figure of the overview: its number, what it counts, and the page that lists what it counts. */
export function OverviewFigure({ value, label, href, testId, children }: { value: number; label: string; href: string; testId: string; children?: ReactNode }) {
  return (
    <div className="rounded-lg border border-stone-200 bg-white p-4 hover:border-stone-400">
      <Link href={href} className="block">
        <span className="block text-3xl font-semibold tabular-nums" data-testid={testId}>
          {value}
        </span>
        <span className="mt-1 block text-sm text-stone-600">{label}</span>
      </Link>
      {children}
    </div>
  );
}
