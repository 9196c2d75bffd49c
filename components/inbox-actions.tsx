'use client';

/** Why a button is off ('' when there is nothing to say, e.g. while loading), or null when it is on. */
type Gate = string | null;

/** Accept, Edit and Reject for the selected item, each with its key; a button that is off says why. */
export function InboxActions({
  accept,
  edit,
  busy,
  onAccept,
  onEdit,
  onReject,
}: {
  accept: Gate;
  edit: Gate;
  busy: boolean;
  onAccept: () => void;
  onEdit: () => void;
  onReject: () => void;
}) {
  const why = [accept, edit].filter((g): g is string => Boolean(g));
  return (
    <div className="mb-4">
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          onClick={onAccept}
          disabled={busy || accept !== null}
          aria-keyshortcuts="a"
          aria-label="Accept"
          className="rounded-md bg-green-700 px-3 py-1.5 text-sm font-medium text-white disabled:cursor-not-allowed disabled:opacity-50"
        >
          Accept <kbd className="ml-1 text-xs opacity-75">a</kbd>
        </button>
        <button
          type="button"
          onClick={onEdit}
          disabled={busy || edit !== null}
          aria-keyshortcuts="e"
          aria-label="Edit"
          className="rounded-md border border-stone-300 bg-white px-3 py-1.5 text-sm font-medium disabled:cursor-not-allowed disabled:opacity-50"
        >
          Edit <kbd className="ml-1 text-xs opacity-75">e</kbd>
        </button>
        <button
          type="button"
          onClick={onReject}
          disabled={busy}
          aria-keyshortcuts="r"
          aria-label="Reject"
          className="rounded-md border border-red-300 bg-white px-3 py-1.5 text-sm font-medium text-red-800 disabled:cursor-not-allowed disabled:opacity-50"
        >
          Reject <kbd className="ml-1 text-xs opacity-75">r</kbd>
        </button>
      </div>
      {why.length > 0 ? <p className="mt-1 text-xs text-stone-600">{[...new Set(why)].join(' ')}</p> : null}
    </div>
  );
}
