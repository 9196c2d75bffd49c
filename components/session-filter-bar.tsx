'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useId } from 'react';
import type { SessionsInput } from '@/lib/queries/sessions';

const FIELD = 'rounded-md border border-stone-300 bg-white px-2 py-1.5 text-sm';
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
  const set = (key: 'agent' | 'project' | 'outcome' | 'since' | 'until', value: string) => {
    const next = { ...filters, cursor: undefined, [key]: value || undefined } as SessionsInput;
    router.push(hrefFor(next), { scroll: false });
  };
  const agentChoices = filters.agent && !agents.includes(filters.agent) ? [filters.agent, ...agents] : agents;
  const projectChoices = filters.project && !projects.includes(filters.project) ? [filters.project, ...projects] : projects;
  return (
    <form aria-label="Filters" className="mb-3 flex flex-wrap items-end gap-3" onSubmit={(e) => e.preventDefault()}>
      <div className="flex flex-col gap-0.5 text-xs text-stone-600">
        <label htmlFor={`${id}-agent`}>Agent</label>
        <select id={`${id}-agent`} className={FIELD} value={filters.agent ?? ''} onChange={(e) => set('agent', e.target.value)}>
          <option value="">Any</option>
          {agentChoices.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-0.5 text-xs text-stone-600">
        <label htmlFor={`${id}-project`}>Project</label>
        <select id={`${id}-project`} className={FIELD} value={filters.project ?? ''} onChange={(e) => set('project', e.target.value)}>
          <option value="">Any</option>
          {projectChoices.map((p) => (
            <option key={p} value={p}>
              {p.replace(/\.md$/, '')}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-0.5 text-xs text-stone-600">
        <label htmlFor={`${id}-outcome`}>Outcome</label>
        <select id={`${id}-outcome`} className={FIELD} value={filters.outcome ?? ''} onChange={(e) => set('outcome', e.target.value)}>
          <option value="">Any</option>
          {OUTCOMES.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </div>
      <div className="flex flex-col gap-0.5 text-xs text-stone-600">
        <label htmlFor={`${id}-since`}>Started from</label>
        <input id={`${id}-since`} type="date" className={FIELD} value={filters.since ?? ''} onChange={(e) => set('since', e.target.value)} />
      </div>
      <div className="flex flex-col gap-0.5 text-xs text-stone-600">
        <label htmlFor={`${id}-until`}>To</label>
        <input id={`${id}-until`} type="date" className={FIELD} value={filters.until ?? ''} onChange={(e) => set('until', e.target.value)} />
      </div>
      {filters.agent || filters.project || filters.outcome || filters.since || filters.until ? (
        <Link href="/sessions" className="pb-1.5 text-sm text-blue-800 underline">
          Clear filters
        </Link>
      ) : null}
    </form>
  );
}
