import nodePath from 'node:path';
import { isVaultError } from '../errors';
import type { VaultFs } from '../fs';
import { cryptoIds } from '../ids';
import { type GitRepo, runGit } from './repo';

/** What a merge needs of the vault: its git, its file system and its state folder for scratch files. */
export interface MergeContext {
  repo: GitRepo;
  fs: VaultFs;
  stateDir(): string;
}

/** The names git writes after the conflict markers, so a person knows which side is which. */
export interface MergeLabels {
  ours: string;
  base: string;
  theirs: string;
}

const PLAIN_LABELS: MergeLabels = { ours: 'ours', base: 'base', theirs: 'theirs' };

/** How many conflicts a text merged by git holds: its `<<<<<<< <ours label>` lines. */
function conflictsIn(text: string, oursLabel: string): number {
  const opening = `<<<<<<< ${oursLabel}`;
  let count = 0;
  for (const line of text.split('\n')) if (line.replace(/\r$/, '') === opening) count += 1;
  return count;
}

/**
 * The three-way merge of texts by `git merge-file`: the change from `base` to `theirs` applied onto
 * `ours`. Where both sides changed the same lines the text holds git's conflict markers, named
 * with `labels`, and `conflicts` counts them (a text that already held such a marker line counts
 * as conflicting too, so a caller that refuses conflicts never takes it). Runs on scratch files
 * `merge-<id>.{ours,base,theirs}` in the state folder, removed before it returns (the vault sweeps
 * any a killed process left). A git failure that is not a conflict is thrown (`io_error`).
 */
export async function mergeFile(
  ctx: MergeContext,
  texts: { ours: string; base: string; theirs: string },
  labels: MergeLabels = PLAIN_LABELS,
): Promise<{ text: string; conflicts: number }> {
  const { ours, base, theirs } = texts;
  if (ours === base || ours === theirs) return { text: theirs, conflicts: 0 };
  if (theirs === base) return { text: ours, conflicts: 0 };
  // Not the vault's id source: a read or a dry run must not move a seeded one (the demo's, the tests') on.
  const stem = nodePath.join(ctx.stateDir(), `merge-${cryptoIds.base32(10)}`);
  const files = { ours: `${stem}.ours`, base: `${stem}.base`, theirs: `${stem}.theirs` };
  try {
    await ctx.fs.writeNewFile(files.ours, Buffer.from(ours, 'utf8'));
    await ctx.fs.writeNewFile(files.base, Buffer.from(base, 'utf8'));
    await ctx.fs.writeNewFile(files.theirs, Buffer.from(theirs, 'utf8'));
    let failed: unknown = null;
    try {
      await runGit(ctx.repo, ['merge-file', '-L', labels.ours, '-L', labels.base, '-L', labels.theirs, files.ours, files.base, files.theirs]);
    } catch (error) {
      // git merge-file exits with the number of conflicts; the merged text is in the first file either way.
      if (!isVaultError(error, 'io_error')) throw error;
      failed = error;
    }
    const text = (await ctx.fs.readFile(files.ours)).toString('utf8');
    const conflicts = conflictsIn(text, labels.ours);
    if (failed && conflicts === 0) throw failed;
    return { text, conflicts };
  } finally {
    for (const file of Object.values(files)) await ctx.fs.unlink(file).catch(() => undefined);
  }
}

/**
 * {@link mergeFile} for a caller that never shows a conflict: the merged text, or null when any
 * part conflicts (no conflict marker ever leaves here).
 */
export async function mergeClean(ctx: MergeContext, texts: { ours: string; base: string; theirs: string }): Promise<string | null> {
  const merged = await mergeFile(ctx, texts);
  return merged.conflicts > 0 ? null : merged.text;
}
