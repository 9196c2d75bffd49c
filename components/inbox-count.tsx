'use client';

import { useQuery } from '@tanstack/react-query';
import { useSyncExternalStore } from 'react';
import { INBOX_POLL_MS, inboxCountQueryOptions, inboxPollInterval, subscribeInboxPolling } from '@/lib/queries/inbox';

/** The navigation's count of waiting inbox items, refreshed by the inbox's polling (nothing shown at zero). */
export function InboxCount({ initial }: { initial: number | null }) {
  const interval = useSyncExternalStore(subscribeInboxPolling, inboxPollInterval, () => INBOX_POLL_MS);
  const count = useQuery({ ...inboxCountQueryOptions(interval), initialData: initial ?? undefined });
  const n = count.data ?? 0;
  if (n === 0) return null;
  return (
    <span
      data-testid="inbox-count"
      title={`${n} waiting in the inbox`}
      className="ml-auto mr-2 rounded-full bg-amber-500 px-1.5 text-xs font-semibold text-white"
    >
      {n}
    </span>
  );
}
