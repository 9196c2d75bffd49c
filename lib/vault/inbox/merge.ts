import nodePath from 'node:path';
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { isVaultError } from '../errors';
import { runGit } from '../git/repo';
import { cryptoIds } from '../ids';
import type { Vault } from '../vault';

/** The labels git writes after the conflict markers, so the person knows which side is which. */
const MERGE_LABELS = { current: 'the note now', base: 'when proposed', proposal: 'the proposal' } as const;

/**
 * A unified patch from `before` to `after`, both files named `path` (diff2html draws it), with three
 * lines of context; '' when nothing differs.
 */
export function unifiedDiff(path: string, before: string, after: string): string {
  if (before === after) return '';
  // Without jsdiff's "Index:" and "===" lines: diff2html reads a patch from its `---` line.
  return createTwoFilesPatch(path, path, before, after, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY });
}

/** How many conflicts a text merged by git holds: its `<<<<<<< <label>` lines. */
function conflictsIn(text: string): number {
  const opening = `<<<<<<< ${MERGE_LABELS.current}`;
  let count = 0;
  for (const line of text.split('\n')) if (line.replace(/\r$/, '') === opening) count += 1;
  return count;
}

/**
 * The three-way merge of what the person changed (base -> current) and what the agent proposes
 * (base -> proposal), by `git merge-file` through the vault's git runner, on temp files in the
 * vault's state folder (removed after). Where both sides changed the same lines the text holds
 * git's conflict markers, labelled with {@link MERGE_LABELS}, and `conflicts` counts them.
 */
export async function threeWayMerge(vault: Vault, base: string, current: string, proposal: string): Promise<{ text: string; conflicts: number }> {
  if (current === base || current === proposal) return { text: proposal, conflicts: 0 };
  if (proposal === base) return { text: current, conflicts: 0 };
  // Not the vault's id source: a read must not move a seeded one (the demo's, the tests') on.
  const dir = nodePath.join(vault.stateDir(), `merge-${cryptoIds.base32(10)}`);
  await vault.fs.mkdir(dir);
  try {
    const files = { current: nodePath.join(dir, 'current'), base: nodePath.join(dir, 'base'), proposal: nodePath.join(dir, 'proposal') };
    await vault.fs.writeNewFile(files.current, Buffer.from(current, 'utf8'));
    await vault.fs.writeNewFile(files.base, Buffer.from(base, 'utf8'));
    await vault.fs.writeNewFile(files.proposal, Buffer.from(proposal, 'utf8'));
    const args = ['merge-file', '-L', MERGE_LABELS.current, '-L', MERGE_LABELS.base, '-L', MERGE_LABELS.proposal, files.current, files.base, files.proposal];
    let failed: unknown = null;
    try {
      await runGit(vault.repo, args);
    } catch (error) {
      // git merge-file exits with the number of conflicts; the merged text is in the first file either way.
      if (!isVaultError(error, 'io_error')) throw error;
      failed = error;
    }
    const text = (await vault.fs.readFile(files.current)).toString('utf8');
    const conflicts = conflictsIn(text);
    if (failed && conflicts === 0) throw failed;
    return { text, conflicts };
  } finally {
    await removeDir(vault, dir);
  }
}

async function removeDir(vault: Vault, dir: string): Promise<void> {
  for (const entry of await vault.fs.readdir(dir).catch(() => [])) await vault.fs.unlink(nodePath.join(dir, entry.name)).catch(() => undefined);
  await vault.fs.rmdir(dir).catch(() => undefined);
}
