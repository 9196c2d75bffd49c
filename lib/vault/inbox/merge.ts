import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { mergeFile } from '../git/merge-file';
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

/**
 * The three-way merge of what the person changed (base -> current) and what the agent proposes
 * (base -> proposal), by `git merge-file` on scratch files in the vault's state folder (removed
 * after). Where both sides changed the same lines the text holds git's conflict markers, labelled
 * with {@link MERGE_LABELS}, and `conflicts` counts them.
 */
export async function threeWayMerge(vault: Vault, base: string, current: string, proposal: string): Promise<{ text: string; conflicts: number }> {
  return mergeFile(vault, { ours: current, base, theirs: proposal }, { ours: MERGE_LABELS.current, base: MERGE_LABELS.base, theirs: MERGE_LABELS.proposal });
}
