'use client';

import { useRouter } from 'next/navigation';
import type { EvalRunChoice } from '@/lib/queries/eval';

/** The run shown (set and date) and the metric charted; each change opens the page on it. */
export function EvalRunPicker({
  runs,
  selected,
  metric,
  metricChoices,
}: {
  runs: EvalRunChoice[];
  selected: string;
  metric: string;
  metricChoices: { metric: string; label: string }[];
}) {
  const router = useRouter();
  const open = (run: string, m: string) => {
    const params = new URLSearchParams({ run });
    if (m !== 'recall_at_5') params.set('metric', m);
    router.push(`/evaluation?${params}`, { scroll: false });
  };
  return (
    // A plain GET form, so the choice also works before the page's script has loaded.
    <form action="/evaluation" method="get" className="mb-4 flex flex-wrap items-end gap-3 text-sm">
      <label className="flex flex-col gap-1">
        <span className="text-stone-600">Run (question set · date)</span>
        <select name="run" value={selected} onChange={(e) => open(e.target.value, metric)} className="rounded border border-stone-300 bg-white px-2 py-1.5">
          {runs.map((r) => (
            <option key={r.path} value={r.path}>
              {r.set} · {r.when}
              {r.harness === 'other' ? ' · another harness' : ''}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1">
        <span className="text-stone-600">Metric</span>
        <select name="metric" value={metric} onChange={(e) => open(selected, e.target.value)} className="rounded border border-stone-300 bg-white px-2 py-1.5">
          {metricChoices.map((m) => (
            <option key={m.metric} value={m.metric}>
              {m.label}
            </option>
          ))}
        </select>
      </label>
      <noscript>
        <button type="submit" className="rounded border border-stone-300 px-3 py-1.5">
          Show
        </button>
      </noscript>
    </form>
  );
}
