'use client';

import { DiffView } from '@/components/diff-view';
import type { DreamChangeItem } from '@/lib/queries/dream';

const FILE_VERB: Record<string, string> = { added: 'adds', modified: 'changes', deleted: 'removes', renamed: 'moves' };

/** The chosen change: what it does and why, what is in its way, and its diff as the dream pass made it. */
export function DreamChangeDetail({ change }: { change: DreamChangeItem }) {
  return (
    <section aria-label="Selected change" className="mt-4">
      <h2 className="text-lg font-semibold tracking-tight">
        {change.op} <code className="break-all">{change.path}</code>
      </h2>
      {change.reason ? (
        <p className="mt-1 text-sm">
          <span className="text-stone-600">Reason: </span>
          {change.reason}
        </p>
      ) : null}
      <ul aria-label="Files" className="mt-2 space-y-0.5 text-sm text-stone-700">
        {change.files.map((f) => (
          <li key={`${f.from ?? ''}>${f.path}`}>
            {FILE_VERB[f.status] ?? f.status}{' '}
            {f.from ? (
              <>
                <code>{f.from}</code> to <code>{f.path}</code>
              </>
            ) : (
              <code>{f.path}</code>
            )}
          </li>
        ))}
      </ul>
      {change.status === 'inapplicable' ? (
        <div role="note" aria-label="Why it no longer applies" className="mt-3 rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
          <p className="font-medium">This change no longer applies, so it cannot land as it is.</p>
          <p className="mt-1">{change.why}</p>
          <p className="mt-1 text-amber-900">Dismiss it, or make the change yourself in the note; nothing is ever forced.</p>
        </div>
      ) : null}
      {change.status === 'pending' && change.rebased ? (
        <p className="mt-3 text-sm text-stone-700">Its files changed since the run: landing it merges this change onto them, keeping the later edits.</p>
      ) : null}
      {change.landed ? (
        <p className="mt-3 text-sm text-green-900">
          Landed by {change.landed.actor} in commit <code>{change.landed.commit.slice(0, 7)}</code>.
        </p>
      ) : null}
      {change.dismissed ? (
        <p className="mt-3 text-sm text-stone-700">
          Dismissed by {change.dismissed.actor}
          {change.dismissed.reason ? `: ${change.dismissed.reason}` : ''}.
        </p>
      ) : null}
      <div className="mt-4">
        {change.tooBig ? (
          <p className="text-sm text-stone-500">This change is too big to show here; look at it with lucid dream show --diff.</p>
        ) : (
          <DiffView patch={change.patch} empty="This change has no diff to show." />
        )}
      </div>
    </section>
  );
}
