import Link from 'next/link';
import { noteHref } from '@/lib/markdown/hrefs';
import type { RemoteData } from '@/lib/queries/sync';

type Report = NonNullable<RemoteData['lastReport']>;

const OUTCOMES: Record<Report['outcome'], string> = {
  'up-to-date': 'Already up to date with',
  'fast-forward': 'Brought in the commits of',
  merged: 'Merged the commits of',
  pushed: 'Pushed to',
};

/** What one sync did: its outcome, commits received, the push, and every path it reports (as text, never as HTML). */
export function SyncReport({ report, testId }: { report: Report; testId: string }) {
  const entries = (title: string, rows: { path: string; why: string }[], id: string) =>
    rows.length > 0 ? (
      <div data-testid={`${testId}-${id}`}>
        <h4 className="mt-2 font-semibold">{title}</h4>
        <ul className="list-disc pl-5">
          {rows.map((r) => (
            <li key={`${r.path}\u0000${r.why}`}>
              <code className="break-all">{r.path}</code>: {r.why}
            </li>
          ))}
        </ul>
      </div>
    ) : null;
  return (
    <div data-testid={testId} data-outcome={report.outcome} className="text-sm">
      <p>
        <span data-testid={`${testId}-outcome`}>
          {OUTCOMES[report.outcome]} {report.remote}/{report.branch}
        </span>
        : <span data-testid={`${testId}-received`}>{report.received === 1 ? '1 commit' : `${report.received} commits`} received</span>,{' '}
        <span data-testid={`${testId}-pushed`}>{report.pushed ? 'pushed' : 'nothing pushed'}</span>.
      </p>
      {report.committedFirst.length > 0 ? (
        <p className="mt-1 text-stone-700">
          Committed first as yours:{' '}
          {report.committedFirst.map((p, i) => [
            i > 0 ? ', ' : '',
            <code key={p} className="break-all">
              {p}
            </code>,
          ])}
          .
        </p>
      ) : null}
      {report.conflicts.length > 0 ? (
        <div data-testid={`${testId}-conflicts`}>
          <h4 className="mt-2 font-semibold">Changed on both sides: the remote&apos;s version is kept, yours waits in the inbox</h4>
          <ul className="list-disc pl-5">
            {report.conflicts.map((c) => (
              <li key={c.inboxId}>
                <Link href={noteHref(c.path)} className="break-all text-blue-800 underline">
                  {c.path}
                </Link>{' '}
                ·{' '}
                <Link href={`/inbox?item=${encodeURIComponent(c.inboxId)}`} className="text-blue-800 underline">
                  compare in the inbox
                </Link>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {entries('Not taken from the remote', report.refused, 'refused')}
      {entries('Taken, with a warning', report.warnings, 'warnings')}
    </div>
  );
}
