'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { isSessionFiltered, SessionFilterBar } from '@/components/session-filter-bar';
import { duration, OutcomeBadge, ProtocolBadge, sessionTime } from '@/components/session-outcome';
import { noteHref } from '@/lib/markdown/hrefs';
import { type SessionsInput, type SessionsPageData, sessionsPageOptions } from '@/lib/queries/sessions';

/** The URL of a sessions page with these filters and cursor. */
function pageHref(filters: SessionsInput, cursor: string | null): string {
  const params = new URLSearchParams();
  for (const key of ['agent', 'project', 'outcome', 'machine', 'person', 'since', 'until'] as const) {
    const value = filters[key];
    if (value) params.set(key, value);
  }
  if (cursor) params.set('cursor', cursor);
  return `/sessions${params.size ? `?${params}` : ''}`;
}

/**
 * Every session, newest first: filters in the URL, Newer and Older paging by cursor as the
 * changelog does (and Newest, when the newer page is not the first). The first page polls, so
 * sessions agents open or end while it is open appear (and open ones update) without a reload.
 */
export function SessionList({ filters, initial, connectCommand }: { filters: SessionsInput; initial: SessionsPageData; connectCommand: string }) {
  const page = useQuery({ ...sessionsPageOptions(filters), initialData: initial });
  const data = page.data;
  const filtered = isSessionFiltered(filters);
  return (
    <section aria-label="Sessions" className="max-w-6xl">
      <SessionFilterBar
        filters={filters}
        agents={data.agents}
        projects={data.projects}
        machines={data.machines}
        persons={data.persons}
        hrefFor={(next) => pageHref(next, null)}
      />
      {page.isError ? (
        <p role="alert" className="text-sm text-red-800">
          The sessions could not be read: {(page.error as Error).message} Reload the page to try again; the rows below may be out of date.
        </p>
      ) : null}
      {data.rows.length === 0 ? (
        <div className="rounded-md border border-dashed border-stone-300 p-6 text-sm text-stone-600" data-testid="sessions-empty">
          {filtered || filters.cursor ? (
            <p>
              No sessions {filters.cursor ? 'further back ' : ''}match these filters
              {filters.machine || filters.person ? ' (a machine or person shows only the sessions that ran there)' : ''}.{' '}
              <Link href="/sessions" className="underline">
                Clear the filters and show every session
              </Link>
              .
            </p>
          ) : (
            <>
              <p>No agent sessions yet. Connect an agent to this vault through the MCP server; each session it starts appears here, live.</p>
              <p className="mt-2">
                Print its configuration with <code className="rounded bg-stone-100 px-1">{connectCommand}</code> (also <code>cursor</code>, <code>vscode</code>,{' '}
                <code>claude-desktop</code>).
              </p>
            </>
          )}
        </div>
      ) : (
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm" data-testid="sessions-table">
            <thead className="border-b border-stone-300 text-xs text-stone-600">
              <tr>
                <th className="py-2 pr-3 font-medium">Started</th>
                <th className="py-2 pr-3 font-medium">Agent</th>
                <th className="py-2 pr-3 font-medium">Where</th>
                <th className="py-2 pr-3 font-medium">Task</th>
                <th className="py-2 pr-3 font-medium">Project</th>
                <th className="py-2 pr-3 font-medium">Duration</th>
                <th className="py-2 pr-3 text-right font-medium">Edits</th>
                <th className="py-2 pr-3 text-right font-medium">Inbox</th>
                <th className="py-2 pr-3 font-medium">Outcome</th>
                <th className="py-2 font-medium">Protocol</th>
              </tr>
            </thead>
            <tbody>
              {data.rows.map((row) => (
                <tr
                  key={row.id}
                  data-testid="session-row"
                  data-session={row.id}
                  className={`border-b border-stone-200 align-top ${row.outcome === 'abandoned' ? 'bg-red-50' : ''}`}
                >
                  <td className="py-2 pr-3 whitespace-nowrap tabular-nums text-stone-600">
                    <time dateTime={row.started}>{sessionTime(row.started)}</time>
                  </td>
                  <td className="py-2 pr-3 whitespace-nowrap">{row.agent}</td>
                  <td className="py-2 pr-3 whitespace-nowrap text-xs text-stone-600" data-testid="session-origin">
                    {row.machine ?? <span className="text-stone-400">unknown machine</span>}
                    {row.person ? <span className="block">{row.person}</span> : null}
                  </td>
                  <td className="py-2 pr-3">
                    <Link href={`/sessions/${encodeURIComponent(row.id)}`} className="text-blue-800 underline" data-testid="session-link">
                      {row.task || row.id}
                    </Link>
                  </td>
                  <td className="py-2 pr-3 whitespace-nowrap">
                    {row.project ? (
                      <Link href={noteHref(row.project)} className="text-blue-800 underline">
                        {row.project.replace(/\.md$/, '').split('/').pop()}
                      </Link>
                    ) : (
                      <span className="text-stone-400">none</span>
                    )}
                  </td>
                  <td className="py-2 pr-3 whitespace-nowrap tabular-nums">{row.outcome === 'open' ? 'running' : duration(row.durationMs)}</td>
                  <td className="py-2 pr-3 text-right tabular-nums" data-testid="session-edits">
                    {row.edits}
                  </td>
                  <td className="py-2 pr-3 text-right tabular-nums">{row.inboxRaised}</td>
                  <td className="py-2 pr-3">
                    <OutcomeBadge outcome={row.outcome} />
                  </td>
                  <td className="py-2">
                    <ProtocolBadge ok={row.protocolOk} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav aria-label="Pages" className="mt-4 flex gap-3 text-sm">
        {data.newer?.cursor ? (
          <Link href={pageHref(filters, null)} className="rounded border border-stone-300 px-3 py-1 hover:bg-stone-100">
            ⇤ Newest
          </Link>
        ) : null}
        {data.newer ? (
          <Link href={pageHref(filters, data.newer.cursor)} className="rounded border border-stone-300 px-3 py-1 hover:bg-stone-100">
            ← Newer
          </Link>
        ) : null}
        {data.nextCursor ? (
          <Link href={pageHref(filters, data.nextCursor)} className="rounded border border-stone-300 px-3 py-1 hover:bg-stone-100">
            Older →
          </Link>
        ) : null}
      </nav>
    </section>
  );
}
