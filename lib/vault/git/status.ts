import { type GitRepo, runGit, vaultPathOf } from './repo';

/**
 * The one reader of `git status --porcelain=v1 -z`: with `-z` git never quotes a path (spaces,
 * quotes, newlines and non-ASCII names come as they are), and a rename or copy is two tokens,
 * `R  <new>\0<old>\0`.
 */

/** One line of the output: its two status letters (index, work tree), its path and, for a rename or copy, the path before. */
export interface StatusLine {
  code: string;
  path: string;
  oldPath: string | null;
}

/** A path's change from HEAD, the index and the disk taken together. */
export interface StatusEntry {
  path: string;
  /** For a rename staged in the index: the path before it. */
  oldPath: string | null;
  status: 'modified' | 'added' | 'deleted' | 'renamed';
}

/**
 * The lines of `git status --porcelain=v1 -z` output, paths mapped by `toVault` from the
 * repository's to the vault's (null: outside the vault, the line is left out).
 */
export function parseStatusLines(output: string, toVault: (path: string) => string | null = (p) => p): StatusLine[] {
  const tokens = output.split('\0');
  const out: StatusLine[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const entry = tokens[i];
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    const renamed = code[0] === 'R' || code[0] === 'C';
    const oldRepoPath = renamed ? tokens[i + 1] : null;
    if (renamed) i += 1;
    const path = toVault(entry.slice(3));
    if (path === null) continue;
    out.push({ code, path, oldPath: oldRepoPath === null ? null : toVault(oldRepoPath) });
  }
  return out;
}

/**
 * One entry per path of `git status --porcelain=v1 -z` output (renames detected or not), sorted by
 * path: a rename staged in the index is `renamed` (its new file deleted since: the old path `deleted`); a path
 * deleted from the index and back on disk (untracked) is `modified`; one added to the index and
 * deleted from the disk since is no change at all and left out.
 */
export function parseStatus(output: string, toVault: (path: string) => string | null = (p) => p): StatusEntry[] {
  const byPath = new Map<string, { oldPath: string | null; codes: Set<string> }>();
  for (const line of parseStatusLines(output, toVault)) {
    // A rename staged whose new file was deleted since: to HEAD, the old path is gone and nothing else changed.
    const { code, path, oldPath } = line.code === 'RD' && line.oldPath !== null ? { code: 'D ', path: line.oldPath, oldPath: null } : line;
    const known = byPath.get(path) ?? { oldPath: null, codes: new Set<string>() };
    known.codes.add(code);
    if (oldPath !== null) known.oldPath = oldPath;
    byPath.set(path, known);
  }
  const out: StatusEntry[] = [];
  for (const [path, { oldPath, codes }] of byPath) {
    const tracked = [...codes].filter((c) => c !== '??');
    const untracked = codes.has('??');
    const deleted = tracked.some((c) => c[1] === 'D' || (c[0] === 'D' && c[1] === ' '));
    const added = tracked.some((c) => c[0] === 'A');
    if (tracked.some((c) => c[0] === 'R') && oldPath !== null && !tracked.some((c) => c[1] === 'D')) out.push({ path, oldPath, status: 'renamed' });
    else if (untracked && deleted) out.push({ path, oldPath: null, status: 'modified' });
    else if (untracked) out.push({ path, oldPath: null, status: 'added' });
    else if (added && deleted) continue;
    else if (deleted) out.push({ path, oldPath: null, status: 'deleted' });
    else if (added) out.push({ path, oldPath: null, status: 'added' });
    else out.push({ path, oldPath: null, status: 'modified' });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

/** Which part of the vault a status covers and whether renames are detected. */
export interface StatusOptions {
  /** Vault paths, matched literally (never as patterns); the whole vault folder when absent. */
  paths?: readonly string[];
  /** false: `--no-renames`, a rename is a deletion and an addition. */
  renames: boolean;
}

/** `git status --porcelain=v1 -z --untracked-files=all` of the vault (ignored files never listed). */
function statusOutput(repo: GitRepo, options: StatusOptions): Promise<string> {
  const pathspecs = options.paths ? options.paths.map((p) => `:(literal)${p}`) : ['.'];
  return runGit(repo, ['status', '--porcelain=v1', '-z', '--untracked-files=all', ...(options.renames ? [] : ['--no-renames']), '--', ...pathspecs]);
}

/** The raw lines of the vault's `git status` (see {@link parseStatusLines}), paths the vault's. An empty `paths` is no line. */
export async function vaultStatusLines(repo: GitRepo, options: StatusOptions): Promise<StatusLine[]> {
  if (options.paths?.length === 0) return [];
  return parseStatusLines(await statusOutput(repo, options), (p) => vaultPathOf(repo, p));
}

/** The vault's `git status` one entry per path (see {@link parseStatus}), paths the vault's. An empty `paths` is no entry. */
export async function vaultStatus(repo: GitRepo, options: StatusOptions): Promise<StatusEntry[]> {
  if (options.paths?.length === 0) return [];
  return parseStatus(await statusOutput(repo, options), (p) => vaultPathOf(repo, p));
}
