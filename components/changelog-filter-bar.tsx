'use client';

import { useRouter } from 'next/navigation';
import { useId } from 'react';
import { FilterDate, FilterForm, FilterSelect, OriginFilters, plainOptions } from '@/components/filter-fields';
import type { ChangelogInput } from '@/lib/queries/changelog';

/** Whether any of the changelog's filters is set. */
export function isFiltered(filters: ChangelogInput): boolean {
  return Boolean(filters.actor || filters.op || filters.type || filters.machine || filters.person || filters.since || filters.until);
}

/** The changelog's filters (actor, op, note type, machine, person, dates); each change is a new URL, so a filtered view can be shared and reloaded. */
export function ChangelogFilterBar({
  filters,
  actors,
  choices,
  hrefFor,
}: {
  filters: ChangelogInput;
  actors: string[];
  choices: { ops: string[]; types: string[]; machines: string[]; persons: string[] };
  hrefFor: (filters: ChangelogInput) => string;
}) {
  const router = useRouter();
  const id = useId();
  const set = (key: 'actor' | 'op' | 'type' | 'machine' | 'person' | 'since' | 'until') => (value: string) => {
    const next = { ...filters, before: undefined, [key]: value || undefined } as ChangelogInput;
    router.push(hrefFor(next), { scroll: false });
  };
  const actorChoices = filters.actor && filters.actor !== 'foreign' && !actors.includes(filters.actor) ? [filters.actor, ...actors] : actors;
  return (
    <FilterForm filtered={isFiltered(filters)} clearHref="/changelog">
      <FilterSelect
        id={`${id}-actor`}
        label="Actor"
        anyLabel="Anyone"
        value={filters.actor}
        options={[{ value: 'foreign', label: 'Not made by Lucid (git, Obsidian)' }, ...plainOptions(actorChoices)]}
        onChange={set('actor')}
      />
      <FilterSelect id={`${id}-op`} label="Operation" value={filters.op} options={plainOptions(choices.ops)} onChange={set('op')} />
      <FilterSelect id={`${id}-type`} label="Note type" value={filters.type} options={plainOptions(choices.types)} onChange={set('type')} />
      <OriginFilters
        id={id}
        machine={filters.machine}
        person={filters.person}
        machines={choices.machines}
        persons={choices.persons}
        onMachine={set('machine')}
        onPerson={set('person')}
      />
      <FilterDate id={`${id}-since`} label="From" value={filters.since} onChange={set('since')} />
      <FilterDate id={`${id}-until`} label="To" value={filters.until} onChange={set('until')} />
    </FilterForm>
  );
}
