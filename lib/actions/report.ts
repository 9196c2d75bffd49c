'use server';

import { z } from 'zod';
import { gatedAction } from '@/lib/server/action';
import { fetchReportText } from '@/lib/server/data-overview';
import { getVault } from '@/lib/server/vault';
import { isIsoWeek, writeReport } from '@/lib/vault';

const week = z.string().max(10).refine(isIsoWeek, 'An ISO week such as 2026-W48.');
const weekSchema = z.object({ week }).strict();
const reportTextSchema = z.object({ week, machine: z.string().min(1).max(64).optional(), person: z.string().min(1).max(200).optional() }).strict();

/** The text of a week's report, to copy (narrowed to a machine or person when given); writes nothing. */
export const reportTextAction = gatedAction(reportTextSchema, ({ week, ...origin }) => fetchReportText(week, origin));

/** Writes the week's report note as the person, in one commit (none when it already holds this text). */
export const exportReportAction = gatedAction(weekSchema, async ({ week }) => {
  const vault = await getVault();
  const written = await writeReport(vault, week, vault.person);
  return {
    path: written.path,
    commit: written.commit,
    editId: written.editId,
    created: written.created,
    unchanged: written.unchanged,
    replacedVersion: written.replacedVersion,
    text: written.body,
  };
});
