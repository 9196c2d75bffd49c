import { createHash } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import nodePath from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import { VaultError } from '../errors';

/** The only module that talks to git. Every user path goes after `--`; refs are validated. */

const SHA = /^[0-9a-f]{40}$/;
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
}

/**
 * The variables git may see from the caller's environment. Everything else (GIT_DIR and
 * GIT_INDEX_FILE from a hook, pagers, editors, askpass, SSH commands) is left out.
 */
const PASSED_ENV = /^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|LC_[A-Z]+|TZ|TMPDIR|XDG_CONFIG_HOME|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG_NOSYSTEM|SYSTEMROOT)$/;

function gitEnv(repo: Pick<GitRepo, 'env'>, extraEnv: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(repo.env)) if (value !== undefined && PASSED_ENV.test(key)) env[key] = value;
  return Object.assign(env, { GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' }, extraEnv);
}

function client(repo: Pick<GitRepo, 'root' | 'env'>, extraEnv: Record<string, string> = {}): SimpleGit {
  const env = gitEnv(repo, extraEnv);
  return simpleGit({ baseDir: repo.root, maxConcurrentProcesses: 4, trimmed: false, allowEnvironment: Object.keys(env), unsafe: { allowUnsafeConfigPaths: true }, }).env(env);
}

/** Runs git with the given arguments in the vault folder and returns stdout. */
export async function runGit(repo: Pick<GitRepo, 'root' | 'env'>, args: string[], extraEnv?: Record<string, string>): Promise<string> {
  try {
    return await client(repo, extraEnv).raw(args);
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (/index\.lock/.test(message)) {
      throw new VaultError('locked', 'Another git process holds .git/index.lock. Wait for it to finish; if none is running, delete .git/index.lock.');
    }
    throw new VaultError('io_error', `git ${args[0]} failed: ${message.trim().split('\n').slice(0, 3).join(' ')}`);
  }
}

/**
 * Runs a plumbing command that prints nothing (update-ref, update-index, read-tree). simple-git 4
 * waits a fixed 50 ms after any command with no output before resolving, which was over a third
 * of every write; these few commands therefore run through execFile with the same environment.
 */
export async function runGitSilent(repo: Pick<GitRepo, 'root' | 'env'>, args: string[], extraEnv?: Record<string, string>): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    execFile('git', args, { cwd: repo.root, env: gitEnv(repo, extraEnv) as unknown as NodeJS.ProcessEnv, maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (!error) return resolve();
      const message = `${stderr || error.message}`;
      if (/index\.lock/.test(message)) {
        reject(new VaultError('locked', 'Another git process holds .git/index.lock. Wait for it to finish; if none is running, delete .git/index.lock.'));
      } else {
        reject(new VaultError('io_error', `git ${args[0]} failed: ${message.trim().split('\n').slice(0, 3).join(' ')}`));
      }
    });
  });
}

/**
 * Opens the repository that holds `root`. Throws `not_a_repo` with what to do when there is none.
 */
export async function openRepo(root: string, env: Record<string, string | undefined>): Promise<GitRepo> {
  let out: string;
  try {
    out = await client({ root, env }).raw(['rev-parse', '--show-toplevel', '--absolute-git-dir', '--show-prefix']);
  } catch {
    throw new VaultError('not_a_repo', `${root} is not a git repository. Run \`lucid init ${root}\` to make it a Lucid vault (it runs git init).`);
  }
  const [top, gitDir, prefix = ''] = out.split('\n');
  return { root, top, gitDir, prefix: prefix.trim(), env };
}

/** Validates a commit id given by a user or a URL: only full hex SHAs of this repository. */
export async function resolveCommit(repo: GitRepo, ref: string): Promise<string> {
  if (!SHA.test(ref)) throw new VaultError('invalid_input', 'A commit is named by its full 40-character id.');
  try {
    const type = (await client(repo).raw(['cat-file', '-t', '--end-of-options', ref])).trim();
    if (type === 'commit') return ref;
  } catch {
    // falls through
  }
  throw new VaultError('not_found', `No commit ${ref} in this vault.`);
}

/** HEAD's commit, or null in a repository with no commits yet. */
export async function headCommit(repo: GitRepo): Promise<string | null> {
  try {
    const out = await client(repo).raw(['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
    return out.trim() || null;
  } catch {
    return null;
  }
}

/**
 * Refuses writes while the repository is mid-merge, mid-rebase, on a detached HEAD, holds
 * unmerged paths or another git process holds its index lock; the message names the state.
 */
export async function assertWritableRepo(repo: GitRepo): Promise<void> {
  const inGit = (name: string) => existsSync(nodePath.join(repo.gitDir, name));
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
  const branch = (await client(repo).raw(['symbolic-ref', '-q', 'HEAD']).catch(() => '')).trim();
  if (!branch.startsWith('refs/heads/')) {
    throw new VaultError('repo_state', 'The vault\'s git repository has a detached HEAD. Check out a branch, then try again.');
  }
  const unmerged = (await client(repo).raw(['ls-files', '--unmerged', '-z', '--full-name']))
    .split('\0')
    .map((entry) => entry.slice(entry.indexOf('\t') + 1))
    .filter(Boolean);
  if (unmerged.length > 0) {
    const names = [...new Set(unmerged.map((p) => fromTop(repo, p)))];
    throw new VaultError('repo_state', `The vault's git repository has unmerged files (${names.slice(0, 5).join(', ')}). Resolve the conflict and commit, then try again.`);
  }
}

/** `git config KEY` in the vault, or null. */
export async function gitConfig(repo: Pick<GitRepo, 'root' | 'env'>, key: string): Promise<string | null> {
  try {
    const out = (await client(repo).raw(['config', '--get', key])).trim();
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
  paths.forEach((path, i) => out.set(path, ids[i]));
  return out;
}

/** The blob id of each of `paths` (vault-relative) in HEAD; absent paths are left out. */
export async function headBlobs(repo: GitRepo, paths: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (paths.length === 0 || !(await headCommit(repo))) return out;
  const listing = await runGit(repo, ['ls-tree', '-z', '--full-name', 'HEAD', '--', ...paths.map(literal)]);
  for (const entry of listing.split('\0')) {
    const match = /^\d+ blob ([0-9a-f]{40})\t(.*)$/s.exec(entry);
    if (match) out.set(fromTop(repo, match[2]), match[1]);
  }
  return out;
}

/** Makes a pathspec literal, so `*`, `:` and leading dashes in note names are just characters. */
function literal(path: string): string {
  return `:(literal)${path}`;
}

/** A repo-relative path from git output → vault-relative. */
export function fromTop(repo: GitRepo, path: string): string {
  return repo.prefix && path.startsWith(repo.prefix) ? path.slice(repo.prefix.length) : path;
}

/** A vault-relative path → repo-relative. */
export function toTop(repo: GitRepo, path: string): string {
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
  /** A scratch file for the temporary index (inside .lucid/). */
  indexFile: string;
}

/**
 * Commits exactly `paths` on top of HEAD through a temporary index, so whatever a person has
 * staged stays staged and out of the commit; then brings the real index up to date for those
 * paths only. Never switches branches, never touches other files.
 */
export async function commitPaths(repo: GitRepo, request: CommitRequest): Promise<string> {
  const head = await headCommit(repo);
  const stamp = `${Math.floor(request.date.getTime() / 1000)} ${offsetOf(request.date)}`;
  const env = {
    GIT_INDEX_FILE: request.indexFile,
    GIT_AUTHOR_NAME: request.author.name,
    GIT_AUTHOR_EMAIL: request.author.email,
    GIT_AUTHOR_DATE: stamp,
    GIT_COMMITTER_NAME: request.committer.name,
    GIT_COMMITTER_EMAIL: request.committer.email,
    GIT_COMMITTER_DATE: stamp,
  };
  await runGitSilent(repo, ['read-tree', head ?? EMPTY_TREE], env);
  const present: string[] = [];
  const absent: string[] = [];
  for (const path of request.paths) (existsSync(nodePath.join(repo.root, path)) ? present : absent).push(path);
  if (present.length > 0) await runGitSilent(repo, ['update-index', '--add', '--', ...present], env);
  if (absent.length > 0) await runGitSilent(repo, ['update-index', '--force-remove', '--', ...absent], env);
  const tree = (await runGit(repo, ['write-tree'], env)).trim();
  const parents = head ? ['-p', head] : [];
  const commit = (await runGit(repo, ['commit-tree', tree, ...parents, '-m', request.message], env)).trim();
  const subject = request.message.split('\n')[0];
  await runGitSilent(repo, ['update-ref', '-m', `lucid: ${subject}`, 'HEAD', commit, head ?? '0'.repeat(40)]);
  // The commit exists from here on: a failure to refresh the index (another git process holds
  // index.lock) must not undo the edit. A stale index only shows as staged changes until git's
  // next refresh, and the next Lucid write brings it up to date again.
  await syncIndex(repo, present, absent).catch(() => undefined);
  return commit;
}

/** Makes the real index match what Lucid just committed for `paths` (the files on disk). */
async function syncIndex(repo: GitRepo, present: readonly string[], absent: readonly string[]): Promise<void> {
  if (present.length > 0) await runGitSilent(repo, ['update-index', '--add', '--', ...present]);
  if (absent.length > 0) await runGitSilent(repo, ['update-index', '--force-remove', '--', ...absent]);
}

function offsetOf(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}${String(abs % 60).padStart(2, '0')}`;
}

/** The bytes of `path` at `commit` as text, or null where it did not exist. */
export async function showFile(repo: GitRepo, commit: string, path: string): Promise<string | null> {
  try {
    return await client(repo).raw(['show', `${commit}:${toTop(repo, path)}`]);
  } catch {
    return null;
  }
}

export { SHA as SHA_PATTERN };
