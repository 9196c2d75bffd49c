'use client';

import { useRouter } from 'next/navigation';
import { useId } from 'react';
import { FilterDate, FilterForm, FilterSelect, plainOptions } from '@/components/filter-fields';
import { withCurrent } from '@/components/changelog-filter-bar';
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
  // A value from the URL that is not (or no longer) among the choices stays selectable.
  const agentChoices = filters.agent && !agents.includes(filters.agent) ? [filters.agent, ...agents] : agents;
  const projectChoices = filters.project && !projects.includes(filters.project) ? [filters.project, ...projects] : projects;
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
      <FilterSelect
        id={`${id}-machine`}
        label="Machine"
        anyLabel="Any machine"
        value={filters.machine}
        options={plainOptions(withCurrent(machines, filters.machine))}
        onChange={set('machine')}
      />
      <FilterSelect
        id={`${id}-person`}
        label="Person"
        anyLabel="Anyone's vault"
        value={filters.person}
        options={plainOptions(withCurrent(persons, filters.person))}
        onChange={set('person')}
      />
      <FilterDate id={`${id}-since`} label="Started from" value={filters.since} onChange={set('since')} />
      <FilterDate id={`${id}-until`} label="To" value={filters.until} onChange={set('until')} />
    </FilterForm>
  );
}
