'use client';

import dynamic from 'next/dynamic';
import { hasConflictMarkers } from '@/lib/queries/inbox';

// Loaded in the browser only: a code editor draws into the DOM.
const MarkdownEditor = dynamic(() => import('@/components/markdown-editor').then((m) => m.MarkdownEditor), {
  ssr: false,
  loading: () => <p className="text-sm text-stone-500">Loading the editor…</p>,
});

/**
 * Edit, then accept: the proposal in a markdown editor with the note's current text beside it.
 * Ctrl+Enter accepts, Escape cancels; Accept stays off while the text holds conflict markers.
 */
export function InboxEditor({
  current,
  value,
  onChange,
  onAccept,
  onCancel,
  busy,
}: {
  current: string | null;
  value: string;
  onChange: (text: string) => void;
  onAccept: () => void;
  onCancel: () => void;
  busy: boolean;
}) {
  const markers = hasConflictMarkers(value);
  return (
    <section aria-label="Edit the proposal" className="space-y-2">
      <div className="grid gap-4 lg:grid-cols-2">
        <section aria-labelledby="note-now-title">
          <h3 id="note-now-title" className="mb-1 text-sm font-semibold">
            The note now
          </h3>
          {current === null ? (
            <p className="text-sm text-stone-600">The note does not exist yet: accepting creates it.</p>
          ) : (
            <pre className="h-[28rem] overflow-auto whitespace-pre-wrap break-words rounded-md border border-stone-200 bg-stone-50 p-3 font-mono text-xs leading-5">
              {current}
            </pre>
          )}
        </section>
        <div>
          <h3 className="mb-1 text-sm font-semibold">Your version</h3>
          <MarkdownEditor
            label="Your version"
            value={value}
            onChange={onChange}
            autoFocus
            onSubmit={onAccept}
            onCancel={onCancel}
            invalid={markers}
            describedBy="edit-state"
          />
        </div>
      </div>
      <p id="edit-state" className={`text-sm ${markers ? 'text-red-800' : 'text-stone-600'}`}>
        {markers
          ? 'The text still holds conflict markers (<<<<<<<, ======= or >>>>>>> lines): remove them to accept.'
          : 'Accepting saves your version to the note; the changelog records that you edited the proposal. Ctrl+Enter accepts, Escape cancels.'}
      </p>
      <div className="flex gap-2">
        <button
          type="button"
          onClick={onAccept}
          disabled={busy || markers}
          className="rounded-md bg-green-700 px-3 py-1.5 text-sm font-medium text-white disabled:cursor-not-allowed disabled:opacity-50"
        >
          Accept edited version
        </button>
        <button type="button" onClick={onCancel} className="rounded-md border border-stone-300 bg-white px-3 py-1.5 text-sm">
          Cancel
        </button>
      </div>
    </section>
  );
}
