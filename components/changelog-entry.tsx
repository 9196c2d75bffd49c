'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { memo, useState } from 'react';
import { ChangelogRevert } from '@/components/changelog-revert';
import { DiffView } from '@/components/diff-view';
import { noteHref } from '@/lib/markdown/hrefs';
import { type ChangelogEntryData, commitDiffOptions } from '@/lib/queries/changelog';

function when(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}

/** The diff of one commit, fetched when the entry is first opened. */
function CommitDiff({ sha }: { sha: string }) {
  const diff = useQuery(commitDiffOptions(sha));
  if (diff.isPending) return <p className="text-sm text-stone-500">Loading the diff…</p>;
  if (diff.isError) return <p className="text-sm text-red-800">The diff could not be read: {(diff.error as Error).message}</p>;
  if (diff.data.tooBig) return <p className="text-sm text-stone-600">This change is too big to show here; look at it with git.</p>;
  return <DiffView patch={diff.data.patch} empty="This commit changed no file content." />;
}

/**
 * One edit of the changelog: who, what, which note, why, which session, when and which commit; it
 * opens to its diff and offers a revert (or says why this commit is never reverted).
 */
export const ChangelogEntry = memo(function ChangelogEntry({
  entry,
  expanded,
  onToggle,
  onReverted,
}: {
  entry: ChangelogEntryData;
  expanded: boolean;
  onToggle: (sha: string) => void;
  onReverted: (message: string) => void;
}) {
  const [reverting, setReverting] = useState(false);
  const [first, ...rest] = entry.paths;
  const reason = entry.foreign ? entry.subject : entry.reason.split('\n')[0] || entry.subject;
  return (
    <li
      tabIndex={-1}
      data-testid="changelog-entry"
      data-sha={entry.sha}
      className="rounded-md border border-stone-200 bg-white p-3 outline-none focus:ring-2 focus:ring-blue-500"
    >
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1 text-sm">
        <time dateTime={new Date(entry.time * 1000).toISOString()} className="text-stone-500 tabular-nums">
          {when(entry.time)}
        </time>
        {entry.foreign ? (
          <>
            <span className="rounded bg-amber-100 px-1.5 text-xs text-amber-900">not made by Lucid</span>
            <span data-testid="entry-actor">{entry.author}</span>
          </>
        ) : (
          <span data-testid="entry-actor" className="font-medium">
            {entry.actor}
          </span>
        )}
        {entry.op ? (
          <span data-testid="entry-op" className="rounded bg-stone-100 px-1.5 text-xs text-stone-700">
            {entry.op}
          </span>
        ) : null}
        {first ? (
          <Link href={noteHref(first)} className="break-all text-blue-800 underline">
            {first}
          </Link>
        ) : null}
        {rest.length > 0 ? <span className="text-xs text-stone-500">and {rest.length} more</span> : null}
        {entry.session ? (
          <Link href={`/sessions/${encodeURIComponent(entry.session)}`} className="text-xs text-blue-800 underline">
            session
          </Link>
        ) : null}
        {entry.machine || entry.person ? (
          <span data-testid="entry-origin" className="text-xs text-stone-500">
            {[entry.machine ? `on ${entry.machine}` : '', entry.person ? `at ${entry.person}'s vault` : ''].filter(Boolean).join(', ')}
          </span>
        ) : null}
        <code className="text-xs text-stone-500" title={entry.sha}>
          {entry.sha.slice(0, 7)}
        </code>
      </div>
      {reason ? <p className="mt-1 text-sm text-stone-700">{reason}</p> : null}
      <div className="mt-2 flex gap-2 text-xs">
        <button type="button" aria-expanded={expanded} onClick={() => onToggle(entry.sha)} className="rounded bg-stone-200 px-2 py-1 hover:bg-stone-300">
          {expanded ? 'Hide diff' : 'Show diff'}
        </button>
        {entry.refused ? (
          <span className="self-center text-stone-500" data-testid="revert-refused">
            Not revertible: {entry.refused}
          </span>
        ) : (
          <button
            type="button"
            aria-expanded={reverting}
            onClick={() => setReverting((open) => !open)}
            className="rounded bg-stone-200 px-2 py-1 hover:bg-stone-300"
          >
            Revert…
          </button>
        )}
      </div>
      {expanded ? (
        <div className="mt-3" data-testid="entry-diff">
          {rest.length > 0 ? <p className="mb-1 text-xs text-stone-500">Files: {entry.paths.join(', ')}</p> : null}
          <CommitDiff sha={entry.sha} />
        </div>
      ) : null}
      {reverting && !entry.refused ? (
        <ChangelogRevert
          entry={entry}
          onClose={() => setReverting(false)}
          onDone={(message) => {
            setReverting(false);
            onReverted(message);
          }}
        />
      ) : null}
    </li>
  );
});
