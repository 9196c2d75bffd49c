import { queryOptions } from '@tanstack/react-query';
import { dismissDreamChangesAction, dreamReviewAction, landDreamChangesAction } from '@/lib/actions/dream';
import { unwrapAction } from '@/lib/queries/action-error';

/** What the dream page shows: the runs and one run in full. */
export type DreamReview = Extract<Awaited<ReturnType<typeof dreamReviewAction>>, { ok: true }>['data'];
/** One run in full, with its changes and their patches. */
export type DreamRunFull = NonNullable<DreamReview['run']>;
/** One change of a run. */
export type DreamChangeItem = DreamRunFull['changes'][number];
/** What landing changes did. */
export type DreamLandResult = Extract<Awaited<ReturnType<typeof landDreamChangesAction>>, { ok: true }>['data'];
/** What dismissing changes did. */
export type DreamDismissResult = Extract<Awaited<ReturnType<typeof dismissDreamChangesAction>>, { ok: true }>['data'];

/** The keys of the dream review; invalidating `dreamKeys.all` after a decision refreshes every run's counts. */
export const dreamKeys = {
  all: ['dream'] as const,
  review: (runId: string | null) => ['dream', 'review', runId ?? ''] as const,
};

/**
 * The runs and one run in full. Not polled: checking every pending change against the vault is
 * a three-way merge per file, and what the person reviews must not move under them.
 */
export function dreamReviewOptions(runId: string | null) {
  return queryOptions({
    queryKey: dreamKeys.review(runId),
    queryFn: async () => unwrapAction(await dreamReviewAction({ runId: runId ?? undefined })),
    placeholderData: (previous) => previous,
    refetchOnWindowFocus: true,
  });
}

/** Lands changes (all pending when `changes` is absent); throws an ActionError on an expected failure. */
export async function landDreamChanges(input: { runId: string; changes?: string[] }): Promise<DreamLandResult> {
  return unwrapAction(await landDreamChangesAction(input));
}

/** Dismisses changes; throws an ActionError on an expected failure. */
export async function dismissDreamChanges(input: { runId: string; changes?: string[]; reason?: string }): Promise<DreamDismissResult> {
  return unwrapAction(await dismissDreamChangesAction(input));
}
