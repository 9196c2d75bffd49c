'use client';

import { useState } from 'react';

/** Reject with an optional reason, which the next agent's start_session reports. Enter rejects, Escape cancels. */
export function InboxRejectForm({ onReject, onCancel, busy }: { onReject: (reason: string) => void; onCancel: () => void; busy: boolean }) {
  const [reason, setReason] = useState('');
  return (
    <form
      aria-label="Reject"
      onSubmit={(e) => {
        e.preventDefault();
        onReject(reason.trim());
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          onCancel();
        }
      }}
      className="flex flex-wrap items-end gap-2 rounded-md border border-stone-300 bg-white p-3"
    >
      <label className="flex min-w-72 flex-1 flex-col gap-1 text-sm">
        Why reject it? (optional; the next agent session is told)
        <input
          // biome-ignore lint/a11y/noAutofocus: the person pressed r or clicked Reject to type here
          autoFocus
          type="text"
          value={reason}
          maxLength={500}
          onChange={(e) => setReason(e.target.value)}
          className="rounded-md border border-stone-300 px-2 py-1.5"
        />
      </label>
      <button type="submit" disabled={busy} className="rounded-md bg-red-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50">
        Reject
      </button>
      <button type="button" onClick={onCancel} className="rounded-md border border-stone-300 px-3 py-1.5 text-sm">
        Cancel
      </button>
    </form>
  );
}
