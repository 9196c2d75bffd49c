import { isChangelogPath } from '../notes/layout';
import { isVaultError } from '../errors';
import { parseRawDiff, type RawChange } from '../history/reverse';
import { formatDate } from '../ids';
import { hashBytes, parseFrontmatter, setFrontmatterFields } from '../notes/frontmatter';
import { basenameOf } from '../notes/paths';
import { mergeClean } from '../git/merge-file';
import { runGit } from '../git/repo';
import type { FileChange } from '../write/edit-types';
import type { Vault } from '../vault';

/**
 * What landing one change of a dream branch on the vault's current text comes to: each file the
 * branch commit changed is rebased by a three-way merge of the commit's own patch (its parent's
 * version -> its version) onto the file as it is on disk now, a person's uncommitted version
 * included (the write path commits that as theirs first). Nothing is ever forced: a conflict, a
 * file moved or deleted since, a file that now exists where the change adds one, is a reason the
 * change no longer applies. Reads git objects and files; writes nothing but merge scratch files.
 */

/** A change that can land: the files to write, with the hash each must still have. */
export interface ChangeLanding {
  ok: true;
  changes: FileChange[];
  /** Some file changed since the run: the landed text merges the change onto that later text. */
  rebased: boolean;
  /** A skill whose version the change raises, raised again from its version now (the Lucid-Molt trailer's numbers). */
  versions: { name: string; from: number; to: number }[];
}

/** Why a change no longer applies, in one sentence a person can act on. */
export interface ChangeRefusal {
  ok: false;
  why: string;
}

/** The files a branch commit changed (renames detected), paths relative to the vault, the changelog left out. */
export async function changedFiles(vault: Vault, sha: string): Promise<RawChange[]> {
  const raw = await runGit(vault.repo, ['diff-tree', '-r', '-M', '--raw', '-z', '--no-abbrev', '--no-commit-id', '--root', '--relative', sha, '--']);
  return parseRawDiff(raw).filter((c) => !isChangelogPath(vault.layout, c.path) && !(c.oldPath && isChangelogPath(vault.layout, c.oldPath)));
}

/** A file as it is on disk now: its text and sha256, or null when absent. */
interface OnDisk {
  text: string;
  hash: string;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

class NotApplicable extends Error {}

async function onDisk(vault: Vault, path: string): Promise<OnDisk | null> {
  let bytes: Buffer;
  try {
    bytes = await vault.readFileBytes(path);
  } catch (error) {
    if (isVaultError(error, 'not_found')) return null;
    if (isVaultError(error)) throw new NotApplicable(`${path} cannot be read now: ${error.message}`);
    throw error;
  }
  try {
    return { text: utf8.decode(bytes), hash: hashBytes(bytes) };
  } catch {
    throw new NotApplicable(`${path} is not text now (binary bytes or invalid UTF-8).`);
  }
}

async function blobText(vault: Vault, blob: string, path: string): Promise<string> {
  const text = await runGit(vault.repo, ['cat-file', 'blob', blob]);
  if (text.includes('\u0000')) throw new NotApplicable(`${path} on the dream branch is not text.`);
  return text;
}

const versionOf = (text: string): number | null => {
  const parsed = parseFrontmatter(text);
  const version = parsed.ok ? Number(parsed.data.version) : Number.NaN;
  return Number.isInteger(version) ? version : null;
};

/**
 * The change from `base` to `theirs` applied onto `ours`; null on a conflict. A change that raises
 * a note's `version` (a molt, the survivor of a merge) raises it from the version the note has now:
 * the version fields are set aside for the merge (later molts are not a conflict), then set to
 * now's version plus the change's step, `last_updated` (and `updated`, when the change sets it) today.
 */
async function rebaseText(
  vault: Vault,
  path: string,
  base: string,
  ours: string,
  theirs: string,
): Promise<{ text: string; version: { from: number; to: number } | null } | null> {
  if (ours === base) return { text: theirs, version: null };
  if (ours === theirs) return { text: ours, version: null };
  const [vBase, vTheirs, vOurs] = [versionOf(base), versionOf(theirs), versionOf(ours)];
  if (path.toLowerCase().endsWith('.md') && vBase !== null && vTheirs !== null && vOurs !== null && vBase !== vTheirs) {
    const now = parseFrontmatter(ours);
    const fields = now.ok ? { version: now.data.version, last_updated: now.data.last_updated, updated: now.data.updated } : {};
    const merged = await mergeClean(vault, { ours, base: setFrontmatterFields(base, fields), theirs: setFrontmatterFields(theirs, fields) });
    if (merged === null) return null;
    const today = formatDate(vault.clock());
    const to = vOurs + (vTheirs - vBase);
    const after = parseFrontmatter(theirs);
    const setsUpdated = after.ok && after.data.updated !== undefined;
    const text = setFrontmatterFields(merged, { version: to, last_updated: today, ...(setsUpdated ? { updated: today } : {}) });
    return { text, version: { from: vOurs, to } };
  }
  const merged = await mergeClean(vault, { ours, base, theirs });
  return merged === null ? null : { text: merged, version: null };
}

/**
 * Plans landing the branch commit `sha` on the vault as it is now (see the file comment). Returns
 * the files to write, each with the sha256 it was read with (its `expectedHash`, so an edit landing
 * in between is a conflict, never overwritten), or why the change no longer applies. `known`: the
 * commit's files when the caller read them already ({@link changedFiles}).
 */
export async function planDreamChange(vault: Vault, sha: string, known?: RawChange[]): Promise<ChangeLanding | ChangeRefusal> {
  try {
    const files = known ?? (await changedFiles(vault, sha));
    if (files.length === 0) return { ok: false, why: 'It changes no note (only the changelog): nothing to land.' };
    const changes: FileChange[] = [];
    const versions: ChangeLanding['versions'] = [];
    let rebased = false;
    const rebase = async (path: string, base: string, ours: OnDisk, theirs: string): Promise<string> => {
      const merged = await rebaseText(vault, path, base, ours.text, theirs);
      if (merged === null) throw new NotApplicable(`${path} was edited since the dream run on the same lines this change rewrites.`);
      if (ours.text !== base) rebased = true;
      if (merged.version) versions.push({ name: basenameOf(path), ...merged.version });
      return merged.text;
    };
    for (const file of files) {
      if (file.status === 'A' || file.status === 'C') {
        const [theirs, ours] = [await blobText(vault, file.newBlob, file.path), await onDisk(vault, file.path)];
        if (ours === null) changes.push({ path: file.path, content: theirs, expectedHash: null });
        else if (ours.text !== theirs) throw new NotApplicable(`${file.path}, which this change adds, exists now with other content.`);
      } else if (file.status === 'D') {
        const [base, ours] = [await blobText(vault, file.oldBlob, file.path), await onDisk(vault, file.path)];
        if (ours === null) continue;
        if (ours.text !== base) throw new NotApplicable(`${file.path} was edited since the dream run; removing it would lose that edit.`);
        changes.push({ path: file.path, content: null, expectedHash: ours.hash });
      } else if (file.status === 'M') {
        const ours = await onDisk(vault, file.path);
        if (ours === null) throw new NotApplicable(`${file.path} was moved or deleted since the dream run.`);
        const text = await rebase(file.path, await blobText(vault, file.oldBlob, file.path), ours, await blobText(vault, file.newBlob, file.path));
        if (text !== ours.text) changes.push({ path: file.path, content: text, expectedHash: ours.hash });
      } else if (file.status === 'R' && file.oldPath) {
        const [ours, there] = [await onDisk(vault, file.oldPath), await onDisk(vault, file.path)];
        const theirs = await blobText(vault, file.newBlob, file.path);
        if (ours === null) {
          if (there !== null && there.text === theirs) continue;
          throw new NotApplicable(`${file.oldPath} was moved or deleted since the dream run.`);
        }
        if (there !== null) throw new NotApplicable(`${file.path}, where this change moves ${file.oldPath}, exists now.`);
        const text = await rebase(file.path, await blobText(vault, file.oldBlob, file.oldPath), ours, theirs);
        changes.push({ path: file.oldPath, content: null, expectedHash: ours.hash }, { path: file.path, content: text, expectedHash: null });
      } else {
        throw new NotApplicable(`${file.path} changed kind on the dream branch (a link or a submodule), which Lucid does not land.`);
      }
    }
    if (changes.length === 0) return { ok: false, why: 'Its changes are already in the vault: nothing to land. Dismiss it to settle the run.' };
    return { ok: true, changes, rebased, versions };
  } catch (error) {
    if (error instanceof NotApplicable) return { ok: false, why: error.message };
    if (isVaultError(error, 'invalid_frontmatter') || isVaultError(error, 'schema_violation') || isVaultError(error, 'binary')) {
      return { ok: false, why: error.message };
    }
    throw error;
  }
}
