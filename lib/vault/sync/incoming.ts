import { runGit, vaultPathOf, type GitRepo } from '../git/repo';
import { parseFrontmatter } from '../notes/frontmatter';
import { MAX_NOTE_BYTES } from '../notes/note';
import { isNoteFile } from '../notes/paths';
import { validateFrontmatter } from '../notes/schema';
import type { TreeChange } from '../write/sync-record';

/**
 * A remote's content is untrusted input. `.lucid/` entries (this machine's own state: indexes, the
 * lock, crash records) are refused; symlinks, oversized notes, names that collide by case and front
 * matter that fails the schema are taken, as a person's would be, and reported.
 */

/** Notes whose front matter is checked at most, per sync (the rest are checked by lint as usual). */
const MAX_CHECKED_NOTES = 500;

/** Whether a vault path is inside the vault's `.lucid/` (any case, as a case-insensitive disk sees it). */
function isStatePath(vaultPath: string | null): boolean {
  return vaultPath !== null && vaultPath.split('/')[0].toLowerCase() === '.lucid';
}

/** Splits the remote's changes into those taken and those refused (with why). */
export function refuseIncoming(repo: GitRepo, changes: TreeChange[]): { taken: TreeChange[]; refused: { path: string; why: string }[] } {
  const taken: TreeChange[] = [];
  const refused: { path: string; why: string }[] = [];
  for (const change of changes) {
    const vaultPath = vaultPathOf(repo, change.path);
    if (isStatePath(vaultPath)) {
      refused.push({ path: vaultPath as string, why: ".lucid/ is each machine's own state (indexes, the lock, crash records): never taken from a remote" });
    } else taken.push(change);
  }
  return { taken, refused };
}

/**
 * What to report about the remote's files this sync brought in (`taken`, their paths in `tree`):
 * symbolic links, notes over the size a note may have, front matter that does not parse or breaks
 * its type's rules, and names that differ from another path of the tree only by case.
 */
export async function inspectIncoming(repo: GitRepo, taken: TreeChange[], tree: string): Promise<{ path: string; why: string }[]> {
  const warnings: { path: string; why: string }[] = [];
  const added = taken.filter((c) => c.newBlob !== null && c.newMode !== null);
  const sizes = await blobSizes(
    repo,
    added.map((c) => c.newBlob as string),
  );
  let checked = 0;
  for (const change of added) {
    const path = vaultPathOf(repo, change.path);
    if (path === null) continue;
    const blob = change.newBlob as string;
    if (change.newMode === '120000') {
      const target = (await runGit(repo, ['cat-file', 'blob', blob])).slice(0, 200);
      warnings.push({
        path,
        why: `a symbolic link (to ${target}): git writes it as a link; Lucid never reads or writes through a link that leads out of the vault`,
      });
      continue;
    }
    if (!isNoteFile(path)) continue;
    const size = sizes.get(blob) ?? 0;
    if (size > MAX_NOTE_BYTES) {
      warnings.push({
        path,
        why: `a note of ${(size / 1024 / 1024).toFixed(1)} MiB, over the ${MAX_NOTE_BYTES / 1024 / 1024} MiB a note may have: listed, not read or searched`,
      });
      continue;
    }
    if (checked >= MAX_CHECKED_NOTES) continue;
    checked += 1;
    const parsed = parseFrontmatter((await runGit(repo, ['cat-file', 'blob', blob])).replace(/^\uFEFF/, ''));
    if (!parsed.ok) warnings.push({ path, why: `its front matter does not parse (${parsed.error}); lucid lint lists it until a person fixes it` });
    else {
      const violations = validateFrontmatter(path, parsed.data);
      if (violations.length > 0) warnings.push({ path, why: `it breaks its type's rules: ${violations.map((v) => v.message).join('; ')}` });
    }
  }
  warnings.push(...(await caseCollisions(repo, new Set(added.map((c) => c.path)), tree)));
  return warnings;
}

/** Sizes of blobs, from one `cat-file --batch-check`. */
async function blobSizes(repo: GitRepo, blobs: string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (blobs.length === 0) return sizes;
  const out = await runGit(repo, ['cat-file', '--batch-check'], undefined, `${blobs.join('\n')}\n`);
  for (const line of out.split('\n')) {
    const match = /^([0-9a-f]{40}) blob (\d+)$/.exec(line);
    if (match) sizes.set(match[1], Number(match[2]));
  }
  return sizes;
}

/** Paths brought in that another path of the tree equals but for case (one file on a case-insensitive disk). */
async function caseCollisions(repo: GitRepo, incoming: Set<string>, tree: string): Promise<{ path: string; why: string }[]> {
  if (incoming.size === 0) return [];
  const byFolded = new Map<string, string[]>();
  for (const path of (await runGit(repo, ['ls-tree', '-r', '-t', '--full-tree', '--name-only', '-z', tree])).split('\0').filter(Boolean)) {
    const folded = path.toLowerCase();
    byFolded.set(folded, [...(byFolded.get(folded) ?? []), path]);
  }
  const out: { path: string; why: string }[] = [];
  const reported = new Set<string>();
  for (const file of incoming) {
    // The file and each folder above it: `Notes/a.md` collides with a `notes/` folder too.
    const parts = file.split('/');
    for (let depth = parts.length; depth > 0; depth -= 1) {
      const path = parts.slice(0, depth).join('/');
      const others = (byFolded.get(path.toLowerCase()) ?? []).filter((p) => p !== path);
      const vaultPath = vaultPathOf(repo, path);
      if (others.length === 0 || vaultPath === null || reported.has(path)) continue;
      reported.add(path);
      out.push({
        path: vaultPath,
        why: `its name differs only by case from ${others.join(', ')}: one file on a case-insensitive disk (macOS, Windows); rename one of them`,
      });
    }
  }
  return out;
}
