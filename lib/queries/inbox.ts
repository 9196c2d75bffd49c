import { queryOptions } from '@tanstack/react-query';
import { acceptInboxItemAction, countInboxAction, listInboxAction, rejectInboxItemAction, showInboxItemAction } from '@/lib/actions/inbox';
import { ActionError, unwrapAction } from '@/lib/queries/action-error';
import type { InboxItem } from '@/lib/vault';

/**
 * How often the queue and the navigation count ask for news: items agents add while the page is
 * open appear without a reload. Well below Playwright's expect timeout, so the browser tests see
 * live updates without waiting on a slow timer.
 */
export const INBOX_POLL_MS = 1_500;

/**
 * Next refuses an action request whose body passes `serverActions.bodySizeLimit` (1 MB) before the
 * action runs, with an error that names no field: the page checks the size first and says so in words.
 */
const MAX_SAVE_BYTES = 1_000_000;

/** The sentence a person reads when a text is over MAX_SAVE_BYTES (catalog #12). */
const TOO_LARGE_MESSAGE =
  'This text is too large to save from the dashboard (over 1 MB). Nothing was saved: edit the note in Obsidian, or accept the proposal as it is.';

/** What listInboxAction returns: the queue (filtered) and the choices for the filters. */
export type InboxList = Extract<Awaited<ReturnType<typeof listInboxAction>>, { ok: true }>['data'];
/** One queued item as the queue shows it. */
export type InboxRow = InboxList['items'][number];
/** What showInboxItemAction returns: the item, what it would change, and its preview. */
export type InboxDetail = Extract<Awaited<ReturnType<typeof showInboxItemAction>>, { ok: true }>['data'];
/** The filters the queue takes (from the URL's search params). */
export interface InboxFilterValues {
  agent?: string;
  flag?: string;
  action?: InboxItem['action'];
}

/** The keys of every inbox query; invalidating `inboxKeys.all` refreshes the queue, the count and the open item. */
export const inboxKeys = {
  all: ['inbox'] as const,
  list: (filter: InboxFilterValues) => ['inbox', 'list', filter.agent ?? '', filter.flag ?? '', filter.action ?? ''] as const,
  count: ['inbox', 'count'] as const,
  item: (id: string) => ['inbox', 'item', id] as const,
};

// Polling pauses while a person edits or writes a reason: nothing should move under them, and a
// poll would queue ahead of their save (Next runs a client's actions one at a time).
let pollingPaused = false;
const pauseListeners = new Set<() => void>();

/** Pauses or resumes the inbox's polling everywhere on the page (queue and navigation count). */
export function setInboxPollingPaused(paused: boolean): void {
  if (pollingPaused === paused) return;
  pollingPaused = paused;
  for (const listener of pauseListeners) listener();
}

/** For useSyncExternalStore: subscribe to pause changes. */
export function subscribeInboxPolling(listener: () => void): () => void {
  pauseListeners.add(listener);
  return () => pauseListeners.delete(listener);
}

/** For useSyncExternalStore: the polling interval now (false while paused). */
export function inboxPollInterval(): number | false {
  return pollingPaused ? false : INBOX_POLL_MS;
}

/** The queue, oldest first, refetched every INBOX_POLL_MS unless paused. */
export function inboxListQueryOptions(filter: InboxFilterValues, interval: number | false) {
  return queryOptions({
    queryKey: inboxKeys.list(filter),
    queryFn: async () =>
      unwrapAction(await listInboxAction({ agent: filter.agent || undefined, flag: filter.flag || undefined, action: filter.action || undefined })),
    refetchInterval: interval,
    placeholderData: (previous) => previous,
  });
}

/** How many items wait in the inbox, for the navigation. */
export function inboxCountQueryOptions(interval: number | false) {
  return queryOptions({
    queryKey: inboxKeys.count,
    queryFn: async () => unwrapAction(await countInboxAction({})),
    refetchInterval: interval,
  });
}

/**
 * One item with what it would change. Not polled: what the person reviews must not change under
 * them; an accept based on what they saw is refused as a conflict when the note moved on.
 */
export function inboxItemQueryOptions(id: string | null) {
  return queryOptions({
    queryKey: inboxKeys.item(id ?? ''),
    queryFn: async () => unwrapAction(await showInboxItemAction({ id: id ?? '' })),
    enabled: id !== null,
    staleTime: 0,
    refetchOnWindowFocus: false,
    retry: false,
  });
}

/** The size in bytes a text takes in an action's request body. */
function requestBytes(text: string): number {
  return new TextEncoder().encode(JSON.stringify(text)).length;
}

/** Accept (optionally with the person's own text); throws an ActionError on an expected failure. */
export async function acceptInboxItem(input: { id: string; text?: string; expectedTargetHash?: string | null; reason?: string }) {
  if (input.text !== undefined && requestBytes(input.text) > MAX_SAVE_BYTES) throw new ActionError('too_large', TOO_LARGE_MESSAGE);
  return unwrapAction(await acceptInboxItemAction(input));
}

/** Reject with an optional reason; throws an ActionError on an expected failure. */
export async function rejectInboxItem(input: { id: string; reason?: string }) {
  return unwrapAction(await rejectInboxItemAction(input));
}

/** The item's links as the server resolved them, as MarkdownView's `resolve` (unknown links show as broken). */
export function linkResolverOf(detail: InboxDetail): (target: string, kind: string, from: string) => string | null {
  const known = new Map(detail.links.map(([from, kind, target, to]) => [`${from}\u0000${kind}\u0000${target}`, to]));
  return (target, kind, from) => known.get(`${from}\u0000${kind}\u0000${target}`) ?? null;
}

// The same rule as lib/vault's hasConflictMarkers (which the server applies again on accept); this
// copy runs in the browser, which cannot load lib/vault.
const CONFLICT_MARKER = /^(<{7}|={7}|>{7}|\|{7})(?:[ \t].*)?\r?$/m;

/** True while a text still holds a conflict marker line; such a text is never saved. */
export function hasConflictMarkers(text: string): boolean {
  return CONFLICT_MARKER.test(text);
}
