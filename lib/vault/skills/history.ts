import { parseMoltTrailer } from '../git/commit-message';
import { VaultError } from '../errors';
import type { CommitRecord } from '../git/commit-index';
import { diffOutput } from '../git/porcelain';
import { runGit } from '../git/repo';
import { parseFrontmatter } from '../notes/frontmatter';
import { normalizeNotePath } from '../notes/paths';
import type { Vault } from '../vault';

/** How many commits of one skill the history reads at most (newest first). */
export const SKILL_HISTORY_LIMIT = 500;

/** One commit of a skill's file: a version of its text, a rename, or its removal. */
export interface SkillVersion {
  sha: string;
  /** The commit index's sequence number (larger is newer). */
  seq: number;
  /** Seconds since the epoch (author time). */
  time: number;
  /** `Lucid-Actor`, or `human:<git author>` for a commit Lucid did not make. */
  actor: string;
  foreign: boolean;
  op: string | null;
  editId: string | null;
  session: string | null;
  /** The commit's reason (for a molt: the molt's reason). */
  reason: string;
  /** The file's path after this commit. */
  path: string;
  /** Set when this commit renamed or moved the file: its path before. */
  renamedFrom: string | null;
  /** The file's git blob after this commit; null when the commit removed it. */
  blob: string | null;
  /** The `version` property of this text; null when it has none that is an integer. */
  version: number | null;
  /** From the `Lucid-Molt` trailer. */
  molt: { from: number; to: number } | null;
  /** The text is the same as the commit before's (a rename or move only). */
  sameText: boolean;
}

/** A skill's history from git, newest first, across renames and moves to the archive. */
export interface SkillHistory {
  path: string;
  versions: SkillVersion[];
  /** More commits exist than {@link SKILL_HISTORY_LIMIT}: the oldest are left out. */
  truncated: boolean;
}

/** The file's path after each commit of a rename-following history (newest first), and where it was renamed from. */
function pathsThrough(path: string, commits: CommitRecord[]): { path: string; status: string; renamedFrom: string | null }[] {
  let name = path;
  return commits.map((c) => {
    const entry = c.paths.find((p) => p.path === name) ?? c.paths.find((p) => p.oldPath === name);
    const at = { path: name, status: entry?.status ?? 'M', renamedFrom: entry?.status === 'R' ? entry.oldPath : null };
    if (at.renamedFrom) name = at.renamedFrom;
    return at;
  });
}

/**
 * The texts of git blobs, in one `git cat-file --batch` (never one process per version). Blobs
 * git cannot give back as text are left out.
 */
async function readBlobs(vault: Vault, blobs: readonly string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(blobs)];
  const out = new Map<string, string>();
  if (wanted.length === 0) return out;
  const raw = Buffer.from(await runGit(vault.repo, ['cat-file', '--batch'], undefined, `${wanted.join('\n')}\n`), 'utf8');
  let at = 0;
  while (at < raw.length) {
    const eol = raw.indexOf(10, at);
    if (eol < 0) break;
    const [id, type, size] = raw.subarray(at, eol).toString('utf8').split(' ');
    if (type !== 'blob') {
      at = eol + 1;
      continue;
    }
    const bytes = Number(size);
    out.set(id, raw.subarray(eol + 1, eol + 1 + bytes).toString('utf8'));
    at = eol + 1 + bytes + 1;
  }
  return out;
}

/** Every path a file had through a rename-following history (newest first): its path now, then its earlier names. */
export function pathsOfHistory(path: string, commits: CommitRecord[]): string[] {
  return [...new Set([path, ...pathsThrough(path, commits).flatMap((p) => (p.renamedFrom ? [p.renamedFrom] : []))])];
}

/** The `version` property of a skill's text, or null. */
function versionOfText(text: string | undefined): number | null {
  if (text === undefined) return null;
  const parsed = parseFrontmatter(text);
  const version = parsed.ok ? Number(parsed.data.version) : Number.NaN;
  return Number.isInteger(version) && version >= 1 ? version : null;
}

/**
 * A skill's history from git through the commit index (never a walk of the whole history): every
 * commit of its file newest first, following renames and moves (a skill archived or renamed keeps
 * its earlier versions), each with the version its text carries, the molt's reason, actor and
 * session. The texts are read with one `git cat-file` for all of them.
 */
export async function skillHistory(vault: Vault, path: string): Promise<SkillHistory> {
  const rel = normalizeNotePath(path);
  const commits = await vault.history(rel, SKILL_HISTORY_LIMIT + 1);
  const truncated = commits.length > SKILL_HISTORY_LIMIT;
  const shown = commits.slice(0, SKILL_HISTORY_LIMIT);
  const places = pathsThrough(rel, shown);
  const checks = places.map((p, i) => `${shown[i].sha}:${vault.repo.prefix}${p.path}`);
  const blobs: (string | null)[] = [];
  if (checks.length > 0) {
    const lines = (await runGit(vault.repo, ['cat-file', '--batch-check'], undefined, `${checks.join('\n')}\n`)).split('\n');
    for (let i = 0; i < checks.length; i += 1) {
      const [id, type] = (lines[i] ?? '').split(' ');
      blobs.push(type === 'blob' ? id : null);
    }
  }
  const texts = await readBlobs(
    vault,
    blobs.filter((b): b is string => b !== null),
  );
  const versions = shown.map((c, i): SkillVersion => {
    const blob = places[i].status === 'D' ? null : blobs[i];
    return {
      sha: c.sha,
      seq: c.seq,
      time: c.time,
      actor: c.actor ?? `human:${c.author}`,
      foreign: c.actor === null,
      op: c.op,
      editId: c.editId,
      session: c.session,
      reason: c.reason,
      path: places[i].path,
      renamedFrom: places[i].renamedFrom,
      blob,
      version: blob ? versionOfText(texts.get(blob)) : null,
      molt: c.op === 'molt' ? versionsOf(parseMoltTrailer(c.trailers['Lucid-Molt'])) : null,
      sameText: blob !== null && i + 1 < shown.length && blobs[i + 1] === blob,
    };
  });
  return { path: rel, versions, truncated };
}

/** One version of a skill's history, by its commit; `not_found` when the commit is not one of them. */
export function versionAt(history: SkillHistory, commit: string): SkillVersion {
  const version = history.versions.find((v) => v.sha === commit);
  if (!version)
    throw new VaultError('not_found', `Commit ${commit.slice(0, 12)} is not a version of ${history.path}. Reload the page and pick a version again.`);
  if (!version.blob) throw new VaultError('not_found', `${history.path} did not exist after commit ${commit.slice(0, 12)}; pick another version.`);
  return version;
}

/** The text of one version of a skill (as git holds it); `not_found` when git cannot give it back as text. */
export async function skillVersionText(vault: Vault, version: SkillVersion): Promise<string> {
  const text = version.blob ? (await readBlobs(vault, [version.blob])).get(version.blob) : undefined;
  if (text === undefined) throw new VaultError('not_found', `${version.path} has no text at commit ${version.sha.slice(0, 12)}.`);
  return text;
}

/**
 * The unified diff between two versions of a skill (`git diff <blob> <blob>`, headed with the
 * file's paths at each version), cut at `maxBytes`. Empty when the texts are the same.
 */
export async function skillDiff(
  vault: Vault,
  history: SkillHistory,
  from: string,
  to: string,
  maxBytes = 512 * 1024,
): Promise<{ patch: string; truncated: boolean }> {
  const a = versionAt(history, from);
  const b = versionAt(history, to);
  if (a.blob === b.blob) return { patch: '', truncated: false };
  const raw = await diffOutput(vault.repo, ['--no-color', '--no-ext-diff', '--no-textconv', '--end-of-options', a.blob as string, b.blob as string]);
  const hunks = raw.indexOf('\n@@');
  const body = hunks < 0 ? '' : raw.slice(hunks + 1);
  const patch = `diff --git a/${a.path} b/${b.path}\n--- a/${a.path}\n+++ b/${b.path}\n${body}`;
  return patch.length > maxBytes ? { patch: '', truncated: true } : { patch, truncated: false };
}

/** A molt's versions without its skill name (the version already belongs to one skill). */
function versionsOf(molt: { from: number; to: number } | null): { from: number; to: number } | null {
  return molt ? { from: molt.from, to: molt.to } : null;
}
