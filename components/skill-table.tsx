'use client';

import Link from 'next/link';
import { useDeferredValue, useId, useMemo, useState } from 'react';
import type { SkillList, SkillRow } from '@/lib/vault';

type SortKey = 'name' | 'lastUsed' | 'molts' | 'updated';

const SORTS: { key: SortKey; label: string }[] = [
  { key: 'name', label: 'Name' },
  { key: 'lastUsed', label: 'Last used' },
  { key: 'molts', label: 'Molts' },
  { key: 'updated', label: 'Last updated' },
];

/** The file name a skill's page is found by (`skills/<file>.md`). */
function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
}

function day(iso: string | null): string {
  return iso ? iso.slice(0, 10) : '';
}

/** Newest first for dates and counts, with the missing ones last; names A to Z. */
function compare(key: SortKey): (a: SkillRow, b: SkillRow) => number {
  const byName = (a: SkillRow, b: SkillRow) => a.name.localeCompare(b.name);
  const desc = (x: string | number | null, y: string | number | null) => (x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? 1 : -1);
  if (key === 'lastUsed') return (a, b) => desc(a.lastUsed, b.lastUsed) || byName(a, b);
  if (key === 'molts') return (a, b) => desc(a.molts, b.molts) || byName(a, b);
  if (key === 'updated') return (a, b) => desc(a.lastUpdated, b.lastUpdated) || byName(a, b);
  return byName;
}

function matches(row: SkillRow, words: string[]): boolean {
  const haystack = `${row.name} ${row.trigger ?? ''} ${row.path}`.toLowerCase();
  return words.every((w) => haystack.includes(w));
}

function Table({ rows, label }: { rows: SkillRow[]; label: string }) {
  return (
    <div className="overflow-x-auto rounded-md border border-stone-200 bg-white">
      <table aria-label={label} className="w-full text-sm">
        <thead className="bg-stone-50 text-left text-xs text-stone-600">
          <tr>
            <th className="px-3 py-2 font-medium">Name</th>
            <th className="px-3 py-2 font-medium">Version</th>
            <th className="px-3 py-2 font-medium">Trigger</th>
            <th className="px-3 py-2 font-medium">Last updated</th>
            <th className="px-3 py-2 font-medium">Last used</th>
            <th className="px-3 py-2 font-medium">Molts</th>
            <th className="px-3 py-2 font-medium">Status</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.path} data-testid="skill-row" data-path={row.path} className="border-t border-stone-100 align-top">
              <td className="px-3 py-2">
                <Link href={`/skills/${encodeURIComponent(fileName(row.path))}`} className="font-medium text-blue-800 underline">
                  {row.name}
                </Link>
              </td>
              <td className="px-3 py-2 tabular-nums" data-testid="skill-version">
                {row.version ?? '?'}
              </td>
              <td className="max-w-sm px-3 py-2 text-stone-700">{row.trigger ?? <span className="text-stone-400">none</span>}</td>
              <td className="px-3 py-2 tabular-nums">{row.lastUpdated ?? ''}</td>
              <td className="px-3 py-2 tabular-nums" data-testid="skill-last-used">
                {row.lastUsed ? (
                  row.lastUsedSession ? (
                    <Link
                      href={`/sessions/${encodeURIComponent(row.lastUsedSession)}`}
                      className="text-blue-800 underline"
                      title={`${row.uses} sessions used it`}
                    >
                      {day(row.lastUsed)}
                    </Link>
                  ) : (
                    day(row.lastUsed)
                  )
                ) : (
                  <span className="text-stone-400">never</span>
                )}
              </td>
              <td className="px-3 py-2 tabular-nums" data-testid="skill-molts">
                {row.molts}
              </td>
              <td className="px-3 py-2" data-testid="skill-status">
                <span className={row.archived ? 'text-stone-500' : ''}>{row.status}</span>
                {row.stale ? (
                  <span className="ml-1 rounded bg-amber-100 px-1.5 text-xs text-amber-900" title={`No session used it for ${row.idleDays} days`}>
                    stale
                  </span>
                ) : null}
                {row.problem ? (
                  <span className="ml-1 rounded bg-red-100 px-1.5 text-xs text-red-900" title={row.problem}>
                    needs a fix
                  </span>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Every skill, filtered as the person types and sorted as they choose; archived skills in their own section. */
export function SkillTable({ list }: { list: SkillList }) {
  const searchId = useId();
  const sortId = useId();
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<SortKey>('name');
  const deferred = useDeferredValue(query);
  const { active, archived } = useMemo(() => {
    const words = deferred.toLowerCase().split(/\s+/).filter(Boolean);
    const shown = list.skills.filter((row) => matches(row, words)).sort(compare(sort));
    return { active: shown.filter((r) => !r.archived), archived: shown.filter((r) => r.archived) };
  }, [list.skills, deferred, sort]);

  if (list.skills.length === 0) {
    return (
      <p className="rounded-md border border-dashed border-stone-300 p-6 text-sm text-stone-600" data-testid="skills-empty">
        No skills yet. Agents write them with the <code>molt_skill</code> tool (or <code>lucid molt</code>) when they find a procedure worth keeping; each lands
        in <code>skills/</code> with its trigger and version.
      </p>
    );
  }
  const stale = list.skills.filter((s) => s.stale).length;
  const clock = list.nowSource === 'newest-commit' ? `the vault's newest commit (${day(list.now)})` : `today (${day(list.now)})`;
  return (
    <div className="space-y-6">
      <search aria-label="Skills" className="flex flex-wrap items-end gap-4">
        <div>
          <label htmlFor={searchId} className="block text-xs text-stone-600">
            Search skills
          </label>
          <input
            id={searchId}
            type="search"
            value={query}
            maxLength={200}
            onChange={(e) => setQuery(e.target.value)}
            placeholder="name or trigger"
            className="mt-0.5 w-72 rounded-md border border-stone-300 bg-white px-2 py-1.5 text-sm"
          />
        </div>
        <div>
          <label htmlFor={sortId} className="block text-xs text-stone-600">
            Sort by
          </label>
          <select
            id={sortId}
            value={sort}
            onChange={(e) => setSort(e.target.value as SortKey)}
            className="mt-0.5 rounded-md border border-stone-300 bg-white px-2 py-1.5 text-sm"
          >
            {SORTS.map((s) => (
              <option key={s.key} value={s.key}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <p className="text-xs text-stone-500" aria-live="polite">
          {active.length + archived.length} of {list.skills.length} skills · {stale} stale (no session used them in the {list.staleDays} days before {clock})
        </p>
      </search>
      <section aria-labelledby="skills-active">
        <h2 id="skills-active" className="mb-2 text-lg font-semibold">
          Skills
        </h2>
        {active.length > 0 ? <Table rows={active} label="Skills" /> : <p className="text-sm text-stone-500">No skill matches “{deferred}”.</p>}
      </section>
      {list.skills.some((s) => s.archived) ? (
        <section aria-labelledby="skills-archived">
          <h2 id="skills-archived" className="mb-2 text-lg font-semibold">
            Archived
          </h2>
          {archived.length > 0 ? (
            <Table rows={archived} label="Archived skills" />
          ) : (
            <p className="text-sm text-stone-500">No archived skill matches “{deferred}”.</p>
          )}
        </section>
      ) : null}
    </div>
  );
}
