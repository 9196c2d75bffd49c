'use client';

import Link from 'next/link';
import { type ReactNode, useSyncExternalStore } from 'react';

const FIELD = 'rounded-md border border-stone-300 bg-white px-2 py-1.5 text-sm';

const noSubscription = () => () => {};

/**
 * A list page's filter form: its fields in a row, and Clear filters (back to `clearHref`) while any is set.
 * Each field's change is a new URL, made by React: until the page has hydrated the fields are
 * disabled, so a choice made in the server-rendered page is never shown without being applied.
 */
export function FilterForm({ filtered, clearHref, children }: { filtered: boolean; clearHref: string; children: ReactNode }) {
  const hydrated = useSyncExternalStore(
    noSubscription,
    () => true,
    () => false,
  );
  return (
    <form aria-label="Filters" className="mb-3 flex flex-wrap items-end gap-3" onSubmit={(e) => e.preventDefault()}>
      <fieldset disabled={!hydrated} aria-busy={!hydrated} className="contents">
        {children}
      </fieldset>
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

/** A value from the URL that is not (or no longer) among the choices stays selectable. */
export function withCurrent(values: readonly string[], current: string | undefined): string[] {
  return current && !values.includes(current) ? [current, ...values] : [...values];
}

/**
 * The machine and person filters (the `Lucid-Machine` trailer and the committer whose vault an edit
 * was made in), as the changelog, the sessions list and the overview show them.
 */
export function OriginFilters({
  id,
  machine,
  person,
  machines,
  persons,
  onMachine,
  onPerson,
}: {
  id: string;
  machine: string | undefined;
  person: string | undefined;
  machines: readonly string[];
  persons: readonly string[];
  onMachine: (value: string) => void;
  onPerson: (value: string) => void;
}) {
  return (
    <>
      <FilterSelect
        id={`${id}-machine`}
        label="Machine"
        anyLabel="Any machine"
        value={machine}
        options={plainOptions(withCurrent(machines, machine))}
        onChange={onMachine}
      />
      <FilterSelect
        id={`${id}-person`}
        label="Person"
        anyLabel="Anyone's vault"
        value={person}
        options={plainOptions(withCurrent(persons, person))}
        onChange={onPerson}
      />
    </>
  );
}
