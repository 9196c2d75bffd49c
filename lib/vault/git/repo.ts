import { createHash } from 'node:crypto';
import nodePath from 'node:path';
import { isVaultError, VaultError } from '../errors';
import { TEMP_PREFIX, normalizeVaultPath } from '../notes/paths';
import { nodeFs, type VaultFs } from '../fs';
import { gitEnv } from './env';
import { showOutput } from './porcelain';
import { GitProcessError, gitFailureError, spawnGit, type GitRunner } from './runner';

/**
 * The module that talks to git, through one {@link GitRunner} kept on the repository object (the
 * porcelain reads a page shows, patches and diffs, go through simple-git in porcelain.ts). Every
 * user path goes after `--` (or into a literal pathspec or a `HEAD:<path>` object name on stdin);
 * refs are validated.
 */

const SHA = /^[0-9a-f]{40}$/;
/** How long a write waits for another git process's index.lock before it gives up and names it. */
const INDEX_LOCK_WAIT_MS = 2000;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** Who a commit is attributed to, as git author and committer. */
export interface GitIdentity {
  name: string;
  email: string;
}

/** A git repository that holds the vault, possibly in a subfolder (`prefix`). */
export interface GitRepo {
  /** The vault folder (canonical). */
  root: string;
  /** The repository's work-tree top. */
  top: string;
  /** The vault's folder inside the repository, '' or ending in '/'. */
  prefix: string;
  /** The .git folder (absolute). */
  gitDir: string;
  /** The environment git runs with (passed in by the caller; the vault never reads the environment itself). */
  env: Record<string, string | undefined>;
  /** What starts the plumbing git processes (the real one unless a test passes its own); simple-git's reads do not go through it. */
  run: GitRunner;
}

/** Where and how to run git before a {@link GitRepo} exists (`lucid init`, the demo). */
export type GitTarget = Pick<GitRepo, 'root' | 'env'> & { run?: GitRunner };

function spawnIn(repo: GitTarget, args: string[], extraEnv?: Record<string, string>, input?: string): Promise<string> {
  return (repo.run ?? spawnGit)({ args, cwd: repo.root, env: gitEnv(repo.env, extraEnv), input });
}

/** Runs git with the given arguments in the vault folder and returns stdout; a failure is a VaultError. */
export async function runGit(repo: GitTarget, args: string[], extraEnv?: Record<string, string>, input?: string): Promise<string> {
  try {
    return await spawnIn(repo, args, extraEnv, input);
  } catch (error) {
    if (isVaultError(error)) throw error; // the runner's timeout already says what happened
    const message = error instanceof GitProcessError ? error.stderr || error.message : ((error as Error).message ?? String(error));
    throw gitFailureError(args[0], message);
  }
}

/** Whether a git command exits 0 (for questions git answers with its exit code). */
export async function gitSucceeds(repo: GitTarget, args: string[]): Promise<boolean> {
  return spawnIn(repo, args).then(
    () => true,
    () => false,
  );
}

/**
 * Opens the repository that holds `root`. Throws `not_a_repo` with what to do when there is none.
 */
export async function openRepo(root: string, env: Record<string, string | undefined>, run: GitRunner = spawnGit): Promise<GitRepo> {
  let out: string;
  try {
    out = await spawnIn({ root, env, run }, ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--show-prefix']);
  } catch {
    throw new VaultError('not_a_repo', `${root} is not a git repository. Run \`lucid init ${root}\` to make it a Lucid vault (it runs git init).`);
  }
  const [top, gitDir, prefix = ''] = out.split('\n');
  return { root, top, gitDir, prefix: prefix.trim(), env, run };
}

/** Validates a commit id given by a user or a URL: only full hex SHAs of this repository. */
async function resolveCommit(repo: GitRepo, ref: string): Promise<string> {
  if (!SHA.test(ref)) throw new VaultError('invalid_input', 'A commit is named by its full 40-character id.');
  try {
    const type = (await spawnIn(repo, ['cat-file', '-t', '--end-of-options', ref])).trim();
    if (type === 'commit') return ref;
  } catch {
    // falls through
  }
  throw new VaultError('not_found', `No commit ${ref} in this vault.`);
}

/** HEAD's commit, or null in a repository with no commits yet. */
export async function headCommit(repo: GitRepo): Promise<string | null> {
  try {
    const out = await spawnIn(repo, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
    return out.trim() || null;
  } catch {
    return null;
  }
}

/**
 * Refuses writes while the repository is mid-merge, mid-rebase, on a detached HEAD, holds
 * unmerged paths or another git process holds its index lock; the message names the state.
 * Two git processes (symbolic-ref, ls-files --unmerged); the rest are file checks in .git/.
 */
export async function assertWritableRepo(repo: GitRepo, fs: Pick<VaultFs, 'existsSync'> = nodeFs): Promise<void> {
  const inGit = (name: string) => fs.existsSync(nodePath.join(repo.gitDir, name));
  // A person's own git command holds index.lock for a moment: wait that out, then name the lock
  // (a lock left by a crashed git stays, and is never deleted by Lucid).
  for (const started = Date.now(); inGit('index.lock') && Date.now() - started < INDEX_LOCK_WAIT_MS; ) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (inGit('index.lock')) {
    throw new VaultError('locked', 'Another git process holds .git/index.lock. Wait for it to finish; if no git process is running, delete .git/index.lock.');
  }
  const states: [string, string][] = [
    ['MERGE_HEAD', 'a merge is in progress'],
    ['rebase-merge', 'a rebase is in progress'],
    ['rebase-apply', 'a rebase or am is in progress'],
    ['CHERRY_PICK_HEAD', 'a cherry-pick is in progress'],
    ['REVERT_HEAD', 'a revert is in progress'],
    ['BISECT_LOG', 'a bisect is in progress'],
  ];
  for (const [file, what] of states) {
    if (inGit(file)) throw new VaultError('repo_state', `The vault's git repository is not ready: ${what}. Finish or abort it, then try again.`);
  }
  const branch = (await spawnIn(repo, ['symbolic-ref', '-q', 'HEAD']).catch(() => '')).trim();
  if (!branch.startsWith('refs/heads/')) {
    throw new VaultError('repo_state', "The vault's git repository has a detached HEAD. Check out a branch, then try again.");
  }
  const unmerged = (await runGit(repo, ['ls-files', '--unmerged', '-z', '--full-name']))
    .split('\0')
    .map((entry) => entry.slice(entry.indexOf('\t') + 1))
    .filter(Boolean);
  if (unmerged.length > 0) {
    const names = [...new Set(unmerged.map((p) => fromTop(repo, p)))];
    throw new VaultError(
      'repo_state',
      `The vault's git repository has unmerged files (${names.slice(0, 5).join(', ')}). Resolve the conflict and commit, then try again.`,
    );
  }
}

/** `git config KEY` in the vault, or null. */
export async function gitConfig(repo: GitTarget, key: string): Promise<string | null> {
  try {
    const out = (await spawnIn(repo, ['config', '--get', key])).trim();
    return out || null;
  } catch {
    return null;
  }
}

/** The blob id git gives these bytes (sha1 of `blob <size>\\0<bytes>`), computed in-process. */
export function blobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}

/**
 * The blob id git would store for each of `paths` (vault-relative, existing files) as they are on
 * disk now, through the repository's filters (autocrlf, .gitattributes), like `git add` would.
 */
export async function worktreeBlobs(repo: GitRepo, paths: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (paths.length === 0) return out;
  const ids = (await runGit(repo, ['hash-object', '--', ...paths])).split('\n').filter(Boolean);
  for (const [i, path] of paths.entries()) out.set(path, ids[i]);
  return out;
}

/**
 * HEAD's commit (null in a repository with no commits yet) and the blob id of each of `paths`
 * (vault-relative) in it, absent paths left out: one `cat-file --batch-check`, the paths on stdin
 * as `HEAD:<path>` object names (never options, never pathspecs).
 */
export async function headState(repo: GitRepo, paths: readonly string[]): Promise<{ head: string | null; blobs: Map<string, string> }> {
  const unique = [...new Set(paths)];
  const input = ['HEAD^{commit}', ...unique.map((path) => `HEAD:${toTop(repo, path)}`)].join('\n');
  const lines = (await runGit(repo, ['cat-file', '--batch-check'], undefined, `${input}\n`)).split('\n');
  const answer = (line: string | undefined) => /^([0-9a-f]{40}) (\w+) \d+$/.exec(line ?? '');
  const headLine = answer(lines[0]);
  const head = headLine && headLine[2] === 'commit' ? headLine[1] : null;
  const blobs = new Map<string, string>();
  if (head) {
    unique.forEach((path, i) => {
      const match = answer(lines[i + 1]);
      if (match && match[2] === 'blob') blobs.set(path, match[1]);
    });
  }
  return { head, blobs };
}

/** Makes a pathspec literal, so `*`, `:` and leading dashes in note names are just characters. */
function literal(path: string): string {
  return `:(literal)${path}`;
}

/** A repo-relative path from git output → vault-relative. */
function fromTop(repo: GitRepo, path: string): string {
  return repo.prefix && path.startsWith(repo.prefix) ? path.slice(repo.prefix.length) : path;
}

/** A repo-relative path from git output → vault-relative, or null when it is outside the vault (a vault inside a larger repository). */
export function vaultPathOf(repo: Pick<GitRepo, 'prefix'>, path: string): string | null {
  if (!repo.prefix) return path;
  return path.startsWith(repo.prefix) ? path.slice(repo.prefix.length) : null;
}

/** A vault-relative path → repo-relative. */
export function toTop(repo: Pick<GitRepo, 'prefix'>, path: string): string {
  return repo.prefix + path;
}

/** What to commit: the message, who, when, and the parent it must sit on. */
export interface CommitRequest {
  /** Vault-relative paths whose current state on disk (present or deleted) goes into the commit. */
  paths: readonly string[];
  message: string;
  author: GitIdentity;
  committer: GitIdentity;
  date: Date;
  /** The commit HEAD was seen at under the vault lock (null: no commits yet); HEAD must still be there. */
  parent: string | null;
  /** A scratch file for the temporary index (inside .lucid/). */
  indexFile: string;
  /**
   * Paths of `paths` staged as these exact blobs (null: deleted), not from disk: bytes that were
   * checked, so a save landing after the check is left uncommitted instead of committed unchecked.
   */
  exact?: readonly { path: string; blob: string | null; executable: boolean }[];
  /**
   * Called after `commit-tree` made the commit, after `update-ref` moved HEAD to it, and after the
   * real index was refreshed (not called when that refresh failed); awaited, so the write-ahead
   * record can follow each step.
   */
  onStage?: (stage: 'commit-tree' | 'update-ref' | 'index-refreshed', commit: string) => Promise<void>;
}

/**
 * Commits exactly `paths` on top of `parent` through a temporary index, so whatever a person has
 * staged stays staged and out of the commit; then brings the real index up to date for those
 * paths only. Never switches branches, never touches other files. Six git processes: read-tree,
 * update-index (`--add --remove` takes written and deleted paths at once), write-tree,
 * commit-tree, update-ref (refused when HEAD is no longer `parent`), update-index on the real index.
 */
export async function commitPaths(repo: GitRepo, request: CommitRequest): Promise<string> {
  const head = request.parent;
  const env = commitEnv(request);
  const paths = [...new Set(request.paths)];
  await runGit(repo, ['read-tree', head ?? EMPTY_TREE], env);
  const exact = new Map((request.exact ?? []).map((e) => [e.path, e]));
  const fromDisk = paths.filter((p) => !exact.has(p));
  if (fromDisk.length > 0) await runGit(repo, ['update-index', '--add', '--remove', '--', ...fromDisk], env);
  const info = [...exact.values()]
    .map((e) => `${e.blob === null ? `0 ${'0'.repeat(40)}` : `${e.executable ? '100755' : '100644'} ${e.blob}`}\t${toTop(repo, e.path)}\0`)
    .join('');
  if (info) await runGit(repo, ['update-index', '-z', '--index-info'], env, info);
  const tree = (await runGit(repo, ['write-tree'], env)).trim();
  const parents = head ? ['-p', head] : [];
  const commit = (await runGit(repo, ['commit-tree', tree, ...parents, '-F', '-'], env, request.message)).trim();
  await request.onStage?.('commit-tree', commit);
  const subject = request.message.split('\n')[0];
  try {
    await runGit(repo, ['update-ref', '-m', `lucid: ${subject}`, 'HEAD', commit, head ?? '0'.repeat(40)]);
  } catch (error) {
    const now = await headCommit(repo);
    // update-ref moved HEAD and still reported a failure (its reflog, say): the commit landed.
    if (now !== commit) {
      if (now !== head) throw new HeadMovedError();
      throw error;
    }
  }
  await request.onStage?.('update-ref', commit);
  // The commit exists from here on: a failure to refresh the index must not undo the edit. A
  // person's git holding index.lock for a moment is waited out (their next commit would otherwise
  // take the note from a stale index and undo the edit); if the refresh still fails, the
  // write-ahead record stays and the next holder of the vault lock refreshes it (write/journal.ts).
  if (await refreshIndex(repo, fromDisk, info)) await request.onStage?.('index-refreshed', commit);
  return commit;
}

/** The real index brought to the commit: `paths` from disk, `info` (`--index-info` lines) as committed, a later save left unstaged. */
async function refreshIndex(repo: GitRepo, paths: readonly string[], info = ''): Promise<boolean> {
  const started = Date.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      if (paths.length > 0) await runGit(repo, ['update-index', '--add', '--remove', '--', ...paths]);
      if (info) await runGit(repo, ['update-index', '-z', '--index-info'], undefined, info);
      return true;
    } catch (error) {
      if (!isVaultError(error, 'locked') || Date.now() - started > INDEX_LOCK_WAIT_MS) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(200, 20 * attempt)));
    }
  }
}

/**
 * HEAD moved between the moment the write path read it and its `update-ref` (a person's own
 * `git commit` or pull): nothing was committed, and the edit may be made again on the new HEAD.
 */
export class HeadMovedError extends VaultError {
  constructor() {
    super('repo_state', 'Another git process moved HEAD while Lucid was committing; nothing was committed. Try again.');
  }
}

/**
 * The environment of a `commit-tree`: who wrote it and who committed it, both at `date` (git's
 * `<seconds> <offset>`), and the temporary index it is built on when there is one (`indexFile`).
 */
export function commitEnv(request: { author: GitIdentity; committer: GitIdentity; date: Date; indexFile?: string }): Record<string, string> {
  const stamp = `${Math.floor(request.date.getTime() / 1000)} ${offsetOf(request.date)}`;
  return {
    ...(request.indexFile ? { GIT_INDEX_FILE: request.indexFile } : {}),
    GIT_AUTHOR_NAME: request.author.name,
    GIT_AUTHOR_EMAIL: request.author.email,
    GIT_AUTHOR_DATE: stamp,
    GIT_COMMITTER_NAME: request.committer.name,
    GIT_COMMITTER_EMAIL: request.committer.email,
    GIT_COMMITTER_DATE: stamp,
  };
}

/** A date's UTC offset as git writes it (`+0100`). */
function offsetOf(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

/** The bytes of `path` at `commit` as text, or null where it did not exist. */
export async function showFile(repo: GitRepo, commit: string, path: string): Promise<string | null> {
  try {
    return await spawnIn(repo, ['show', `${commit}:${toTop(repo, path)}`]);
  } catch {
    return null;
  }
}

/** The patch of one commit (renames detected), cut at `maxBytes`; `path` limits it to one file. */
export async function commitPatch(
  repo: GitRepo,
  sha: string,
  options: { path?: string; maxBytes?: number } = {},
): Promise<{ sha: string; patch: string; truncated: boolean }> {
  const commit = await resolveCommit(repo, sha);
  // Pathspecs are relative to the vault folder, where git runs, even when it is inside a larger repository.
  const paths = options.path ? ['--', literal(normalizeVaultPath(options.path))] : ['--'];
  const patch = await showOutput(repo, ['--format=', '-M', '--patch', '--no-color', '--no-ext-diff', commit, ...paths]);
  const max = options.maxBytes ?? 1024 * 1024;
  return { sha: commit, patch: patch.length > max ? patch.slice(0, max) : patch, truncated: patch.length > max };
}

/** Keeps `.lucid/` and Lucid's temp files out of git even in vaults whose .gitignore does not list them (local exclude). */
export function excludeStateDir(repo: GitRepo, fs: VaultFs): void {
  try {
    const exclude = nodePath.join(repo.gitDir, 'info', 'exclude');
    const line = `/${repo.prefix}.lucid/`;
    const current = fs.existsSync(exclude) ? fs.readFileSync(exclude).toString('utf8') : '';
    if (current.split('\n').some((l) => l.trim() === line)) return;
    fs.mkdirSync(nodePath.dirname(exclude));
    fs.appendFileSync(exclude, `${current && !current.endsWith('\n') ? '\n' : ''}${line}\n/${repo.prefix}**/${TEMP_PREFIX}*\n`);
  } catch {
    // a read-only .git: nothing to do
  }
}
