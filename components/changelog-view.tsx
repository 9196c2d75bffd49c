'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useCallback, useEffect, useRef, useState } from 'react';
import { ChangelogEntry } from '@/components/changelog-entry';
import { ChangelogFilterBar, isFiltered } from '@/components/changelog-filter-bar';
import { type ChangelogInput, type ChangelogPageData, changelogPageOptions } from '@/lib/queries/changelog';
import { isTyping } from '@/components/page-keys';

/** The URL of a changelog page with these filters and cursor. */
function pageHref(filters: ChangelogInput, before: number | null): string {
  const params = new URLSearchParams();
  for (const key of ['actor', 'op', 'type', 'machine', 'person', 'since', 'until'] as const) {
    const value = filters[key];
    if (value) params.set(key, value);
  }
  if (before !== null) params.set('before', String(before));
  return `/changelog${params.size ? `?${params}` : ''}`;
}

/**
 * The changelog: every edit newest first, filters in the URL, Older/Newer paging by cursor. The
 * first page polls, so edits agents make while it is open appear at the top; an entry keeps its
 * open diff or revert panel across polls (entries are keyed by commit).
 */
export function ChangelogView({
  filters,
  initial,
  choices,
}: {
  filters: ChangelogInput;
  initial: ChangelogPageData;
  choices: { ops: string[]; types: string[] };
}) {
  const page = useQuery({ ...changelogPageOptions(filters), initialData: initial });
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set());
  const [notice, setNotice] = useState<string | null>(null);
  const list = useRef<HTMLOListElement>(null);

  const toggle = useCallback((sha: string) => {
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(sha)) next.delete(sha);
      else next.add(sha);
      return next;
    });
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event.target) || event.metaKey || event.ctrlKey || event.altKey) return;
      if (event.key !== 'j' && event.key !== 'k') return;
      const items = [...(list.current?.querySelectorAll<HTMLElement>(':scope > li') ?? [])];
      if (items.length === 0) return;
      const at = items.findIndex((item) => item.contains(document.activeElement));
      const next = at === -1 ? 0 : Math.min(Math.max(at + (event.key === 'j' ? 1 : -1), 0), items.length - 1);
      event.preventDefault();
      items[next].focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const data = page.data;
  const filtered = isFiltered(filters);
  return (
    <section aria-label="Changelog" className="max-w-5xl">
      <ChangelogFilterBar
        filters={filters}
        actors={data.actors}
        choices={{ ...choices, machines: data.machines, persons: data.persons }}
        hrefFor={(next) => pageHref(next, null)}
      />
      <div role="status" aria-live="polite" className="min-h-6 text-sm text-emerald-800">
        {notice}
      </div>
      {page.isError ? (
        <p role="alert" className="text-sm text-red-800">
          The changelog could not be read: {(page.error as Error).message}
        </p>
      ) : null}
      {data.entries.length === 0 ? (
        <div className="rounded-md border border-dashed border-stone-300 p-6 text-sm text-stone-600" data-testid="changelog-empty">
          {filtered ? (
            <p>
              No edits match these filters{filters.machine || filters.person ? ' (a machine or person shows only the commits made there)' : ''}.{' '}
              <Link href="/changelog" className="underline">
                Clear the filters and show every edit
              </Link>
              .
            </p>
          ) : (
            <p>
              Nothing here yet. Every write an agent or a person makes through Lucid (the MCP server, the <code>lucid</code> command, this dashboard) is one
              commit with its line here, and commits made with git or Obsidian appear too, marked as not made by Lucid.
            </p>
          )}
        </div>
      ) : (
        <>
          <p className="mb-2 text-xs text-stone-500">
            <kbd>j</kbd> and <kbd>k</kbd> move between edits; newest first{data.newer === null ? ', new edits appear at the top as they are made' : ''}.
          </p>
          <ol ref={list} aria-label="Edits" className="space-y-2">
            {data.entries.map((entry) => (
              <ChangelogEntry key={entry.sha} entry={entry} expanded={expanded.has(entry.sha)} onToggle={toggle} onReverted={setNotice} />
            ))}
          </ol>
        </>
      )}
      <nav aria-label="Pages" className="mt-4 flex gap-3 text-sm">
        {data.newer ? (
          <Link href={pageHref(filters, data.newer.before)} className="rounded border border-stone-300 px-3 py-1 hover:bg-stone-100">
            ← Newer
          </Link>
        ) : null}
        {data.older !== null ? (
          <Link href={pageHref(filters, data.older)} className="rounded border border-stone-300 px-3 py-1 hover:bg-stone-100">
            Older →
          </Link>
        ) : null}
      </nav>
    </section>
  );
}
