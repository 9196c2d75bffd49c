'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useCallback, useState } from 'react';
import { ChangelogEntry } from '@/components/changelog-entry';
import { SessionInbox } from '@/components/session-inbox';
import { duration, OutcomeBadge, sessionTime } from '@/components/session-outcome';
import { SessionProtocol } from '@/components/session-protocol';
import { noteHref } from '@/lib/markdown/hrefs';
import { type SessionViewData, sessionDetailOptions, sessionsKeys } from '@/lib/queries/sessions';

/**
 * One session: its summary and task, what it searched and read, every commit naming it (each with
 * its diff and Revert, as on the changelog), the inbox items it raised and what became of them, the
 * skills it read or molted, and the protocol check. Polled while the session is open.
 */
export function SessionDetailView({ id, initial }: { id: string; initial: SessionViewData }) {
  const query = useQuery({ ...sessionDetailOptions(id), initialData: initial });
  const client = useQueryClient();
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set());
  const [notice, setNotice] = useState<string | null>(null);
  const data = query.data ?? initial;
  const { row } = data;

  const toggle = useCallback((sha: string) => {
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(sha)) next.delete(sha);
      else next.add(sha);
      return next;
    });
  }, []);
  const onReverted = useCallback(
    (message: string) => {
      setNotice(message);
      void client.invalidateQueries({ queryKey: sessionsKeys.all });
    },
    [client],
  );

  return (
    <article className="max-w-5xl">
      <header className="mb-4">
        <p className="text-xs text-stone-500">
          <Link href="/sessions" className="underline">
            Sessions
          </Link>{' '}
          / <span data-testid="session-id">{row.id}</span>
        </p>
        <h1 className="mt-1 text-2xl font-semibold tracking-tight" data-testid="session-task">
          {row.task || row.id}
        </h1>
        <dl className="mt-2 flex flex-wrap gap-x-5 gap-y-1 text-sm text-stone-700">
          <div>
            <dt className="inline text-stone-500">Agent </dt>
            <dd className="inline">{row.actor}</dd>
          </div>
          <div>
            <dt className="inline text-stone-500">Project </dt>
            <dd className="inline">
              {row.project ? (
                <Link href={noteHref(row.project)} className="text-blue-800 underline">
                  {row.project.replace(/\.md$/, '')}
                </Link>
              ) : (
                'none'
              )}
            </dd>
          </div>
          <div>
            <dt className="inline text-stone-500">Where </dt>
            <dd className="inline" data-testid="session-where">
              {row.machine ?? 'unknown machine'}
              {row.person ? `, at ${row.person}'s vault` : ''}
            </dd>
          </div>
          <div>
            <dt className="inline text-stone-500">Started </dt>
            <dd className="inline tabular-nums">{sessionTime(row.started)}</dd>
          </div>
          <div>
            <dt className="inline text-stone-500">{row.ended ? 'Took ' : 'Running '}</dt>
            <dd className="inline tabular-nums">{row.ended ? duration(row.durationMs) : 'still open'}</dd>
          </div>
          <div>
            <OutcomeBadge outcome={row.outcome} />
          </div>
          {row.path ? (
            <div>
              <Link href={noteHref(row.path)} className="text-blue-800 underline">
                Session note
              </Link>
            </div>
          ) : null}
        </dl>
      </header>

      {query.isError ? (
        <p role="alert" className="mb-3 text-sm text-red-800">
          This session could not be read again: {(query.error as Error).message} Reload the page to try again; what is shown may be out of date.
        </p>
      ) : null}

      <section aria-labelledby="summary">
        <h2 id="summary" className="mb-1 text-lg font-semibold">
          Summary
        </h2>
        {row.outcome === 'open' ? (
          <p className="text-sm text-stone-600">This session is still open: this page updates as it works. Its summary comes when it calls end_session.</p>
        ) : data.summary ? (
          <p className="whitespace-pre-wrap text-sm text-stone-800" data-testid="session-summary">
            {data.summary}
          </p>
        ) : (
          <p className="text-sm text-stone-600">The session gave no summary.</p>
        )}
        {data.nextSteps.length > 0 ? (
          <>
            <h3 className="mt-3 text-sm font-semibold">Next steps</h3>
            <ul className="list-disc pl-5 text-sm">
              {data.nextSteps.map((step) => (
                <li key={step}>{step}</li>
              ))}
            </ul>
          </>
        ) : null}
      </section>

      <SessionProtocol check={data.protocol} />

      <section aria-labelledby="looked-up" className="mt-6 grid gap-4 md:grid-cols-2">
        <div>
          <h2 id="looked-up" className="mb-1 text-lg font-semibold">
            Searched for
          </h2>
          {data.searched.length === 0 ? (
            <p className="text-sm text-stone-600">No searches.</p>
          ) : (
            <ul className="list-disc pl-5 text-sm" data-testid="session-searched">
              {data.searched.map((q) => (
                <li key={q}>
                  <Link href={`/search?q=${encodeURIComponent(q)}`} className="text-blue-800 underline">
                    {q}
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </div>
        <div>
          <h2 className="mb-1 text-lg font-semibold">Read</h2>
          {data.read.length === 0 ? (
            <p className="text-sm text-stone-600">No notes read.</p>
          ) : (
            <ul className="list-disc pl-5 text-sm" data-testid="session-read">
              {data.read.map((r) => (
                <li key={r.path}>
                  {r.exists ? (
                    <Link href={noteHref(r.path)} className="break-all text-blue-800 underline">
                      {r.path}
                    </Link>
                  ) : (
                    <span className="break-all text-stone-500">{r.path} (no longer there)</span>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
      </section>

      <section aria-labelledby="edits" className="mt-6">
        <h2 id="edits" className="mb-1 text-lg font-semibold">
          Edits <span className="text-sm font-normal text-stone-500">({data.edits.length})</span>
        </h2>
        <p className="mb-2 text-xs text-stone-500">Every commit whose Lucid-Session trailer names this session, oldest first (its session note included).</p>
        <div role="status" aria-live="polite" className="min-h-6 text-sm text-emerald-800">
          {notice}
        </div>
        {data.edits.length === 0 ? (
          <p className="text-sm text-stone-600">No commits name this session yet.</p>
        ) : (
          <ol aria-label="Edits" className="space-y-2" data-testid="session-edits-list">
            {data.edits.map((entry) => (
              <ChangelogEntry key={entry.sha} entry={entry} expanded={expanded.has(entry.sha)} onToggle={toggle} onReverted={onReverted} />
            ))}
          </ol>
        )}
      </section>

      <SessionInbox items={data.inbox} />

      <section aria-labelledby="skills" className="mt-6">
        <h2 id="skills" className="mb-1 text-lg font-semibold">
          Skills
        </h2>
        {data.skills.length === 0 ? (
          <p className="text-sm text-stone-600">It read no skill and molted none.</p>
        ) : (
          <ul className="list-disc pl-5 text-sm" data-testid="session-skills">
            {data.skills.map((s) => (
              <li key={s.path}>
                <Link href={noteHref(s.path)} className="break-all text-blue-800 underline">
                  {s.path.replace(/\.md$/, '')}
                </Link>{' '}
                <span className="text-stone-600">
                  {[s.read ? 'read' : null, ...s.molts.map((m) => (m.from === 0 ? `created (v${m.to})` : `molted v${m.from} → v${m.to}`))]
                    .filter(Boolean)
                    .join(', ')}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </article>
  );
}
