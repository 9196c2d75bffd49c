'use client';

import { useRouter } from 'next/navigation';
import { useId } from 'react';
import { FilterForm, OriginFilters } from '@/components/filter-fields';

/**
 * The overview's machine and person filters: each choice is a new URL that keeps the range
 * (`base`: `week`, or `from` and `to`), so a narrowed week can be shared and reloaded.
 */
export function OverviewOriginFilter({
  base,
  machine,
  person,
  machines,
  persons,
}: {
  base: Record<string, string>;
  machine?: string;
  person?: string;
  machines: string[];
  persons: string[];
}) {
  const router = useRouter();
  const id = useId();
  const go = (next: { machine?: string; person?: string }) => {
    const params = new URLSearchParams(base);
    if (next.machine) params.set('machine', next.machine);
    if (next.person) params.set('person', next.person);
    router.push(params.size ? `/?${params}` : '/', { scroll: false });
  };
  return (
    <FilterForm filtered={Boolean(machine || person)} clearHref={`/${Object.keys(base).length ? `?${new URLSearchParams(base)}` : ''}`}>
      <OriginFilters
        id={id}
        machine={machine}
        person={person}
        machines={machines}
        persons={persons}
        onMachine={(value) => go({ machine: value || undefined, person })}
        onPerson={(value) => go({ machine, person: value || undefined })}
      />
    </FilterForm>
  );
}
