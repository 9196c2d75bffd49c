'use client';

import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { restoreSkillAction } from '@/lib/actions/skills';

/**
 * The restore of one version: the person's reason (required), then a new molt of the skill with
 * that version's text. The page's hash of the skill goes with it, so a molt an agent made since
 * the page loaded turns it into a conflict that changes nothing.
 */
export function SkillRestore({
  name,
  commit,
  version,
  expectedHash,
  person,
  onClose,
  onDone,
}: {
  name: string;
  commit: string;
  version: number | null;
  expectedHash: string;
  person: string;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const reasonId = useId();
  const errorId = useId();
  const [reason, setReason] = useState('');
  const restore = useMutation({
    mutationFn: () => restoreSkillAction({ name, commit, reason, expectedHash }),
    onSuccess: (result) => {
      if (result.ok) {
        onDone(
          `Restored version ${result.data.restored ?? '?'} as version ${result.data.version} (commit ${result.data.commit.slice(0, 7)}, edit ${result.data.editId}).`,
        );
      }
    },
  });
  const failed = restore.data && !restore.data.ok ? (restore.data.fieldErrors?.reason?.[0] ?? restore.data.message) : null;
  const label = `Restore version ${version ?? '?'}`;
  return (
    <form
      aria-label={label}
      className="mt-2 rounded-md border border-stone-300 bg-stone-50 p-3 text-sm"
      onSubmit={(e) => {
        e.preventDefault();
        restore.mutate();
      }}
    >
      <p className="mb-2 text-stone-700">
        A new molt by {person} whose text is version {version ?? '?'}&apos;s; every version stays in the history.
      </p>
      <label htmlFor={reasonId} className="block text-xs text-stone-600">
        Reason (required)
      </label>
      <input
        id={reasonId}
        value={reason}
        required
        maxLength={500}
        aria-describedby={failed ? errorId : undefined}
        onChange={(e) => setReason(e.target.value)}
        className="mt-0.5 w-full max-w-xl rounded-md border border-stone-300 bg-white px-2 py-1.5"
      />
      <div id={errorId} aria-live="polite">
        {failed ? (
          <p role="alert" className="mt-2 text-red-800">
            {failed}
          </p>
        ) : null}
      </div>
      <div className="mt-2 flex gap-2">
        <button
          type="submit"
          disabled={restore.isPending || reason.trim() === ''}
          className="rounded bg-blue-800 px-3 py-1 text-white hover:bg-blue-900 disabled:opacity-50"
        >
          {restore.isPending ? 'Restoring…' : label}
        </button>
        <button type="button" onClick={onClose} className="rounded bg-stone-200 px-3 py-1 hover:bg-stone-300">
          Cancel
        </button>
      </div>
    </form>
  );
}
