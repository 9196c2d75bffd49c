'use server';

import { z } from 'zod';
import { gatedAction } from '@/lib/server/action';
import { fetchInboxItem, fetchInboxList } from '@/lib/server/data';
import { getVault } from '@/lib/server/vault';
import { acceptInboxItem, countInbox, rejectInboxItem } from '@/lib/vault';

// Every string has a limit: actions are POST endpoints, and a forged call must not make the server
// parse or search megabytes it will refuse anyway (catalog #11, #12).
const idField = z.string().min(1, { error: 'Which inbox item? The id is missing.' }).max(300, { error: 'That is not an inbox item id.' });
const reasonField = z.string().max(500, { error: 'Keep the reason under 500 characters.' });
const filterText = (max: number) => z.string().max(max, { error: `A filter has at most ${max} characters.` });

const listSchema = z.strictObject({
  agent: filterText(200).optional(),
  flag: filterText(100).optional(),
  action: z.enum(['create', 'update', 'append', 'delete'], { error: 'action is create, update, append or delete.' }).optional(),
});

/** The queue, oldest first, filtered by agent, flag and action, with the choices for the filters. */
export const listInboxAction = gatedAction(listSchema, (filter) => fetchInboxList(filter));

/** How many items wait in the inbox (the navigation's count). */
export const countInboxAction = gatedAction(z.strictObject({}), async () => countInbox(await getVault()));

/** One item with what accepting it would change (diff, or the three-way merge when its note changed since). */
export const showInboxItemAction = gatedAction(z.strictObject({ id: idField }), ({ id }) => fetchInboxItem(id));

const acceptSchema = z.strictObject({
  id: idField,
  // Next refuses bodies over 1 MB before this runs; the page checks first, this is for forged calls.
  text: z.string().max(1_000_000, { error: 'This text is too large to save from the dashboard (over 1 MB); nothing was saved.' }).optional(),
  expectedTargetHash: z
    .string()
    .max(128)
    .regex(/^[0-9a-f]+$/, { error: 'expectedTargetHash is a hex content hash.' })
    .nullable()
    .optional(),
  reason: reasonField.optional(),
});

/**
 * Applies an item to its note in one commit (as `human:<name>`, with the proposing session). `text`
 * is the person's edited or merged version; it is refused while it holds conflict markers.
 */
export const acceptInboxItemAction = gatedAction(acceptSchema, async (input) => {
  const { editId, commit, target, edited } = await acceptInboxItem(await getVault(), input);
  return { editId, commit, target, edited };
});

/** Removes an item in one commit, with the person's optional reason (the next start_session reports it). */
export const rejectInboxItemAction = gatedAction(z.strictObject({ id: idField, reason: reasonField.optional() }), async (input) => {
  const { editId, commit } = await rejectInboxItem(await getVault(), input);
  return { editId, commit };
});
