import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { isChangelogPath } from '../notes/layout';
import { isVaultError, VaultError } from '../errors';
import { diffOutput } from '../git/porcelain';
import { oneLine } from '../text';
import { type StatusEntry, vaultStatus } from '../git/status';
import { decodeNoteBytes } from '../notes/frontmatter';
import { isNoteFile, normalizeVaultPath } from '../notes/paths';
import { readConfined } from '../write/confine-read';
import { maskSecrets } from '../write/secrets';
import type { Vault } from '../vault';
import type { UncommittedFile } from './revert-types';

/** A diff is cut here (the dashboard shows "too big" past its own limit anyway). */
const MAX_DIFF_BYTES = 512 * 1024;
/** Files whose diff is computed, at most; the rest are listed with an empty diff. */
const MAX_DIFFS = 200;

/** The notes that differ from HEAD on disk or in the index (the changelog, dot-folders and other files left out). */
export async function uncommittedNotes(vault: Vault): Promise<StatusEntry[]> {
  return (await vaultStatus(vault.repo, { renames: true })).filter(
    (f) => isNoteFile(f.path) && !isChangelogPath(vault.layout, f.path) && (f.oldPath === null || isNoteFile(f.oldPath)),
  );
}

/**
 * A new file's patch, as git would write it: git has no diff for an untracked file without
 * touching the index. jsdiff writes the hunk; the `diff --git` and mode lines tell diff2html it is new.
 */
function addedPatch(path: string, text: string): string {
  const header = `diff --git a/${path} b/${path}\nnew file mode 100644\n`;
  if (text === '') return header;
  return header + createTwoFilesPatch('/dev/null', `b/${path}`, '', text, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY });
}

async function diffOf(vault: Vault, file: StatusEntry): Promise<string> {
  if (file.status === 'added') {
    let bytes: Buffer;
    try {
      // Confined: a new "note" that is a link out of the vault is never read.
      bytes = (await readConfined(vault.fs, vault.root, file.path)).bytes;
    } catch {
      return '';
    }
    const decoded = decodeNoteBytes(bytes.subarray(0, MAX_DIFF_BYTES));
    if (!decoded.ok) return `diff --git a/${file.path} b/${file.path}\nnew file mode 100644\nBinary files /dev/null and b/${file.path} differ\n`;
    return addedPatch(file.path, decoded.text);
  }
  const paths = file.oldPath ? [file.oldPath, file.path] : [file.path];
  return diffOutput(vault.repo, [
    'HEAD',
    '-M',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '--relative',
    '--',
    ...paths.map((p) => `:(literal)${p}`),
  ]).catch(() => '');
}

/**
 * The vault's notes with changes nobody committed (a person editing in Obsidian): modified,
 * added, deleted, or renamed in the index, each with its unified patch from HEAD to the disk,
 * secrets masked, cut at 512 KiB. Changes the file system, the index and HEAD not at all. The
 * changelog, dot-folders and files other than notes are left out.
 */
export async function listUncommitted(vault: Vault): Promise<UncommittedFile[]> {
  const files = await uncommittedNotes(vault);
  const out: UncommittedFile[] = [];
  for (const [i, file] of files.entries()) {
    const raw = i < MAX_DIFFS ? await diffOf(vault, file) : '';
    const diff = maskSecrets(raw.length > MAX_DIFF_BYTES ? raw.slice(0, MAX_DIFF_BYTES) : raw).text;
    out.push({ path: file.path, status: file.status, diff });
  }
  return out;
}

/**
 * How many notes {@link listUncommitted} would list, from one `git status` and no diff: the cheap
 * count for a notice or a badge. Changes nothing.
 */
export async function countUncommitted(vault: Vault): Promise<number> {
  return (await uncommittedNotes(vault)).length;
}

/**
 * Commits the given uncommitted notes, exactly as they are on disk (present or deleted), as the
 * person's own edit (`human:<name>`, op `update`): one commit with its changelog line, through the
 * one write path under the vault lock. Never discards and never rewrites a file. Refuses, with
 * `invalid_input` and nothing changed, a path that is not one of {@link listUncommitted}'s notes;
 * a rename is committed with both of its paths. What looks like a secret is refused (`forbidden`).
 * Null when `paths` is empty.
 */
export async function commitUncommitted(vault: Vault, input: { paths: string[]; reason?: string }): Promise<{ editId: string; commit: string } | null> {
  if (!input || !Array.isArray(input.paths) || input.paths.some((p) => typeof p !== 'string')) {
    throw new VaultError('invalid_input', 'paths must be a list of vault paths.', { field: 'paths' });
  }
  if (input.reason !== undefined && typeof input.reason !== 'string') throw new VaultError('invalid_input', 'The reason must be text.', { field: 'reason' });
  if (input.paths.length === 0) return null;
  const wanted = [...new Set(input.paths.map((p) => normalizeVaultPath(p)))];
  const files = await uncommittedNotes(vault);
  const byPath = new Map(files.map((f) => [f.path, f]));
  const missing = wanted.filter((p) => !byPath.has(p));
  if (missing.length > 0) {
    throw new VaultError(
      'invalid_input',
      `${missing.slice(0, 5).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not an uncommitted note of this vault (nothing to commit there); nothing was committed.`,
      { paths: missing },
    );
  }
  const paths = [...new Set(wanted.flatMap((p) => [p, byPath.get(p)?.oldPath ?? null]).filter((p): p is string => p !== null))];
  const reason = oneLine(input.reason ?? '') || `committed the edit${paths.length === 1 ? '' : `s of ${paths.length} files`} saved on disk`;
  try {
    const result = await vault.edit({
      actor: vault.person,
      op: 'update',
      path: wanted[0],
      reason,
      changes: paths.map((path) => ({ path, content: null })),
      asOnDisk: true,
    });
    return { editId: result.editId, commit: result.commit };
  } catch (error) {
    // Another process committed them meanwhile: nothing of the person's was lost.
    const clean = isVaultError(error, 'invalid_input') ? error.details?.paths : undefined;
    if (isVaultError(error) && Array.isArray(clean)) {
      throw new VaultError('invalid_input', `${clean.join(', ')} no longer differ from the last commit; nothing was committed.`, error.details);
    }
    throw error;
  }
}
