'use client';

import Link from 'next/link';
import { noteHref } from '@/lib/markdown/hrefs';
import type { InboxRow } from '@/lib/queries/inbox';

const FLAG_STYLE: Record<string, string> = {
  'possible-secret': 'bg-red-100 text-red-900',
  conflict: 'bg-amber-100 text-amber-900',
};

/** "3 d", "5 h", "12 min", "now": how long an item has waited. */
function age(created: string, now: number): string {
  const at = Date.parse(created);
  if (Number.isNaN(at)) return '?';
  const minutes = Math.max(0, Math.floor((now - at) / 60_000));
  if (minutes < 1) return 'now';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h`;
  return `${Math.floor(hours / 24)} d`;
}

/**
 * The queue, oldest first: one row per item. The target button selects the item; only the
 * selected row's button is in the tab order, so j/k (and Tab) move focus with the selection.
 */
export function InboxQueue({ items, selectedId, onSelect }: { items: InboxRow[]; selectedId: string | null; onSelect: (id: string) => void }) {
  const now = Date.now();
  return (
    <div className="max-h-80 overflow-auto rounded-md border border-stone-200 bg-white">
      <table aria-label="Inbox queue" className="w-full text-left text-sm">
        <thead className="sticky top-0 bg-stone-100 text-xs text-stone-600">
          <tr>
            <th className="px-2 py-1.5 font-medium">Target</th>
            <th className="px-2 py-1.5 font-medium">Action</th>
            <th className="px-2 py-1.5 font-medium">Proposed by</th>
            <th className="px-2 py-1.5 font-medium">Reason</th>
            <th className="px-2 py-1.5 font-medium">Confidence</th>
            <th className="px-2 py-1.5 font-medium">Flag</th>
            <th className="px-2 py-1.5 font-medium">Session</th>
            <th className="px-2 py-1.5 font-medium">Age</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => {
            const selected = item.id === selectedId;
            return (
              <tr
                key={item.id}
                data-inbox-id={item.id}
                data-selected={selected ? 'true' : undefined}
                className={`border-t border-stone-100 align-top ${selected ? 'bg-sky-50 outline outline-2 -outline-offset-2 outline-sky-500' : 'hover:bg-stone-50'}`}
              >
                <td className="px-2 py-1.5">
                  <button
                    type="button"
                    tabIndex={selected ? 0 : -1}
                    aria-current={selected ? 'true' : undefined}
                    onClick={() => onSelect(item.id)}
                    className="break-all text-left font-medium text-stone-900 underline decoration-stone-300 underline-offset-2 focus:outline-none focus-visible:ring-2 focus-visible:ring-sky-600"
                  >
                    {item.target || item.path}
                  </button>
                  {item.action !== 'create' && item.problem === null ? (
                    <Link href={noteHref(item.target)} className="ml-1 text-xs text-blue-800 underline" aria-label={`Open ${item.target}`}>
                      open
                    </Link>
                  ) : null}
                </td>
                <td className="px-2 py-1.5">{item.action}</td>
                <td className="px-2 py-1.5 whitespace-nowrap">{item.proposedBy}</td>
                <td className="max-w-72 px-2 py-1.5 text-stone-700">
                  {item.problem ? <span className="mr-1 rounded bg-red-100 px-1 text-xs text-red-900">unreadable</span> : null}
                  {item.reason}
                </td>
                <td className="px-2 py-1.5 tabular-nums">{item.confidence === null ? '' : item.confidence.toFixed(2)}</td>
                <td className="px-2 py-1.5">
                  {item.flag ? <span className={`rounded px-1 text-xs ${FLAG_STYLE[item.flag] ?? 'bg-stone-100 text-stone-800'}`}>{item.flag}</span> : null}
                </td>
                <td className="px-2 py-1.5 text-xs">
                  {item.session ? (
                    <Link href={`/sessions/${encodeURIComponent(item.session)}`} className="break-all text-blue-800 underline">
                      {item.session}
                    </Link>
                  ) : null}
                </td>
                <td className="px-2 py-1.5 whitespace-nowrap text-stone-600">
                  <time dateTime={item.created} title={item.created} suppressHydrationWarning>
                    {age(item.created, now)}
                  </time>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
