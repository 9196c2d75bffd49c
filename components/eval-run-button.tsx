'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useState } from 'react';
import { noteHref } from '@/lib/markdown/hrefs';
import { type EvalJobData, evalJobOptions, evalKeys, startEvalRun } from '@/lib/queries/eval';

/**
 * Run evaluation: starts a run of every question set on the server (or shows the one already
 * running), its progress while it runs, and, when it ends, refreshes the page with the new run or
 * says plainly why it failed.
 */
export function EvalRunButton() {
  const router = useRouter();
  const queryClient = useQueryClient();
  // The job this page started or found running: only its end refreshes the page and is reported.
  const [watched, setWatched] = useState<string | null>(null);
  const [refreshed, setRefreshed] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const status = useQuery(evalJobOptions(watched !== null && refreshed !== watched));
  const job = status.data ?? null;

  const start = useMutation({
    mutationFn: startEvalRun,
    onSuccess: ({ job: started, started: isNew }) => {
      queryClient.setQueryData<EvalJobData | null>(evalKeys.job, started);
      setWatched(started.id);
      setNote(isNew ? null : `An evaluation started at ${new Date(started.startedAt).toLocaleTimeString()} is still running; this is its progress.`);
    },
  });

  useEffect(() => {
    if (job?.state === 'running' && watched !== job.id) setWatched(job.id);
  }, [job, watched]);

  useEffect(() => {
    if (!job || job.id !== watched || job.state === 'running' || refreshed === job.id) return;
    setRefreshed(job.id);
    if (job.state === 'done') router.refresh();
  }, [job, watched, refreshed, router]);

  const running = job?.state === 'running';
  const mine = job && job.id === watched ? job : null;
  const progress = mine?.progress;
  return (
    <div className="flex max-w-sm flex-col items-end gap-2 text-sm">
      <button
        type="button"
        onClick={() => start.mutate()}
        disabled={start.isPending}
        className="rounded-md bg-stone-900 px-3 py-1.5 font-medium text-white disabled:opacity-60"
      >
        {running ? 'Show the running evaluation' : 'Run evaluation'}
      </button>
      <div aria-live="polite" className="w-full text-right">
        {mine?.state === 'running' ? (
          <div role="status" data-testid="eval-progress">
            {note ? <p className="text-stone-600">{note}</p> : null}
            <p>
              {progress
                ? `Running set ${progress.set}: ${progress.strategy}, ${progress.done} of ${progress.total} questions`
                : 'Starting: reading the notes and the question sets…'}
            </p>
            {progress ? <progress className="w-full" max={Math.max(1, progress.total)} value={progress.done} /> : null}
          </div>
        ) : null}
        {mine?.state === 'done' ? (
          <div role="status" data-testid="eval-finished" className="text-green-900">
            <p>
              Evaluation finished
              {mine.commit
                ? `: ${mine.runs.length} run ${mine.runs.length === 1 ? 'note' : 'notes'} in commit ${mine.commit.slice(0, 7)}.`
                : '; nothing new to write.'}
            </p>
            <ul>
              {mine.runs.map((r) => (
                <li key={r.notePath}>
                  <Link href={noteHref(r.notePath)} className="break-all text-blue-800 underline">
                    {r.notePath}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ) : null}
      </div>
      {mine?.state === 'failed' || start.isError || status.isError ? (
        <p role="alert" className="w-full rounded-md border border-red-300 bg-red-50 px-3 py-2 text-left text-red-900">
          {mine?.state === 'failed' ? `The evaluation failed: ${mine.error?.message}` : (start.error ?? status.error)?.message}
        </p>
      ) : null}
    </div>
  );
}
