'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { SyncReport } from '@/components/sync-report';
import { inboxKeys } from '@/lib/queries/inbox';
import { type RemoteData, remoteStateOptions, startSync, type SyncJobData, syncJobOptions, syncKeys } from '@/lib/queries/sync';

const STEPS: Record<NonNullable<SyncJobData['step']>, string> = {
  'commit-uncommitted': 'Committing your uncommitted edits as yours',
  fetch: 'Fetching from the remote',
  integrate: "Bringing the remote's commits in",
  push: 'Pushing',
};

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** `3 minutes ago`, from a time and now (in the browser only: the server's clock would not match). */
function ago(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, size] of UNITS) if (Math.abs(ms) >= size) return format.format(Math.round(ms / size), unit);
  return 'just now';
}

/** `2 Dec 2026, 03:01 UTC`, the same on the server and in every browser. */
function absolute(iso: string): string {
  return `${new Date(iso).toLocaleString('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' })} UTC`;
}

/**
 * The overview's Remote panel: the vault's remote (no credentials), branch, ahead and behind as of
 * the last fetch, the last sync and its error, and the Sync button with the running sync's step
 * and its report; without a remote, how to add one.
 */
export function RemotePanel({ initial }: { initial: RemoteData }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const remote = useQuery({ ...remoteStateOptions(), initialData: initial }).data;
  const [now, setNow] = useState<number | null>(null);
  // The sync this page started or found running: only its end refreshes the page and is reported.
  const [watched, setWatched] = useState<string | null>(null);
  const [refreshed, setRefreshed] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const status = useQuery(syncJobOptions(watched !== null && refreshed !== watched));
  const job = status.data ?? null;

  useEffect(() => {
    setNow(Date.now());
    const tick = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(tick);
  }, []);

  const start = useMutation({
    mutationFn: startSync,
    onSuccess: ({ job: started, started: isNew }) => {
      queryClient.setQueryData<SyncJobData | null>(syncKeys.job, started);
      setWatched(started.id);
      setNote(isNew ? null : `A sync started at ${new Date(started.startedAt).toLocaleTimeString()} is still running; this is its progress.`);
    },
  });

  useEffect(() => {
    if (job?.state === 'running' && watched !== job.id) setWatched(job.id);
  }, [job, watched]);

  useEffect(() => {
    if (!job || job.id !== watched || job.state === 'running' || refreshed === job.id) return;
    setRefreshed(job.id);
    setNow(Date.now());
    void queryClient.invalidateQueries({ queryKey: syncKeys.remote });
    if (job.state === 'done') {
      void queryClient.invalidateQueries({ queryKey: inboxKeys.all });
      router.refresh();
    }
  }, [job, watched, refreshed, router, queryClient]);

  const mine = job && job.id === watched ? job : null;
  const running = mine?.state === 'running';
  return (
    <section id="remote" aria-labelledby="remote-title" data-testid="remote-panel" className="mt-8 rounded-lg border border-stone-200 p-5 text-sm">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h2 id="remote-title" className="text-lg font-semibold">
            Remote
          </h2>
          {remote.remote ? (
            <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1" data-testid="remote-facts">
              <dt className="text-stone-600">Remote</dt>
              <dd>
                <span data-testid="remote-name">{remote.remote}</span> <code className="break-all text-xs text-stone-700">{remote.url ?? '(no URL)'}</code>
              </dd>
              <dt className="text-stone-600">Branch</dt>
              <dd data-testid="remote-branch">{remote.branch ?? '(detached HEAD)'}</dd>
              <dt className="text-stone-600">Ahead</dt>
              <dd>
                <span data-testid="remote-ahead">{remote.ahead}</span> {remote.ahead === 1 ? 'commit' : 'commits'} here that the remote has not got
              </dd>
              <dt className="text-stone-600">Behind</dt>
              <dd>
                <span data-testid="remote-behind">{remote.behind}</span> {remote.behind === 1 ? 'commit' : 'commits'} on the remote not here yet (as of the last
                fetch)
              </dd>
              <dt className="text-stone-600">Last sync</dt>
              <dd data-testid="remote-last-sync">
                {remote.lastSync ? (
                  <time dateTime={remote.lastSync} title={absolute(remote.lastSync)}>
                    {now !== null ? `${ago(remote.lastSync, now)} (${absolute(remote.lastSync)})` : absolute(remote.lastSync)}
                  </time>
                ) : (
                  'never'
                )}
              </dd>
              <dt className="text-stone-600">Schedule</dt>
              <dd>{remote.schedule ? `every ${remote.schedule} (lucid serve --sync-every)` : 'only when you press Sync'}</dd>
            </dl>
          ) : (
            <div data-testid="remote-empty" className="mt-1 max-w-2xl text-stone-700">
              <p>This vault has no git remote: its memory lives on this machine only. To share it with a team, add a remote in the vault&apos;s folder:</p>
              <code className="mt-2 block overflow-x-auto rounded bg-stone-100 px-2 py-1.5 font-mono text-xs">git remote add origin &lt;url&gt;</code>
              <p className="mt-2">
                then press Sync. Any git remote works: a bare repository over ssh or a file path, GitHub, GitLab, Gitea or Forgejo; Lucid uses git&apos;s own
                credentials and stores none. Step by step: the section &ldquo;Share a vault with a team&rdquo; of Lucid&apos;s README.md.
              </p>
            </div>
          )}
        </div>
        <button
          type="button"
          onClick={() => start.mutate()}
          disabled={start.isPending || running}
          className="rounded-md bg-stone-900 px-3 py-1.5 font-medium text-white disabled:opacity-60"
        >
          {running ? 'Syncing…' : 'Sync'}
        </button>
      </div>
      {remote.problem ? (
        <p role="alert" className="mt-3 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-red-900">
          {remote.problem}
        </p>
      ) : null}
      {remote.remote && remote.lastError && !mine ? (
        <p role="alert" data-testid="remote-last-error" className="mt-3 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-red-900">
          The last sync failed: {remote.lastError}
        </p>
      ) : null}
      <div aria-live="polite" className="mt-3">
        {running ? (
          <div role="status" data-testid="sync-progress">
            {note ? <p className="text-stone-600">{note}</p> : null}
            <p>{mine.step ? `${STEPS[mine.step]}${mine.detail ? `: ${mine.detail}` : ''}…` : 'Starting the sync…'}</p>
          </div>
        ) : null}
        {mine?.state === 'done' && mine.report ? (
          <div role="status" data-job={mine.id} className="rounded-md border border-green-300 bg-green-50 px-3 py-2 text-green-950">
            <SyncReport report={mine.report} testId="sync-result" />
          </div>
        ) : null}
        {!mine && remote.lastReport ? (
          <details className="text-stone-700">
            <summary className="cursor-pointer">What the last sync did</summary>
            <SyncReport report={remote.lastReport} testId="sync-last" />
          </details>
        ) : null}
      </div>
      {mine?.state === 'failed' || start.isError || status.isError ? (
        <p role="alert" data-testid="sync-error" data-job={mine?.id} className="mt-3 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-red-900">
          {mine?.state === 'failed' ? `The sync failed: ${mine.error?.message}` : (start.error ?? status.error)?.message}
        </p>
      ) : null}
    </section>
  );
}
