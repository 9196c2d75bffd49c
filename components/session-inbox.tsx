import Link from 'next/link';
import { noteHref } from '@/lib/markdown/hrefs';
import type { InboxFate } from '@/lib/vault';

const STATE: Record<InboxFate['state'], { label: string; style: string }> = {
  pending: { label: 'pending', style: 'bg-amber-100 text-amber-900' },
  accepted: { label: 'accepted', style: 'bg-emerald-100 text-emerald-900' },
  edited: { label: 'edited, then accepted', style: 'bg-emerald-100 text-emerald-900' },
  rejected: { label: 'rejected', style: 'bg-red-100 text-red-900' },
  removed: { label: 'removed without a decision', style: 'bg-stone-200 text-stone-800' },
};

const idOf = (path: string) => path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/, '');

/** The inbox items a session raised and what became of each. */
export function SessionInbox({ items }: { items: InboxFate[] }) {
  return (
    <section aria-labelledby="inbox-raised" className="mt-6">
      <h2 id="inbox-raised" className="mb-2 text-lg font-semibold">
        Inbox items it raised
      </h2>
      {items.length === 0 ? (
        <p className="text-sm text-stone-600">None: everything it wrote went straight to the vault.</p>
      ) : (
        <ul className="space-y-2 text-sm">
          {items.map((item) => (
            <li key={item.path} data-testid="inbox-fate" data-state={item.state} className="rounded-md border border-stone-200 bg-white p-2">
              <div className="flex flex-wrap items-baseline gap-x-2">
                <span className={`rounded px-1.5 py-0.5 text-xs ${STATE[item.state].style}`}>{STATE[item.state].label}</span>
                {item.action ? <span className="text-xs text-stone-600">{item.action}</span> : null}
                {item.target ? (
                  <Link href={noteHref(item.target)} className="break-all text-blue-800 underline">
                    {item.target}
                  </Link>
                ) : (
                  <span className="break-all text-stone-700">{item.path}</span>
                )}
                {item.state === 'pending' ? (
                  <Link href={`/inbox?item=${encodeURIComponent(idOf(item.path))}`} className="text-xs text-blue-800 underline">
                    decide in the inbox
                  </Link>
                ) : null}
              </div>
              {item.decidedBy ? (
                <p className="mt-1 text-xs text-stone-600">
                  by {item.decidedBy}
                  {item.commit ? <code className="ml-1">{item.commit.slice(0, 7)}</code> : null}
                  {item.reason ? (
                    <>
                      {' '}
                      · <span data-testid="inbox-fate-reason">{item.reason}</span>
                    </>
                  ) : null}
                </p>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
