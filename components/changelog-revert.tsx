'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { DiffView } from '@/components/diff-view';
import { planRevertAction, revertAction } from '@/lib/actions/changelog';
import { type ChangelogEntryData, changelogKeys, type RevertPlanData } from '@/lib/queries/changelog';

function Blockers({ plan }: { plan: RevertPlanData }) {
  return (
    <ul aria-label="In the way" className="mt-2 list-disc space-y-1 pl-5 text-sm">
      {plan.blockers.map((b) => (
        <li key={`${b.kind}:${b.path}`}>
          <span className="font-mono text-xs">{b.path}</span>{' '}
          {b.kind === 'uncommitted' ? (
            <>
              has changes nobody committed (see{' '}
              <a href="#uncommitted" className="underline">
                Uncommitted work
              </a>
              )
            </>
          ) : (
            <>
              was changed since by:
              <ul className="list-[circle] pl-5">
                {b.laterEdits.map((e) => (
                  <li key={e.commit}>
                    <code className="text-xs">{e.commit.slice(0, 7)}</code> {e.actor}
                    {e.op ? ` · ${e.op}` : ''} · {e.subject}
                    {e.edit ? <span className="text-xs text-stone-500"> ({e.edit})</span> : null}
                  </li>
                ))}
              </ul>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * The revert of one entry: the dry run first (what would change, or what is in the way, with
 * nothing changed), then a confirm with an optional reason.
 */
export function ChangelogRevert({ entry, onClose, onDone }: { entry: ChangelogEntryData; onClose: () => void; onDone: (message: string) => void }) {
  const ref = entry.editId ?? entry.sha;
  const client = useQueryClient();
  const reasonId = useId();
  const [reason, setReason] = useState('');
  const plan = useQuery({
    queryKey: ['changelog', 'plan', ref],
    queryFn: async () => {
      const result = await planRevertAction({ ref });
      if (!result.ok) throw new Error(result.message);
      return result.data;
    },
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
  const revert = useMutation({
    mutationFn: async () => revertAction({ ref, reason: reason.trim() || undefined }),
    onSuccess: async (result) => {
      if (!result.ok) {
        await plan.refetch();
        return;
      }
      // Closed first: an open plan of this entry would otherwise be asked again, for nothing.
      onDone(`Reverted ${entry.sha.slice(0, 7)}: new edit ${result.data.editId} (${result.data.commit.slice(0, 7)}).`);
      await client.invalidateQueries({ queryKey: changelogKeys.all });
    },
  });
  const failed = revert.data && !revert.data.ok ? revert.data.message : null;

  return (
    <section aria-label="Revert" className="mt-3 rounded-md border border-stone-300 bg-stone-50 p-3 text-sm">
      {plan.isPending ? (
        <p className="text-stone-500">Trying the revert on a temporary index…</p>
      ) : plan.isError ? (
        <p role="alert" className="text-red-800">
          {(plan.error as Error).message}
        </p>
      ) : plan.data.refused ? (
        <p role="alert" className="text-stone-700">
          Not revertible: {plan.data.refused}
        </p>
      ) : !plan.data.ok ? (
        <div role="alert" className="text-red-900">
          <p>
            <strong>Nothing changed.</strong> {plan.data.message}
          </p>
          <Blockers plan={plan.data} />
        </div>
      ) : (
        <div>
          <p>{plan.data.message}</p>
          <div className="my-2">
            {plan.data.tooBig ? (
              <p className="text-stone-600">This change is too big to show here; look at it with git.</p>
            ) : (
              <DiffView patch={plan.data.patch} empty="The revert changes no file content." />
            )}
          </div>
          <label htmlFor={reasonId} className="block text-xs text-stone-600">
            Reason (optional)
          </label>
          <input
            id={reasonId}
            value={reason}
            maxLength={500}
            onChange={(e) => setReason(e.target.value)}
            className="mt-0.5 w-full max-w-xl rounded-md border border-stone-300 bg-white px-2 py-1.5"
          />
          {failed ? (
            <p role="alert" className="mt-2 text-red-800">
              {failed}
            </p>
          ) : null}
          <div className="mt-2 flex gap-2">
            <button
              type="button"
              disabled={revert.isPending}
              onClick={() => revert.mutate()}
              className="rounded bg-red-700 px-3 py-1 text-white hover:bg-red-800 disabled:opacity-50"
            >
              {revert.isPending ? 'Reverting…' : 'Confirm revert'}
            </button>
            <button type="button" onClick={onClose} className="rounded bg-stone-200 px-3 py-1 hover:bg-stone-300">
              Cancel
            </button>
          </div>
        </div>
      )}
      {!plan.isPending && (plan.isError || !plan.data.ok) ? (
        <button type="button" onClick={onClose} className="mt-2 rounded bg-stone-200 px-3 py-1 text-xs hover:bg-stone-300">
          Close
        </button>
      ) : null}
    </section>
  );
}
