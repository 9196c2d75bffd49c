'use client';

import type { InboxFilterValues } from '@/lib/queries/inbox';

const ACTIONS: NonNullable<InboxFilterValues['action']>[] = ['create', 'update', 'append', 'delete'];
const isAction = (value: string): value is NonNullable<InboxFilterValues['action']> => (ACTIONS as string[]).includes(value);

function Choice({ label, value, options, onChange }: { label: string; value: string; options: string[]; onChange: (value: string) => void }) {
  // A value from the URL that no item has any more stays choosable, so the filter never silently changes.
  const shown = value && !options.includes(value) ? [value, ...options] : options;
  return (
    <label className="flex items-center gap-1 text-sm">
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value)} className="max-w-56 rounded-md border border-stone-300 bg-white px-2 py-1">
        <option value="">Any</option>
        {shown.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The queue's filters by agent, flag and action (kept in the URL by the page). */
export function InboxFilters({
  filter,
  agents,
  flags,
  onChange,
}: {
  filter: InboxFilterValues;
  agents: string[];
  flags: string[];
  onChange: (filter: InboxFilterValues) => void;
}) {
  const any = Boolean(filter.agent || filter.flag || filter.action);
  return (
    <fieldset aria-label="Filters" className="flex flex-wrap items-center gap-3">
      <Choice label="Agent" value={filter.agent ?? ''} options={agents} onChange={(agent) => onChange({ ...filter, agent: agent || undefined })} />
      <Choice label="Flag" value={filter.flag ?? ''} options={flags} onChange={(flag) => onChange({ ...filter, flag: flag || undefined })} />
      <Choice
        label="Action"
        value={filter.action ?? ''}
        options={ACTIONS}
        onChange={(action) => onChange({ ...filter, action: isAction(action) ? action : undefined })}
      />
      {any ? (
        <button type="button" onClick={() => onChange({})} className="text-sm text-blue-800 underline">
          Clear filters
        </button>
      ) : null}
    </fieldset>
  );
}
