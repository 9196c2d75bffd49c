import nodePath from 'node:path';
import type { CommitIndex } from '../git/commit-index';
import { type StatusEntry, vaultStatus } from '../git/status';
import type { VaultFile } from '../notes/note';
import { isNoteFile } from '../notes/paths';
import type { Vault } from '../vault';
import type { NoteLookup } from './note-lookup';

/**
 * The vault's notes that differ from HEAD (on disk or in git's index), without a `git status` of
 * the whole tree on every start_session: the first call in a process asks git about the whole
 * vault; later ones ask only about the notes that can have changed since: those whose stamp in the
 * listing (size, mtime) changed or that came or went, and those the commits since then touched (a
 * note's status cannot change while its file, HEAD and git's index stay as they were). git's own index changing while HEAD stayed (a person's `git add`,
 * `git rm --cached`, another process's status) or HEAD moving to a commit that does not descend
 * from the last one (a reset, a checkout) makes it ask about the whole vault again.
 */

/** Beyond this many notes to ask about, one status of the whole vault is cheaper and simpler. */
const MAX_ASKED = 500;
/** Beyond this many commits since the last call, likewise. */
const MAX_COMMITS = 200;

interface Known {
  head: string | null;
  /** The stamp of git's index file right after the last status. */
  gitIndex: string | null;
  /** The listing the last status was taken with, by path. */
  files: readonly VaultFile[];
  byPath: ReadonlyMap<string, VaultFile>;
  /** The notes that differed from HEAD then. */
  entries: StatusEntry[];
}

const known = new WeakMap<Vault, Known>();

/**
 * The notes of the vault (vault paths, `isNoteFile`) whose status differs from HEAD, sorted by
 * path, as `git status --no-renames` gives them. `lookup` holds the listing just taken; `index` is
 * the commit index, up to date with HEAD.
 */
export async function uncommittedNotes(lookup: NoteLookup, index: CommitIndex): Promise<StatusEntry[]> {
  const { vault, files } = lookup;
  const head = index.list({ limit: 1 })[0]?.sha ?? null;
  const before = known.get(vault);
  const asked = before ? changedSince(before, lookup, head, index, await gitIndexStamp(vault)) : null;
  let entries: StatusEntry[];
  if (asked === null) {
    entries = (await vaultStatus(vault.repo, { renames: false })).filter((e) => isNoteFile(e.path));
  } else if (asked.size === 0) {
    entries = before?.entries ?? [];
  } else {
    const fresh = await vaultStatus(vault.repo, { renames: false, paths: [...asked] });
    entries = [...(before?.entries ?? []).filter((e) => !asked.has(e.path)), ...fresh.filter((e) => isNoteFile(e.path))].sort((a, b) =>
      a.path.localeCompare(b.path),
    );
  }
  known.set(vault, { head, gitIndex: await gitIndexStamp(vault), files, byPath: lookup.byPath, entries });
  return entries;
}

/** The notes whose status may differ from what `before` knew; null when only a status of the whole vault can tell. */
function changedSince(before: Known, { files, byPath }: NoteLookup, head: string | null, index: CommitIndex, gitIndex: string | null): Set<string> | null {
  const asked = new Set<string>();
  if (head !== before.head) {
    const from = before.head === null ? null : index.bySha(before.head);
    if (!from) return null;
    const commits = index.list({ afterSeq: from.seq, limit: MAX_COMMITS + 1 });
    if (commits.length > MAX_COMMITS) return null;
    for (const c of commits) for (const p of c.paths) for (const path of [p.path, p.oldPath]) if (path && isNoteFile(path)) asked.add(path);
  } else if (gitIndex !== before.gitIndex) {
    return null;
  }
  if (files !== before.files) {
    let seen = 0;
    for (const f of files) {
      const was = before.byPath.get(f.path);
      if (was !== undefined) seen += 1;
      if ((was === undefined || was.mtimeMs !== f.mtimeMs || was.size !== f.size) && isNoteFile(f.path)) asked.add(f.path);
      if (asked.size > MAX_ASKED) return null;
    }
    // Files that went: a note deleted on disk.
    if (seen < before.byPath.size) for (const path of before.byPath.keys()) if (!byPath.has(path) && isNoteFile(path)) asked.add(path);
  }
  return asked.size > MAX_ASKED ? null : asked;
}

/** The stamp of git's index file (`<gitDir>/index`), or null when there is none. */
async function gitIndexStamp(vault: Vault): Promise<string | null> {
  try {
    const stat = await vault.fs.lstat(nodePath.join(vault.repo.gitDir, 'index'));
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    return null;
  }
}
