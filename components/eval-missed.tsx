'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { noteHref } from '@/lib/markdown/hrefs';
import { evalMissedOptions } from '@/lib/queries/eval';

/**
 * The questions one strategy missed in a run (recall@5 below 1): each with its gold notes, found or
 * not, and what the strategy retrieved instead, every note linked. A strategy from another harness
 * has no per-question results, and says so.
 */
export function EvalMissed({ run, strategy, label, perQuestion }: { run: string; strategy: string; label: string; perQuestion: boolean }) {
  const missed = useQuery({ ...evalMissedOptions(run, strategy), enabled: perQuestion });
  const title = `Questions ${label} missed`;
  let body: ReactNode;
  if (!perQuestion) {
    body = (
      <p className="text-sm text-stone-700" role="status">
        No per-question results for {label}: its figures come from a run note without a results file (written by another harness), so only its means can be
        charted.
      </p>
    );
  } else if (missed.isPending) {
    body = <p className="text-sm text-stone-600">Loading the questions…</p>;
  } else if (missed.isError) {
    body = (
      <p role="alert" className="rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
        {missed.error.message}
      </p>
    );
  } else {
    const data = missed.data;
    body = (
      <>
        <p className="text-sm text-stone-700" data-testid="eval-missed-count">
          {data.missedCount === 0
            ? `${label} found every gold note in its first five for all ${data.scored} questions.`
            : `${data.missedCount} of ${data.scored} questions with a gold note missing from its first five.`}
          {data.missed.length < data.missedCount ? ` The first ${data.missed.length} are listed.` : ''}
        </p>
        <ol className="mt-3 space-y-3">
          {data.missed.map((q) => (
            <li key={q.id} className="rounded border border-stone-200 p-3 text-sm" data-question={q.id}>
              <p className="font-medium">{q.question}</p>
              <p className="mt-0.5 text-xs text-stone-500">
                {q.id} · {q.kind} · {q.split} · recall@5 {q.recall.toFixed(2)}
              </p>
              <div className="mt-2 grid gap-2 md:grid-cols-2">
                <div>
                  <p className="text-xs font-medium uppercase text-stone-500">Gold</p>
                  <ul className="mt-1 space-y-0.5" aria-label={`Gold notes of ${q.id}`}>
                    {q.gold.map((g) => (
                      <li key={g.path} className="break-all">
                        <span className={g.found ? 'text-green-800' : 'text-red-800'}>{g.found ? 'found' : 'missed'}</span>{' '}
                        <Link href={noteHref(g.path)} className="text-blue-800 underline">
                          {g.path}
                        </Link>
                      </li>
                    ))}
                  </ul>
                </div>
                <div>
                  <p className="text-xs font-medium uppercase text-stone-500">Retrieved instead</p>
                  {q.retrieved.filter((r) => !r.gold).length === 0 ? (
                    <p className="mt-1 text-stone-600">{q.retrieved.length === 0 ? 'nothing' : 'only gold notes, below the first five'}</p>
                  ) : (
                    <ol className="mt-1 list-decimal space-y-0.5 pl-5" aria-label={`Retrieved for ${q.id}`}>
                      {q.retrieved.map((r) =>
                        r.gold ? null : (
                          <li key={r.path} className="break-all" value={q.retrieved.indexOf(r) + 1}>
                            <Link href={noteHref(r.path)} className="text-blue-800 underline">
                              {r.path}
                            </Link>
                          </li>
                        ),
                      )}
                    </ol>
                  )}
                </div>
              </div>
            </li>
          ))}
        </ol>
      </>
    );
  }
  return (
    <section aria-labelledby="eval-missed-title" className="mt-4 rounded-lg border border-stone-200 bg-white p-4" data-testid="eval-missed">
      <h2 id="eval-missed-title" className="mb-2 text-lg font-semibold">
        {title}
      </h2>
      {body}
    </section>
  );
}
