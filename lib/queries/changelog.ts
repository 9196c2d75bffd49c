import { queryOptions } from '@tanstack/react-query';
import { commitDiffAction, listChangelogAction, listUncommittedAction, type planRevertAction } from '@/lib/actions/changelog';
import { unwrap } from '@/lib/actions/result';

/**
 * How often the first page of the changelog asks for new edits: well below Playwright's expect
 * timeout, so an edit an agent makes while the page is open shows up without a reload.
 */
const CHANGELOG_POLL_MS = 1_500;
const UNCOMMITTED_POLL_MS = 3_000;

/** The changelog's filters and cursor, as the URL carries them. */
export type ChangelogInput = Parameters<typeof listChangelogAction>[0];
export type ChangelogPageData = Extract<Awaited<ReturnType<typeof listChangelogAction>>, { ok: true }>['data'];
export type ChangelogEntryData = ChangelogPageData['entries'][number];
export type RevertPlanData = Extract<Awaited<ReturnType<typeof planRevertAction>>, { ok: true }>['data'];

/** Every changelog query's key starts here: invalidate it after a revert or a commit. */
export const changelogKeys = {
  all: ['changelog'] as const,
  page: (input: ChangelogInput) => ['changelog', 'page', input] as const,
  diff: (sha: string) => ['changelog', 'diff', sha] as const,
  uncommitted: ['changelog', 'uncommitted'] as const,
};

/** One page of the changelog; only the first page (no cursor) polls, so paging back stays still. */
export function changelogPageOptions(input: ChangelogInput) {
  return queryOptions({
    queryKey: changelogKeys.page(input),
    queryFn: async () => unwrap(await listChangelogAction(input)),
    refetchInterval: input.before === undefined ? CHANGELOG_POLL_MS : false,
    placeholderData: (previous) => previous,
  });
}

/** One commit's patch; a commit never changes, so it is fetched once. */
export function commitDiffOptions(sha: string) {
  return queryOptions({
    queryKey: changelogKeys.diff(sha),
    queryFn: async () => unwrap(await commitDiffAction({ sha })),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** The files nobody committed, polled while the page is open. */
export function uncommittedOptions() {
  return queryOptions({
    queryKey: changelogKeys.uncommitted,
    queryFn: async () => unwrap(await listUncommittedAction({})),
    refetchInterval: UNCOMMITTED_POLL_MS,
  });
}
