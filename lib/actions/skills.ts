'use server';

import { z } from 'zod';
import { gatedAction } from '@/lib/server/action';
import { fetchSkillDiff } from '@/lib/server/data-skills';
import { getVault } from '@/lib/server/vault';
import { findSkillPath, restoreSkillVersion, VaultError } from '@/lib/vault';

// A skill's name as its URL carries it (the file name without .md), never a path.
const nameSchema = z
  .string()
  .min(1, { error: 'Which skill? The name is missing.' })
  .max(200, { error: 'That is not a skill name.' })
  .regex(/^[^/\\\0]+$/, { error: 'A skill name has no slashes.' });
const commitSchema = z.string().regex(/^[0-9a-f]{40}$/, { error: 'A version is named by its full 40-digit commit id.' });

/** The diff between two versions of a skill, by their commits. */
export const skillDiffAction = gatedAction(z.strictObject({ name: nameSchema, from: commitSchema, to: commitSchema }), ({ name, from, to }) =>
  fetchSkillDiff(name, from, to),
);

const restoreSchema = z.strictObject({
  name: nameSchema,
  commit: commitSchema,
  reason: z.string().trim().min(1, { error: 'Say why you restore this version.' }).max(500, { error: 'Keep the reason under 500 characters.' }),
  expectedHash: z.string().regex(/^[0-9a-f]{64}$/, { error: 'expectedHash is the sha256 of the skill as the page showed it.' }),
});

/**
 * Restores an earlier version of a skill as a new molt made by the person, with their reason;
 * a molt that landed since the page was loaded makes it a conflict, and nothing changes.
 */
export const restoreSkillAction = gatedAction(restoreSchema, async ({ name, commit, reason, expectedHash }) => {
  const vault = await getVault();
  const path = await findSkillPath(vault, name);
  if (!path) throw new VaultError('not_found', `No skill ${name} in this vault; it may have been renamed or removed. Go back to the skills list.`);
  const result = await restoreSkillVersion(vault, { path, commit, reason, expectedHash });
  return { version: result.version, restored: result.restored, commit: result.commit, editId: result.editId };
});
