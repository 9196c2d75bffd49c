import { queryOptions } from '@tanstack/react-query';
import { listSessionsAction, sessionDetailAction } from '@/lib/actions/sessions';
import { unwrap } from '@/lib/actions/result';

/** How often the first page of sessions, and a session still open, ask for news (as the changelog does). */
const SESSIONS_POLL_MS = 2_000;

/** The sessions list's filters and cursor, as the URL carries them. */
export type SessionsInput = Parameters<typeof listSessionsAction>[0];
export type SessionsPageData = Extract<Awaited<ReturnType<typeof listSessionsAction>>, { ok: true }>['data'];
export type SessionViewData = NonNullable<Extract<Awaited<ReturnType<typeof sessionDetailAction>>, { ok: true }>['data']>;

/** Every sessions query's key starts here: invalidate it after a revert. */
export const sessionsKeys = {
  all: ['sessions'] as const,
  page: (input: SessionsInput) => ['sessions', 'page', input] as const,
  detail: (id: string) => ['sessions', 'detail', id] as const,
};

/** One page of sessions; the first page polls (open sessions live), older pages stay still unless one of their sessions is open. */
export function sessionsPageOptions(input: SessionsInput) {
  return queryOptions({
    queryKey: sessionsKeys.page(input),
    queryFn: async () => unwrap(await listSessionsAction(input)),
    refetchInterval: (query) => (input.cursor === undefined || query.state.data?.rows.some((r) => r.outcome === 'open') ? SESSIONS_POLL_MS : false),
    placeholderData: (previous) => previous,
  });
}

/** One session; polled while it is open, so its edits and observations appear as it works. */
export function sessionDetailOptions(id: string) {
  return queryOptions({
    queryKey: sessionsKeys.detail(id),
    queryFn: async () => unwrap(await sessionDetailAction({ id })),
    refetchInterval: (query) => (query.state.data?.row.outcome === 'open' ? SESSIONS_POLL_MS : false),
  });
}
