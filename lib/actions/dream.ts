'use server';

import { z } from 'zod';
import { gatedAction } from '@/lib/server/action';
import { fetchDreamReview } from '@/lib/server/data-dream';
import { getVault } from '@/lib/server/vault';
import { DREAM_RUN_ID_PATTERN, dismissDreamChanges, landDreamChanges } from '@/lib/vault';

// Ids only in the shapes Lucid makes them: never a ref git would read as an option or a range.
const runId = z.string().regex(DREAM_RUN_ID_PATTERN, { error: 'A dream run id looks like 20261130-140112-k3tq.' });
const changeId = z.string().regex(/^(e[a-z2-7]{12}|[0-9a-f]{40})$/, { error: 'A change is named by its edit id (e + 12 letters) or its full commit id.' });
const changes = z.array(changeId).min(1, { error: 'Choose at least one change.' }).max(1000).optional();

/** The runs and one run in full (the newest when `runId` is absent or gone), for the dream page. */
export const dreamReviewAction = gatedAction(z.strictObject({ runId: runId.optional() }), ({ runId }) => fetchDreamReview(runId));

/** Lands the chosen changes (all pending ones when `changes` is absent) on the current branch, each one commit in the person's name. */
export const landDreamChangesAction = gatedAction(z.strictObject({ runId, changes }), async (input) => landDreamChanges(await getVault(), input));

/** Records that the person does not want the chosen changes (all undecided ones when `changes` is absent), on the dream branch. */
export const dismissDreamChangesAction = gatedAction(
  z.strictObject({ runId, changes, reason: z.string().max(500, { error: 'Keep the reason under 500 characters.' }).optional() }),
  async (input) => dismissDreamChanges(await getVault(), input),
);
