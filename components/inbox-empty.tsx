'use client';

import Link from 'next/link';

/** What the page says when the queue is empty: what fills the inbox, and what to do next. */
export function InboxEmpty({ filtered, total, onClear }: { filtered: boolean; total: number; onClear: () => void }) {
  if (filtered && total > 0) {
    return (
      <div role="status" className="rounded-lg border border-dashed border-stone-300 bg-white p-5 text-sm text-stone-700">
        <p>
          No item matches these filters; {total} {total === 1 ? 'item waits' : 'items wait'} in the inbox.{' '}
          <button type="button" onClick={onClear} className="text-blue-800 underline">
            Clear filters
          </button>
        </p>
      </div>
    );
  }
  return (
    <div role="status" className="max-w-2xl rounded-lg border border-dashed border-stone-300 bg-white p-5 text-sm text-stone-700">
      <p className="font-medium">The inbox is empty: nothing waits for you.</p>
      <p className="mt-2">Items arrive here on their own, and this page shows them as they come:</p>
      <ul className="mt-1 list-disc space-y-1 pl-5">
        <li>
          an agent that is unsure of a change proposes it with <code>propose_to_inbox</code> (or <code>lucid propose</code>);
        </li>
        <li>a write whose note changed under the agent is filed here as a conflict, so it never overwrites;</li>
        <li>a write that held what looks like a secret is held here, masked, instead of being committed.</li>
      </ul>
      <p className="mt-3">
        Nothing to review now. See what agents changed directly in the{' '}
        <Link href="/changelog" className="text-blue-800 underline">
          changelog
        </Link>
        , where any edit can be reverted.
      </p>
    </div>
  );
}
