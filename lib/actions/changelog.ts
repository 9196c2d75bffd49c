'use server';

import { z } from 'zod';
import { gatedAction } from '@/lib/server/action';
import { fetchChangelogPage, fetchCommitDiff, fetchRevertPlan, fetchUncommitted } from '@/lib/server/data';
import { getVault } from '@/lib/server/vault';
import { commitUncommitted, NOTE_TYPES, normalizeVaultPath, OPS, revertEdit } from '@/lib/vault';

// An edit id (`e` + 12 base32) or a full commit sha: never a ref git would read as an option or a range.
const refSchema = z.string().regex(/^(e[a-z2-7]{12}|[0-9a-f]{40})$/, 'An edit id (e + 12 letters) or a full 40-digit commit sha.');
const shaSchema = z.string().regex(/^[0-9a-f]{40}$/, 'A full 40-digit commit sha.');
const daySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'A date as YYYY-MM-DD.')
  .refine((day) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)), 'A date as YYYY-MM-DD.');
const reasonSchema = z.string().max(500).optional();
const vaultPathSchema = z
  .string()
  .min(1)
  .max(1000)
  .transform((path, ctx) => {
    try {
      return normalizeVaultPath(path);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  });

const listChangelogSchema = z
  .object({
    actor: z.string().max(200).optional(),
    op: z.enum(OPS).optional(),
    type: z.enum(NOTE_TYPES).optional(),
    since: daySchema.optional(),
    until: daySchema.optional(),
    before: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
    machine: z.string().min(1).max(64).optional(),
    person: z.string().min(1).max(200).optional(),
  })
  .strict();

/** One page of the changelog, newest first, filtered (the page polls the first page for live updates). */
export const listChangelogAction = gatedAction(listChangelogSchema, (input) => fetchChangelogPage(input));

/** The patch of one commit, or "too big". */
export const commitDiffAction = gatedAction(z.object({ sha: shaSchema }).strict(), ({ sha }) => fetchCommitDiff(sha));

/** The dry run of a revert: what it would change, or what is in the way; changes nothing. */
export const planRevertAction = gatedAction(z.object({ ref: refSchema }).strict(), ({ ref }) => fetchRevertPlan(ref));

/** Reverts one edit or commit as the person, in one commit; when blocked nothing changes and the plan's message comes back. */
export const revertAction = gatedAction(z.object({ ref: refSchema, reason: reasonSchema }).strict(), async ({ ref, reason }) => {
  const result = await revertEdit(await getVault(), { ref, reason: reason?.trim() || undefined });
  return { editId: result.editId, commit: result.commit, message: result.plan.message };
});

/** The files with changes nobody committed, with their diffs and the person a commit is made as. */
export const listUncommittedAction = gatedAction(z.object({}).strict(), () => fetchUncommitted());

/** Commits the chosen uncommitted files as the person's own edit; never discards anything. */
export const commitUncommittedAction = gatedAction(
  z.object({ paths: z.array(vaultPathSchema).min(1).max(500), reason: reasonSchema }).strict(),
  async ({ paths, reason }) => commitUncommitted(await getVault(), { paths, reason: reason?.trim() || undefined }),
);
