'use client';

import type { DreamReview } from '@/lib/queries/dream';

type Run = DreamReview['runs'][number];

/** Every dream run, newest first, with how many of its changes wait; the chosen one marked. */
export function DreamRunList({ runs, selected, onSelect }: { runs: Run[]; selected: string | null; onSelect: (runId: string) => void }) {
  return (
    <nav aria-label="Dream runs" className="mb-4">
      <ul className="flex flex-wrap gap-2">
        {runs.map((run) => {
          const current = run.runId === selected;
          const c = run.counts;
          return (
            <li key={run.runId}>
              <button
                type="button"
                aria-current={current ? 'true' : undefined}
                onClick={() => onSelect(run.runId)}
                className={`rounded-md border px-3 py-1.5 text-left text-sm ${current ? 'border-sky-500 bg-sky-50' : 'border-stone-300 bg-white hover:bg-stone-50'}`}
              >
                <span className="font-mono">{run.runId}</span>
                <span className="ml-2 text-xs text-stone-600">
                  {c.pending} pending · {c.landed} landed · {c.dismissed} dismissed
                  {c.inapplicable > 0 ? ` · ${c.inapplicable} no longer apply` : ''}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
