'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { remoteStateOptions } from '@/lib/queries/sync';

/**
 * The navigation's compact view of the remote (`↑2 ↓0`), linking to the overview's Remote panel.
 * Asked by the browser once the page has drawn, so no page waits on it; nothing without a remote.
 */
export function SyncBadge() {
  const remote = useQuery(remoteStateOptions()).data;
  if (!remote?.remote) return null;
  const failed = remote.lastError !== null;
  // Before the first sync the counts are not known yet (no tracking ref): dashes, not zeros.
  const known = remote.lastSync !== null || remote.ahead > 0 || remote.behind > 0;
  const [ahead, behind] = known ? [remote.ahead, remote.behind] : ['–', '–'];
  const state = known ? `${remote.ahead} to push, ${remote.behind} to pull` : 'never synced';
  const label = `${remote.remote}: ${state}${failed ? '; the last sync failed' : ''}. Open the Remote panel.`;
  return (
    <Link
      href="/#remote"
      data-testid="sync-badge"
      aria-label={label}
      title={label}
      className={`mt-1 inline-flex gap-2 rounded px-1.5 text-xs tabular-nums ${failed ? 'bg-red-100 text-red-900' : 'bg-stone-200 text-stone-700'}`}
    >
      <span aria-hidden="true">↑{ahead}</span>
      <span aria-hidden="true">↓{behind}</span>
      {failed ? <span aria-hidden="true">!</span> : null}
    </Link>
  );
}
