import { CONFIG_FILE, isChangelogPath, type VaultLayout } from '../notes/layout';
import { isVaultError, VaultError } from '../errors';
import { formatDate } from '../ids';
import { hashBytes, parseFrontmatter, setFrontmatterFields } from '../notes/frontmatter';
import { basenameOf, normalizeVaultPath } from '../notes/paths';
import { assertProtectedPath } from '../notes/protected';
import { mergeClean } from '../git/merge-file';
import { blobId, headState, runGit } from '../git/repo';
import type { CommitRecord } from '../git/commit-index';
import type { Vault } from '../vault';

/**
 * The reverse of one commit's note changes, computed file by file as a three-way merge onto HEAD
 * (git 2.39 has neither `merge-tree --merge-base` nor `merge-file --object-id`): for each file the
 * commit changed, base = the commit's version, ours = HEAD's, theirs = the version before the
 * commit. Nothing here writes to the vault: only git objects and scratch files in `.lucid/`.
 */

/** One file the commit changed, as `git diff-tree --raw` names it. */
export interface RawChange {
  status: string;
  oldMode: string;
  newMode: string;
  oldBlob: string;
  newBlob: string;
  /** The path after the commit (for a deletion: the deleted path). */
  path: string;
  /** For a rename: the path before it. */
  oldPath: string | null;
}

/** One file the revert writes (text) or deletes (null). */
export interface Target {
  path: string;
  content: string | null;
  /** The git mode to stage it with in the temporary index. */
  mode: string;
  /**
   * sha256 of the bytes HEAD held at `path` when the reverse was computed (null: absent): the
   * write's expectedHash, so an edit committed after this read is a conflict, never overwritten.
   */
  headHash: string | null;
}

/** What reversing a commit comes to, before anything is checked on disk. */
export interface Reversal {
  targets: Target[];
  /** Paths whose reverse does not merge onto HEAD. */
  conflicts: string[];
  /** Set when the commit can never be reverted. */
  refused: string | null;
  /** Files the commit changed that a revert leaves alone (Obsidian's settings, lucid.json): named in the message. */
  leftAlone: string[];
  /** For a molt: the skill's name and its version now (the revert molts it to version + 1). */
  molt: { path: string; name: string; from: number } | null;
}

const LINK_OR_MODULE = new Set(['120000', '160000']);

/** Parses `git diff-tree -r -M --raw -z --no-abbrev` output (one commit, no commit ids). */
export function parseRawDiff(output: string): RawChange[] {
  const tokens = output.split('\0');
  const out: RawChange[] = [];
  for (let i = 0; i < tokens.length; ) {
    const head = tokens[i];
    if (!head.startsWith(':')) {
      i += 1;
      continue;
    }
    const [oldMode, newMode, oldBlob, newBlob, status] = head.slice(1).split(' ');
    const kind = status[0];
    if (kind === 'R' || kind === 'C') {
      out.push({ status: kind, oldMode, newMode, oldBlob, newBlob, oldPath: tokens[i + 1], path: tokens[i + 2] });
      i += 3;
    } else {
      out.push({ status: kind, oldMode, newMode, oldBlob, newBlob, oldPath: null, path: tokens[i + 1] });
      i += 2;
    }
  }
  return out;
}

/** The files `commit` changed, paths relative to the vault (renames detected). */
async function changesOf(vault: Vault, commit: string): Promise<RawChange[]> {
  const output = await runGit(vault.repo, ['diff-tree', '-r', '-M', '--raw', '-z', '--no-abbrev', '--no-commit-id', '--root', '--relative', commit, '--']);
  return parseRawDiff(output);
}

/**
 * Whether a revert may write `path` at all: not the changelog (in any spelling), lucid.json,
 * Obsidian's folders or the trash, which the write path refuses; those are left alone.
 */
function writable(layout: VaultLayout, path: string): boolean {
  if (path === CONFIG_FILE) return false;
  try {
    assertProtectedPath(layout, 'human:revert', 'revert', normalizeVaultPath(path, { forWrite: true }));
    return true;
  } catch {
    return false;
  }
}

/** Splits a rename whose one side a revert may not write into a deletion and an addition. */
function split(layout: VaultLayout, change: RawChange): RawChange[] {
  if (change.status !== 'R' || !change.oldPath) return [change];
  if (writable(layout, change.oldPath) && writable(layout, change.path)) return [change];
  return [
    { ...change, status: 'D', path: change.oldPath, oldPath: null, newMode: '000000', newBlob: '0'.repeat(40) },
    { ...change, status: 'A', oldPath: null, oldMode: '000000', oldBlob: '0'.repeat(40) },
  ];
}

/**
 * Computes the reverse of `commit`'s note changes onto HEAD. Refuses merges, Lucid's init,
 * commits that only touched the changelog, links and submodules, binary files, and a create whose
 * note changed since; reports every other file that does not merge as a conflict.
 */
export async function reverseCommit(vault: Vault, commit: CommitRecord): Promise<Reversal> {
  const result: Reversal = { targets: [], conflicts: [], refused: null, leftAlone: [], molt: null };
  const refuse = (sentence: string): Reversal => ({ ...result, targets: [], conflicts: [], molt: null, refused: sentence });
  if (commit.parents > 1) return refuse('It is a merge commit: revert the commits it brought in one by one instead.');
  if (commit.actor && commit.op === 'init') return refuse("It is Lucid's init commit, which installed Lucid in this vault; it cannot be reverted.");
  const all = (await changesOf(vault, commit.sha)).flatMap((c) => split(vault.layout, c));
  const notes = all.filter((c) => !isChangelogPath(vault.layout, c.path) && !(c.oldPath && isChangelogPath(vault.layout, c.oldPath)));
  if (all.length > 0 && notes.length === 0) return refuse('It only touched the changelog, which is never reverted (each edit keeps its line).');
  const odd = notes.find((c) => c.status === 'T' || LINK_OR_MODULE.has(c.oldMode) || LINK_OR_MODULE.has(c.newMode));
  if (odd) return refuse(`It changed ${odd.path}, a symbolic link or submodule, which Lucid does not write; revert it with git.`);
  const changes = notes.filter((c) => writable(vault.layout, c.path) && (!c.oldPath || writable(vault.layout, c.oldPath)));
  result.leftAlone = notes.filter((c) => !changes.includes(c)).map((c) => c.path);
  if (changes.length === 0) {
    return refuse(
      notes.length === 0
        ? 'It changed no files.'
        : `It only changed files Lucid does not write (${result.leftAlone.slice(0, 3).join(', ')}); revert it with git.`,
    );
  }

  const paths = changes.flatMap((c) => (c.oldPath ? [c.oldPath, c.path] : [c.path]));
  const { blobs: head } = await headState(vault.repo, paths);
  const texts = new Map<string, string>();
  const text = async (blob: string, path: string): Promise<string> => {
    const known = texts.get(blob);
    if (known !== undefined) return known;
    const content = await runGit(vault.repo, ['cat-file', 'blob', blob]);
    // The bytes git gave back must be this exact blob: binary or invalid UTF-8 would not survive as text.
    if (content.includes('\u0000') || blobId(Buffer.from(content, 'utf8')) !== blob) {
      throw new VaultError('binary', `${path} is not text (binary bytes or invalid UTF-8); revert this commit with git.`, { path });
    }
    texts.set(blob, content);
    return content;
  };
  const headHash = async (path: string): Promise<string | null> => {
    const blob = head.get(path);
    return blob === undefined ? null : hashBytes(Buffer.from(await text(blob, path), 'utf8'));
  };
  const target = async (path: string, content: string | null, mode: string): Promise<Target> => ({ path, content, mode, headHash: await headHash(path) });

  /** The text HEAD's version of a changed file takes with the change undone (null: it conflicts). */
  const undone = async (change: RawChange, now: string, before: string): Promise<string | null> =>
    now === change.newBlob
      ? text(change.oldBlob, before)
      : mergeClean(vault, { ours: await text(now, change.path), base: await text(change.newBlob, change.path), theirs: await text(change.oldBlob, before) });

  const created = commit.actor !== null && (commit.op === 'create' || commit.op === 'molt');
  try {
    for (const change of changes) {
      const now = head.get(change.path);
      if (change.status === 'A' || change.status === 'C') {
        if (now === undefined) continue;
        if (now === change.newBlob) result.targets.push(await target(change.path, null, change.newMode));
        else if (created)
          return refuse(
            `${change.path} was changed since it was created, so reverting the create would delete that work; delete the note yourself if you mean to.`,
          );
        else result.conflicts.push(change.path);
      } else if (change.status === 'D') {
        if (now === change.oldBlob) continue;
        if (now === undefined) result.targets.push(await target(change.path, await text(change.oldBlob, change.path), change.oldMode));
        else result.conflicts.push(change.path);
      } else if (change.status === 'M' && commit.actor !== null && commit.op === 'molt') {
        const molt = await reverseMolt(vault, change, now, text);
        if (molt === null) result.conflicts.push(change.path);
        else {
          result.targets.push(await target(change.path, molt.text, change.newMode));
          result.molt = { path: change.path, name: basenameOf(change.path), from: molt.from };
        }
      } else if (change.status === 'M') {
        if (now === change.oldBlob) continue;
        if (now === undefined) {
          result.conflicts.push(change.path);
          continue;
        }
        const merged = await undone(change, now, change.path);
        if (merged === null) result.conflicts.push(change.path);
        else result.targets.push(await target(change.path, merged, change.newMode));
      } else if (change.status === 'R' && change.oldPath) {
        const before = head.get(change.oldPath);
        if (now === undefined || before !== undefined) {
          result.conflicts.push(now === undefined ? change.path : change.oldPath);
          continue;
        }
        const merged = await undone(change, now, change.oldPath);
        if (merged === null) result.conflicts.push(change.path);
        else result.targets.push(await target(change.path, null, change.newMode), await target(change.oldPath, merged, change.oldMode));
      }
    }
  } catch (error) {
    if (isVaultError(error, 'binary') || isVaultError(error, 'invalid_frontmatter') || isVaultError(error, 'schema_violation')) return refuse(error.message);
    throw error;
  }
  return result;
}

/**
 * A molt reverted is a new molt: the skill's text goes back to what it was before the molt (merged
 * three-way with later molts, the version fields set aside), then its version rises by one from
 * the version it has now, `last_updated` and `updated` today. Null when the texts conflict.
 */
async function reverseMolt(
  vault: Vault,
  change: RawChange,
  now: string | undefined,
  text: (blob: string, path: string) => Promise<string>,
): Promise<{ text: string; from: number } | null> {
  if (now === undefined) return null;
  const current = await text(now, change.path);
  const parsed = parseFrontmatter(current);
  const from = parsed.ok ? Number(parsed.data.version) : Number.NaN;
  if (!parsed.ok || !Number.isInteger(from) || from < 1) {
    throw new VaultError('schema_violation', `${change.path} has no valid version now, so it cannot be molted; a person must fix it first.`);
  }
  // Later molts' version lines are not a conflict: both sides get the version fields HEAD has.
  const fields = { version: parsed.data.version, last_updated: parsed.data.last_updated, updated: parsed.data.updated };
  const base = setFrontmatterFields(await text(change.newBlob, change.path), fields);
  const theirs = setFrontmatterFields(await text(change.oldBlob, change.path), fields);
  const merged = await mergeClean(vault, { ours: current, base, theirs });
  if (merged === null) return null;
  const today = formatDate(vault.clock());
  return { text: setFrontmatterFields(merged, { version: from + 1, last_updated: today, updated: today }), from };
}
