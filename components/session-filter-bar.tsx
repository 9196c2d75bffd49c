'use client';

import { useRouter } from 'next/navigation';
import { useId } from 'react';
import { FilterDate, FilterForm, FilterSelect, plainOptions } from '@/components/filter-fields';
import type { SessionsInput } from '@/lib/queries/sessions';

const OUTCOMES = ['done', 'partial', 'abandoned', 'open'] as const;

/** The sessions list's filters (agent, project, outcome, dates); each change is a new URL, so a filtered view can be shared and reloaded. */
export function SessionFilterBar({
  filters,
  agents,
  projects,
  hrefFor,
}: {
  filters: SessionsInput;
  agents: string[];
  projects: string[];
  hrefFor: (filters: SessionsInput) => string;
}) {
  const router = useRouter();
  const id = useId();
  const set = (key: 'agent' | 'project' | 'outcome' | 'since' | 'until') => (value: string) => {
    const next = { ...filters, cursor: undefined, [key]: value || undefined } as SessionsInput;
    router.push(hrefFor(next), { scroll: false });
  };
  // A value from the URL that is not (or no longer) among the choices stays selectable.
  const agentChoices = filters.agent && !agents.includes(filters.agent) ? [filters.agent, ...agents] : agents;
  const projectChoices = filters.project && !projects.includes(filters.project) ? [filters.project, ...projects] : projects;
  return (
    <FilterForm filtered={Boolean(filters.agent || filters.project || filters.outcome || filters.since || filters.until)} clearHref="/sessions">
      <FilterSelect id={`${id}-agent`} label="Agent" value={filters.agent} options={plainOptions(agentChoices)} onChange={set('agent')} />
      <FilterSelect
        id={`${id}-project`}
        label="Project"
        value={filters.project}
        options={projectChoices.map((p) => ({ value: p, label: p.replace(/\.md$/, '') }))}
        onChange={set('project')}
      />
      <FilterSelect id={`${id}-outcome`} label="Outcome" value={filters.outcome} options={plainOptions(OUTCOMES)} onChange={set('outcome')} />
      <FilterDate id={`${id}-since`} label="Started from" value={filters.since} onChange={set('since')} />
      <FilterDate id={`${id}-until`} label="To" value={filters.until} onChange={set('until')} />
    </FilterForm>
  );
}
