'use client';

import dynamic from 'next/dynamic';
import { DiffView } from '@/components/diff-view';
import { hasConflictMarkers, type InboxDetail } from '@/lib/queries/inbox';

// Loaded in the browser only: a code editor draws into the DOM.
const MarkdownEditor = dynamic(() => import('@/components/markdown-editor').then((m) => m.MarkdownEditor), {
  ssr: false,
  loading: () => <p className="text-sm text-stone-500">Loading the editor…</p>,
});

/**
 * The target changed since the proposal: both changes, and the three-way merge to confirm. The
 * merge is editable; while it holds conflict markers it cannot be accepted.
 */
export function InboxMerge({ merge, value, onChange }: { merge: NonNullable<InboxDetail['merge']>; value: string; onChange: (text: string) => void }) {
  const markers = hasConflictMarkers(value);
  return (
    <section aria-label="Three-way merge" className="space-y-4">
      <p role="note" className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
        The note changed since the agent proposed this. Both changes are shown below, then the two merged: check the merged text (edit it if needed) and accept
        it. Lucid never applies the proposal over the newer note blindly.
      </p>
      <div className="grid gap-4 xl:grid-cols-2">
        <div>
          <h3 className="mb-1 text-sm font-semibold">Changed in the note since the proposal</h3>
          <DiffView patch={merge.personDiff} empty="No change since the proposal." />
        </div>
        <div>
          <h3 className="mb-1 text-sm font-semibold">The agent&apos;s change</h3>
          <DiffView patch={merge.agentDiff} empty="The proposal changes nothing." />
        </div>
      </div>
      <div>
        <h3 className="mb-1 text-sm font-semibold">Merged text to save</h3>
        <p id="merge-state" aria-live="polite" className={`mb-1 text-sm ${markers ? 'text-red-800' : 'text-green-800'}`}>
          {markers
            ? `${merge.conflicts > 0 ? `${merge.conflicts} ${merge.conflicts === 1 ? 'conflict' : 'conflicts'}: ` : ''}both sides changed the same lines. Keep what should stay and delete the <<<<<<<, ======= and >>>>>>> lines; Accept stays off until none is left.`
            : 'No conflict markers: Accept saves this text.'}
        </p>
        <MarkdownEditor label="Merged text" value={value} onChange={onChange} invalid={markers} describedBy="merge-state" />
      </div>
    </section>
  );
}
