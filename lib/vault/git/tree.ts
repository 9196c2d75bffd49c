import { VaultError } from '../errors';
import { commitEnv, runGit, showFile, toTop, vaultPathOf, type GitIdentity, type GitRepo } from './repo';

/**
 * Work on commits other than HEAD (a dream branch): reading a commit's files and committing to
 * another branch through a temporary index, never switching HEAD, never touching the working tree
 * or the real index.
 */

/** One file of a commit made off the working tree: its new text, or null to delete it. */
export interface TreeChange {
  path: string;
  content: string | null;
}

/** The vault paths of every file in `commit`'s tree (files outside the vault's folder left out). */
export async function listFilesAt(repo: GitRepo, commit: string): Promise<string[]> {
  const out = await runGit(repo, ['-c', 'core.quotePath=false', 'ls-tree', '-r', '-z', '--full-tree', '--name-only', commit]);
  return out
    .split('\0')
    .filter(Boolean)
    .map((path) => vaultPathOf(repo, path))
    .filter((path): path is string => path !== null);
}

/**
 * The text of each of `paths` in `commit` (absent paths left out), in one `cat-file --batch`: the
 * object names go on stdin as `<commit>:<path>`, never as options. A file that is not valid UTF-8
 * (its decoded length no longer matches git's byte count) and the ones after it are read one by one.
 */
export async function readFilesAt(repo: GitRepo, commit: string, paths: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const unique = [...new Set(paths)].filter((p) => !p.includes('\n'));
  if (unique.length === 0) return out;
  const input = `${unique.map((p) => `${commit}:${toTop(repo, p)}`).join('\n')}\n`;
  const raw = Buffer.from(await runGit(repo, ['cat-file', '--batch'], undefined, input), 'utf8');
  let at = 0;
  for (const [i, path] of unique.entries()) {
    const headerEnd = raw.indexOf(10, at);
    const match = headerEnd < 0 ? null : /^[0-9a-f]{40,64} (\w+) (\d+)$|^\S+ missing$/.exec(raw.subarray(at, headerEnd).toString('utf8'));
    if (!match) {
      for (const rest of unique.slice(Math.max(0, i - 1))) {
        const text = await showFile(repo, commit, rest);
        if (text !== null) out.set(rest, text);
      }
      break;
    }
    at = headerEnd + 1;
    if (match[1] === undefined) continue;
    const size = Number(match[2]);
    if (match[1] === 'blob') out.set(path, raw.subarray(at, at + size).toString('utf8'));
    at += size + 1;
  }
  return out;
}

/** What to commit to a branch. */
export interface RefCommitRequest {
  /** the full ref name, e.g. refs/heads/dream/20261130-140112-k3tq */
  ref: string;
  parent: string;
  /** what the ref must point at now (null: it must not exist yet) */
  expectedOld: string | null;
  changes: readonly TreeChange[];
  message: string;
  author: GitIdentity;
  committer: GitIdentity;
  date: Date;
  /** a scratch file for the temporary index (inside .lucid/) */
  indexFile: string;
}

/**
 * Commits `changes` on top of `parent` and moves `ref` to the new commit: a temporary index
 * (GIT_INDEX_FILE) read from `parent`, blobs written with hash-object, update-index, write-tree,
 * commit-tree, update-ref from `expectedOld`. HEAD, the working tree and the real index are never
 * touched. Returns the new commit's sha.
 */
export async function commitToRef(repo: GitRepo, request: RefCommitRequest): Promise<string> {
  await runGit(repo, ['check-ref-format', request.ref]).catch(() => {
    throw new VaultError('invalid_input', `${request.ref} is not a valid branch name.`);
  });
  const env = commitEnv(request);
  await runGit(repo, ['read-tree', request.parent], env);
  let info = '';
  for (const change of request.changes) {
    const top = toTop(repo, change.path);
    if (change.content === null) info += `0 ${'0'.repeat(40)}\t${top}\0`;
    else {
      const blob = (await runGit(repo, ['hash-object', '-w', '--stdin', `--path=${top}`], undefined, change.content)).trim();
      info += `100644 ${blob}\t${top}\0`;
    }
  }
  if (info) await runGit(repo, ['update-index', '-z', '--index-info'], env, info);
  const tree = (await runGit(repo, ['write-tree'], env)).trim();
  const commit = (await runGit(repo, ['commit-tree', tree, '-p', request.parent, '-F', '-'], env, request.message)).trim();
  const subject = request.message.split('\n')[0];
  await runGit(repo, ['update-ref', '-m', `lucid: ${subject}`, request.ref, commit, request.expectedOld ?? '0'.repeat(40)]);
  return commit;
}
