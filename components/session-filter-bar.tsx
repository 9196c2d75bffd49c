'use client';

import { useRouter } from 'next/navigation';
import { useId } from 'react';
import { FilterDate, FilterForm, FilterSelect, OriginFilters, plainOptions, withCurrent } from '@/components/filter-fields';
import type { SessionsInput } from '@/lib/queries/sessions';

const OUTCOMES = ['done', 'partial', 'abandoned', 'open'] as const;

/** Whether any of the sessions list's filters is set. */
export function isSessionFiltered(filters: SessionsInput): boolean {
  return Boolean(filters.agent || filters.project || filters.outcome || filters.machine || filters.person || filters.since || filters.until);
}

/** The sessions list's filters (agent, project, outcome, machine, person, dates); each change is a new URL, so a filtered view can be shared and reloaded. */
export function SessionFilterBar({
  filters,
  agents,
  projects,
  machines,
  persons,
  hrefFor,
}: {
  filters: SessionsInput;
  agents: string[];
  projects: string[];
  machines: string[];
  persons: string[];
  hrefFor: (filters: SessionsInput) => string;
}) {
  const router = useRouter();
  const id = useId();
  const set = (key: 'agent' | 'project' | 'outcome' | 'machine' | 'person' | 'since' | 'until') => (value: string) => {
    const next = { ...filters, cursor: undefined, [key]: value || undefined } as SessionsInput;
    router.push(hrefFor(next), { scroll: false });
  };
  const agentChoices = withCurrent(agents, filters.agent);
  const projectChoices = withCurrent(projects, filters.project);
  return (
    <FilterForm filtered={isSessionFiltered(filters)} clearHref="/sessions">
      <FilterSelect id={`${id}-agent`} label="Agent" value={filters.agent} options={plainOptions(agentChoices)} onChange={set('agent')} />
      <FilterSelect
        id={`${id}-project`}
        label="Project"
        value={filters.project}
        options={projectChoices.map((p) => ({ value: p, label: p.replace(/\.md$/, '') }))}
        onChange={set('project')}
      />
      <FilterSelect id={`${id}-outcome`} label="Outcome" value={filters.outcome} options={plainOptions(OUTCOMES)} onChange={set('outcome')} />
      <OriginFilters
        id={id}
        machine={filters.machine}
        person={filters.person}
        machines={machines}
        persons={persons}
        onMachine={set('machine')}
        onPerson={set('person')}
      />
      <FilterDate id={`${id}-since`} label="Started from" value={filters.since} onChange={set('since')} />
      <FilterDate id={`${id}-until`} label="To" value={filters.until} onChange={set('until')} />
    </FilterForm>
  );
}
