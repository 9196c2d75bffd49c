'use client';

import Link from 'next/link';
import type { ReactNode } from 'react';

const FIELD = 'rounded-md border border-stone-300 bg-white px-2 py-1.5 text-sm';

/** A list page's filter form: its fields in a row, and Clear filters (back to `clearHref`) while any is set. */
export function FilterForm({ filtered, clearHref, children }: { filtered: boolean; clearHref: string; children: ReactNode }) {
  return (
    <form aria-label="Filters" className="mb-3 flex flex-wrap items-end gap-3" onSubmit={(e) => e.preventDefault()}>
      {children}
      {filtered ? (
        <Link href={clearHref} className="pb-1.5 text-sm text-blue-800 underline">
          Clear filters
        </Link>
      ) : null}
    </form>
  );
}

/** One filter as a choice, its label beside it; the empty value (`anyLabel`) is no filter. */
export function FilterSelect({
  id,
  label,
  value,
  options,
  onChange,
  anyLabel = 'Any',
}: {
  id: string;
  label: string;
  value: string | undefined;
  options: readonly { value: string; label: string }[];
  onChange: (value: string) => void;
  anyLabel?: string;
}) {
  return (
    <div className="flex flex-col gap-0.5 text-xs text-stone-600">
      <label htmlFor={id}>{label}</label>
      <select id={id} className={FIELD} value={value ?? ''} onChange={(e) => onChange(e.target.value)}>
        <option value="">{anyLabel}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** One filter as a date (YYYY-MM-DD), its label beside it. */
export function FilterDate({ id, label, value, onChange }: { id: string; label: string; value: string | undefined; onChange: (value: string) => void }) {
  return (
    <div className="flex flex-col gap-0.5 text-xs text-stone-600">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="date" className={FIELD} value={value ?? ''} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/** Choices whose label is their value. */
export const plainOptions = (values: readonly string[]) => values.map((value) => ({ value, label: value }));
