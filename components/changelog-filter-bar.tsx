'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId } from 'react';
import type { ChangelogInput } from '@/lib/queries/changelog';

const FIELD = 'rounded-md border border-stone-300 bg-white px-2 py-1.5 text-sm';

/** The changelog's filters (actor, op, note type, dates); each change is a new URL, so a filtered view can be shared and reloaded. */
export function ChangelogFilterBar({
  filters,
  actors,
  choices,
  hrefFor,
}: {
  filters: ChangelogInput;
  actors: string[];
  choices: { ops: string[]; types: string[] };
  hrefFor: (filters: ChangelogInput) => string;
}) {
  const router = useRouter();
  const id = useId();
  const set = (key: 'actor' | 'op' | 'type' | 'since' | 'until', value: string) => {
    const next = { ...filters, before: undefined, [key]: value || undefined } as ChangelogInput;
    router.push(hrefFor(next), { scroll: false });
  };
  const actorChoices = filters.actor && filters.actor !== 'foreign' && !actors.includes(filters.actor) ? [filters.actor, ...actors] : actors;
  return (
    <form aria-label="Filters" className="mb-3 flex flex-wrap items-end gap-3" onSubmit={(e) => e.preventDefault()}>
      <div className="flex flex-col gap-0.5 text-xs text-stone-600">
        <label htmlFor={`${id}-actor`}>Actor</label>
        <select id={`${id}-actor`} className={FIELD} value={filters.actor ?? ''} onChange={(e) => set('actor', e.target.value)}>
          <option value="">Anyone</option>
          <option value="foreign">Not made by Lucid (git, Obsidian)</option>
          {actorChoices.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-0.5 text-xs text-stone-600">
        <label htmlFor={`${id}-op`}>Operation</label>
        <select id={`${id}-op`} className={FIELD} value={filters.op ?? ''} onChange={(e) => set('op', e.target.value)}>
          <option value="">Any</option>
          {choices.ops.map((op) => (
            <option key={op} value={op}>
              {op}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-0.5 text-xs text-stone-600">
        <label htmlFor={`${id}-type`}>Note type</label>
        <select id={`${id}-type`} className={FIELD} value={filters.type ?? ''} onChange={(e) => set('type', e.target.value)}>
          <option value="">Any</option>
          {choices.types.map((type) => (
            <option key={type} value={type}>
              {type}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-0.5 text-xs text-stone-600">
        <label htmlFor={`${id}-since`}>From</label>
        <input id={`${id}-since`} type="date" className={FIELD} value={filters.since ?? ''} onChange={(e) => set('since', e.target.value)} />
      </div>
      <div className="flex flex-col gap-0.5 text-xs text-stone-600">
        <label htmlFor={`${id}-until`}>To</label>
        <input id={`${id}-until`} type="date" className={FIELD} value={filters.until ?? ''} onChange={(e) => set('until', e.target.value)} />
      </div>
      {filters.actor || filters.op || filters.type || filters.since || filters.until ? (
        <Link href="/changelog" className="pb-1.5 text-sm text-blue-800 underline">
          Clear filters
        </Link>
      ) : null}
    </form>
  );
}
