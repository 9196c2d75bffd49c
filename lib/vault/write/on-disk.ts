import { VaultError } from '../errors';
import { assertWritableRepo, blobId, headState, showFile, worktreeBlobs, type GitRepo } from '../git/repo';
import { hashBytes } from '../notes/frontmatter';
import { commitLocked, readCurrent, type Current, type WriteContext } from './commit';
import { resolveForWrite } from './confine';
import type { EditRequest, EditResult, FileChange } from './edit-types';
import { findAddedSecrets, findSecrets, secretRefusal } from './secrets';

/**
 * The write path's dealings with what is on disk and not committed: the hash an edit was based on,
 * a person's uncommitted files (found, checked for secrets, committed as theirs as they are).
 */

/** An edit's request checked and normalized by editVault, before the lock: what one attempt commits. */
export interface CheckedEdit {
  changes: FileChange[];
  subjectPath: string;
  reason: string;
  trailers: [string, string][];
}

/**
 * A person's own uncommitted version of files, committed as it is on disk (present or deleted) as
 * their edit with its changelog line (`asOnDisk`): nothing is written but the changelog. Refuses
 * another actor, a path whose bytes are HEAD's, and what looks like a secret.
 */
export async function commitOnDiskLocked(ctx: WriteContext, request: EditRequest, input: CheckedEdit, assertHeld: () => void): Promise<EditResult> {
  if (request.actor !== ctx.person) throw new VaultError('forbidden', `Only ${ctx.person} commits their own uncommitted work as it is on disk.`);
  await assertWritableRepo(ctx.repo, ctx.fs);
  const files: [string, Current | null][] = [];
  for (const change of input.changes) {
    const current = await readCurrent(ctx.fs, await resolveForWrite(ctx.fs, ctx.root, change.path));
    checkExpectedHash(change, current);
    files.push([change.path, current]);
  }
  const changelogAbs = await resolveForWrite(ctx.fs, ctx.root, ctx.layout.changelog);
  const changelog = await readCurrent(ctx.fs, changelogAbs);
  const { head, blobs } = await headState(ctx.repo, [...files.map(([path]) => path), ctx.layout.changelog]);
  const dirty = await uncommittedPaths(ctx.repo, blobs, files);
  const clean = files.map(([path]) => path).filter((path) => !dirty.includes(path));
  if (clean.length > 0) {
    throw new VaultError('invalid_input', `${clean.join(', ')} ${clean.length === 1 ? 'has' : 'have'} no uncommitted changes: nothing to commit there.`, {
      paths: clean,
    });
  }
  await refuseUncommittedSecrets(ctx, head, files, dirty);
  const { editId, commit } = await commitLocked(ctx, {
    actor: request.actor,
    op: request.op,
    path: input.subjectPath,
    reason: input.reason,
    session: request.session,
    writes: [],
    alsoCommit: files.filter(([path]) => dirty.includes(path)),
    trailers: input.trailers,
    parent: head,
    changelog: { abs: changelogAbs, current: changelog },
    headBlobs: blobs,
    assertHeld,
  });
  const hashes: Record<string, string | null> = {};
  for (const [path, current] of files) {
    hashes[path] = current ? hashBytes(current.bytes) : null;
    ctx.afterWrite(path);
  }
  return { editId, commit, hashes, savedPersonCommit: null, savedPersonPaths: [] };
}

/** Refuses a change whose file no longer has the hash it was based on (`conflict`, naming both hashes). */
export function checkExpectedHash(change: FileChange, current: Current | null): void {
  if (change.expectedHash !== undefined) {
    const currentHash = current ? hashBytes(current.bytes) : null;
    if (change.expectedHash === null && currentHash !== null) {
      throw new VaultError('conflict', `${change.path} already exists.`, { path: change.path, currentHash });
    }
    if (change.expectedHash !== null && currentHash !== change.expectedHash) {
      throw new VaultError(
        'conflict',
        currentHash === null
          ? `${change.path} was deleted since you read it.`
          : `${change.path} changed since you read it (expected hash ${change.expectedHash.slice(0, 12)}…, now ${currentHash.slice(0, 12)}…). Read it again and redo the change.`,
        { path: change.path, currentHash },
      );
    }
  }
}

/**
 * Those of `files` whose bytes on disk differ from HEAD (a person's uncommitted work). A file
 * whose bytes are HEAD's blob is clean without asking git; the others are hashed by git itself,
 * so line-ending filters (autocrlf, text=auto) count as no change.
 */
export async function uncommittedPaths(
  repo: GitRepo,
  committed: Map<string, string>,
  files: readonly (readonly [string, Current | null])[],
): Promise<string[]> {
  const seen = new Set<string>();
  const dirty = new Set<string>();
  const suspects: string[] = [];
  for (const [path, current] of files) {
    if (seen.has(path)) continue;
    seen.add(path);
    const inHead = committed.get(path) ?? null;
    if (!current) {
      if (inHead !== null) dirty.add(path);
    } else if (inHead === null || blobId(current.bytes) !== inHead) {
      suspects.push(path);
    }
  }
  const onDisk = await worktreeBlobs(repo, suspects);
  for (const path of suspects) if ((onDisk.get(path) ?? null) !== (committed.get(path) ?? null)) dirty.add(path);
  return [...seen].filter((path) => dirty.has(path));
}

/**
 * Refuses to save a person's uncommitted version of a file when what it adds to HEAD's version looks
 * like a secret: Lucid never commits one, not even as the person's own edit. HEAD's version is read
 * (one git process) only when the file holds a finding at all.
 */
export async function refuseUncommittedSecrets(
  ctx: WriteContext,
  head: string | null,
  files: readonly (readonly [string, Current | null])[],
  dirty: readonly string[],
): Promise<void> {
  for (const [path, current] of files) {
    if (!current || !dirty.includes(path)) continue;
    const text = current.bytes.toString('utf8');
    if (findSecrets(text).length === 0) continue;
    const committed = head ? await showFile(ctx.repo, head, path) : null;
    const added = findAddedSecrets(committed, text);
    if (added.length > 0) throw secretRefusal('uncommitted', path, text, added);
  }
}
