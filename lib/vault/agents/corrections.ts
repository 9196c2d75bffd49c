import nodePath from 'node:path';
import { isChangelogPath } from '../config';
import { SNAPSHOT_SUBJECT } from '../init';
import { parseFrontmatter } from '../notes/frontmatter';
import { fromTop, runGit, showFile } from '../git/repo';
import { formatTime } from '../ids';
import { isNoteFile, basenameOf } from '../notes/paths';
import { maskSecrets } from '../write/secrets';
import type { CommitRecord } from '../git/commit-index';
import type { Vault } from '../vault';
import type { Note } from '../notes/note';
import type { Correction, NoteCorrections, SinceLastSession } from './contract';

/**
 * What people did to the vault since an agent's last session, read from the commit index and
 * `git status` (never a walk of the history): their commits with their own words, reverts (Lucid's
 * and plain `git revert`), inbox proposals they rejected, deleted or moved, edits saved on disk and
 * not committed yet, and imports of many files in one line each.
 */

const NO_SESSION_WINDOW_DAYS = 14;
const MAX_NOTES = 20;
const MAX_CHANGES = 5;
const MAX_LINES = 12;
const MAX_LINE_LENGTH = 200;
const MAX_REASON = 1000;
const MAX_IMPORTS = 5;
const MAX_SCANNED = 5000;
/** A person's commit that only adds at least this many files is an import, summarised in one line. */
const IMPORT_MIN_FILES = 5;

const GIT_REVERT = /^This reverts commit ([0-9a-f]{7,40})\b(?:, reversing\nchanges made to [0-9a-f]+)?[^\n]*\n?/m;

/** The person's words in a commit: a Lucid commit's reason; a plain commit's subject and body (git's "This reverts commit" line left out). */
export function personReason(commit: Pick<CommitRecord, 'actor' | 'subject' | 'reason'>): string {
  const text = commit.actor ? commit.reason : [commit.subject, commit.reason.replace(GIT_REVERT, '').trim()].filter(Boolean).join('\n\n');
  const trimmed = text.trim();
  return trimmed.length > MAX_REASON ? `${trimmed.slice(0, MAX_REASON - 1)}…` : trimmed;
}

/** The commit a revert undid: Lucid's `Lucid-Reverts`/`Lucid-Reverts-Commit` trailers, or git's own "This reverts commit <sha>". */
export function revertedTarget(commit: Pick<CommitRecord, 'op' | 'trailers' | 'reason'>): { edit: string } | { sha: string } | null {
  if (commit.trailers['Lucid-Reverts']) return { edit: commit.trailers['Lucid-Reverts'] };
  if (commit.trailers['Lucid-Reverts-Commit']) return { sha: commit.trailers['Lucid-Reverts-Commit'] };
  const match = GIT_REVERT.exec(commit.reason);
  return match ? { sha: match[1] } : null;
}

/**
 * The `+ added` and `- removed` lines of a unified diff (`-U0`), secrets masked, each cut to 200
 * characters, at most `max` of them; `more` counts the rest.
 */
export function changedLines(patch: string, max = MAX_LINES): { lines: string[]; more: number } {
  const raw: string[] = [];
  let inHunk = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('@@')) inHunk = true;
    else if (line.startsWith('diff --git ')) inHunk = false;
    else if (inHunk && (line.startsWith('+') || line.startsWith('-'))) raw.push(marked(line[0], line.slice(1).replace(/\r$/, '')));
  }
  return capLines(raw, max);
}

/** `+ text`, or a bare `+` for an empty line. */
function marked(sign: string, text: string): string {
  return text === '' ? sign : `${sign} ${text}`;
}

function capLines(raw: readonly string[], max: number): { lines: string[]; more: number } {
  // Masked together, so a secret split over lines (a private key) is caught whole.
  const masked = maskSecrets(raw.join('\n')).text.split('\n');
  const lines = masked.slice(0, max).map((l) => (l.length > MAX_LINE_LENGTH ? `${l.slice(0, MAX_LINE_LENGTH - 1)}…` : l));
  return { lines, more: Math.max(0, raw.length - max) };
}

/** A person's edit of a file on disk that nobody committed yet. */
interface Uncommitted {
  path: string;
  status: 'modified' | 'added' | 'deleted';
}

/** The vault's notes (and inbox items) that differ from HEAD on disk or in the index: `git status`, untracked files included. */
async function uncommittedFiles(vault: Vault): Promise<Uncommitted[]> {
  let output: string;
  try {
    output = await runGit(vault.repo, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', '.']);
  } catch {
    return [];
  }
  const out: Uncommitted[] = [];
  for (const entry of output.split('\0')) {
    if (entry.length < 4) continue;
    const code = entry.slice(0, 2);
    const path = fromTop(vault.repo, entry.slice(3));
    if (!isNoteFile(path) || isChangelogPath(vault.layout, path)) continue;
    const status = code === '??' || code.includes('A') ? 'added' : code.includes('D') ? 'deleted' : 'modified';
    out.push({ path, status });
  }
  return out;
}

interface Group {
  path: string;
  changes: Correction[];
  more: number;
  proposedByYou: boolean;
}

/**
 * What people changed since `slug`'s previous session ended (the commit that wrote that session's
 * note marks the point in the history), or in the last 14 days when it has none: grouped by note,
 * the note changed most recently first, each change newest first with who, when and their words.
 */
export async function sinceLastSession(vault: Vault, input: { slug: string; now: Date; excludeSession?: string; notes?: Note[] }): Promise<SinceLastSession> {
  const actor = `agent:${input.slug}`;
  const notes = input.notes ?? (await vault.listNotes());
  let previous: Note | null = null;
  for (const n of notes) {
    if (n.lucidType !== 'session' || n.frontmatter.agent !== input.slug || basenameOf(n.path) === input.excludeSession) continue;
    if (!previous || (timeOf(n.frontmatter.ended) || 0) > (timeOf(previous.frontmatter.ended) || 0)) previous = n;
  }
  const previousEnd = previous ? timeOf(previous.frontmatter.ended) : Number.NaN;
  const index = await vault.commits();
  // The commit that wrote the previous session's note marks "since" in the history itself, so a
  // clock that is off (or a commit dated in the future) cannot hide or repeat a correction.
  const marker = previous ? (index.list({ path: previous.path, session: basenameOf(previous.path), limit: 1 })[0] ?? null) : null;
  let commits: CommitRecord[];
  if (marker) {
    commits = [];
    let before: number | undefined;
    while (commits.length < MAX_SCANNED) {
      const page = index.list({ beforeSeq: before, limit: 500 });
      const newer = page.filter((c) => c.seq > marker.seq);
      commits.push(...newer);
      if (newer.length < page.length || page.length < 500) break;
      before = page[page.length - 1].seq;
    }
  } else {
    const sinceMs = Number.isFinite(previousEnd) ? previousEnd : input.now.getTime() - NO_SESSION_WINDOW_DAYS * 86_400_000;
    commits = index.list({ since: Math.floor(sinceMs / 1000), limit: 1000 });
  }

  const groups = new Map<string, Group>();
  const leftOut = new Set<string>();
  /** The group of `path`, or null when the list is full (the note is then counted in more_notes). */
  const groupOf = (path: string): Group | null => {
    const known = groups.get(path);
    if (known) return known;
    if (groups.size >= MAX_NOTES) {
      leftOut.add(path);
      return null;
    }
    const group: Group = { path, changes: [], more: 0, proposedByYou: false };
    groups.set(path, group);
    return group;
  };
  const add = (path: string, change: () => Promise<Correction> | Correction, proposedByYou = false): Promise<void> | void => {
    const group = groupOf(path);
    if (!group) return;
    if (proposedByYou) group.proposedByYou = true;
    if (group.changes.length >= MAX_CHANGES) {
      group.more += 1;
      return;
    }
    const made = change();
    if (made instanceof Promise)
      return made.then((c) => {
        group.changes.push(c);
      });
    group.changes.push(made);
  };

  const isInbox = (p: string) => p.startsWith(`${vault.layout.inbox}/`);
  const proposalAt = async (commit: string, path: string) => {
    const text = await showFile(vault.repo, commit, path);
    const parsed = text ? parseFrontmatter(text) : null;
    const data = parsed?.ok ? parsed.data : {};
    const text_ = (key: string) => (typeof data[key] === 'string' ? String(data[key]) : null);
    const proposedBy = text_('proposed_by');
    return { inbox_path: path, action: text_('action'), target: text_('target'), proposed_by: proposedBy, yours: proposedBy === actor };
  };

  // First what is on disk and not committed yet: it is the newest.
  const now = formatTime(input.now);
  const uncommitted = await uncommittedFiles(vault);
  const dirtyPaths = new Set(uncommitted.map((u) => u.path));
  for (const u of uncommitted) {
    if (isInbox(u.path)) {
      if (u.status !== 'deleted') continue;
      const proposal = await proposalAt('HEAD', u.path);
      const byHand = proposal.target !== null && dirtyPaths.has(proposal.target);
      await add(
        proposal.target ?? u.path,
        () => ({ kind: byHand ? 'accepted_by_hand' : 'rejected', by: vault.person, at: now, reason: '', op: null, commit: null, proposal }),
        proposal.yours,
      );
      continue;
    }
    await add(u.path, async () => {
      const { lines, more } = await uncommittedLines(vault, u);
      return {
        kind: 'uncommitted',
        by: vault.person,
        at: mtimeOf(vault, u.path) ?? now,
        reason: '',
        op: null,
        commit: null,
        status: u.status,
        lines,
        more_lines: more,
      };
    });
  }

  const imports: SinceLastSession['imports'] = [];
  let moreImports = 0;
  const isReported = (p: string) => isNoteFile(p) && !isChangelogPath(vault.layout, p);
  for (const c of commits) {
    // Installing Lucid is not a person correcting the memory; nor is an agent's own work.
    if (c.op === 'init') continue;
    const by = c.actor ? (c.actor.startsWith('human:') ? c.actor : null) : `human:${c.author}`;
    if (!by) continue;
    const at = formatTime(new Date(c.time * 1000));
    const reason = personReason(c);
    const commit = c.sha.slice(0, 12);
    const base = { by, at, reason, op: c.op ?? 'commit', commit };

    if (!c.actor && (c.subject === SNAPSHOT_SUBJECT || (c.paths.length >= IMPORT_MIN_FILES && c.paths.every((p) => p.status === 'A')))) {
      if (imports.length >= MAX_IMPORTS) {
        moreImports += 1;
        continue;
      }
      const added = c.paths.map((p) => p.path).filter(isReported);
      imports.push({ commit, by, at, reason, notes: added.length, files: c.paths.length, examples: added.slice(0, 3) });
      continue;
    }

    if (c.op === 'reject') {
      for (const p of c.paths.filter((q) => isInbox(q.path))) {
        const proposal = await proposalAt(`${c.sha}^`, p.path);
        await add(proposal.target ?? p.path, () => ({ ...base, kind: 'rejected', proposal }), proposal.yours);
      }
      continue;
    }

    const reverted = revertedTarget(c);
    if (reverted) {
      const original = 'edit' in reverted ? index.byEdit(reverted.edit) : index.bySha(reverted.sha);
      for (const p of c.paths.filter((q) => isReported(q.path) && !isInbox(q.path))) {
        await add(p.path, async () => {
          const { lines, more } = original ? await editLines(vault, original.sha, p.path) : { lines: [], more: 0 };
          return {
            ...base,
            kind: 'reverted',
            undid: {
              edit: original?.editId ?? ('edit' in reverted ? reverted.edit : null),
              commit: (original?.sha ?? ('sha' in reverted ? reverted.sha : '')).slice(0, 12),
              actor: original ? (original.actor ?? `human:${original.author}`) : null,
              op: original ? (original.op ?? 'commit') : null,
              at: original ? formatTime(new Date(original.time * 1000)) : null,
              reason: original ? personReason(original) : '',
              paths: original ? original.paths.map((q) => q.path).filter(isReported) : [],
            },
            lines,
            more_lines: more,
          };
        });
      }
      continue;
    }

    // A proposal a person deleted or moved out of the inbox in a plain commit (or a Lucid edit of theirs).
    const handled = new Set<string>();
    if (c.op !== 'accept') {
      for (const p of c.paths) {
        const from = p.status === 'R' ? p.oldPath : p.status === 'D' ? p.path : null;
        if (!from || !isInbox(from) || (p.status === 'R' && isInbox(p.path))) continue;
        const proposal = await proposalAt(`${c.sha}^`, from);
        const touched = c.paths.some((q) => q.path === proposal.target || q.oldPath === proposal.target);
        const byHand = proposal.target !== null && (touched || p.path === proposal.target);
        if (proposal.target && byHand) handled.add(proposal.target);
        if (p.status === 'R') handled.add(p.path);
        const correction: Correction =
          p.status === 'R' && !byHand
            ? { ...base, kind: 'moved', proposal, moved_to: p.path }
            : { ...base, kind: byHand ? 'accepted_by_hand' : 'rejected', proposal };
        await add(proposal.target ?? from, () => correction, proposal.yours);
      }
    }

    for (const p of c.paths) {
      if (!isReported(p.path) || isInbox(p.path) || handled.has(p.path)) continue;
      const status = p.status === 'A' ? 'added' : p.status === 'D' ? 'deleted' : p.status === 'R' ? 'renamed' : 'modified';
      await add(p.path, () => ({ ...base, kind: 'edited', status, ...(p.oldPath ? { renamed_from: p.oldPath } : {}) }));
    }
  }

  const present = new Set(notes.map((n) => n.path));
  const corrections: NoteCorrections[] = [];
  for (const group of groups.values()) {
    const wrote = group.proposedByYou || index.historyOf(group.path, 100).some((c) => c.actor === actor);
    corrections.push({
      path: group.path,
      exists: present.has(group.path),
      yours: wrote,
      changes: group.changes,
      more_changes: group.more,
    });
  }
  return {
    since: Number.isFinite(previousEnd) ? formatTime(new Date(previousEnd)) : null,
    previous_session: previous?.path ?? null,
    corrections,
    more_notes: leftOut.size,
    imports,
    more_imports: moreImports,
  };
}

/** The changed lines of an uncommitted edit: the diff against HEAD, or the whole file when it is new. */
async function uncommittedLines(vault: Vault, file: Uncommitted): Promise<{ lines: string[]; more: number }> {
  if (file.status === 'deleted') return { lines: [], more: 0 };
  if (file.status === 'modified') {
    const patch = await runGit(vault.repo, ['diff', 'HEAD', '--no-color', '--no-ext-diff', '-U0', '--', file.path]).catch(() => '');
    return changedLines(patch);
  }
  let text: string;
  try {
    text = vault.fs
      .readFileSync(nodePath.join(vault.root, file.path))
      .subarray(0, 64 * 1024)
      .toString('utf8');
  } catch {
    return { lines: [], more: 0 };
  }
  const raw = text.split(/\r?\n/);
  if (raw[raw.length - 1] === '') raw.pop();
  return capLines(
    raw.map((l) => marked('+', l)),
    MAX_LINES,
  );
}

/** The lines an earlier commit changed in `path`. */
async function editLines(vault: Vault, sha: string, path: string): Promise<{ lines: string[]; more: number }> {
  const patch = await runGit(vault.repo, ['show', '--format=', '--no-color', '--no-ext-diff', '-U0', sha, '--', path]).catch(() => '');
  return changedLines(patch);
}

function mtimeOf(vault: Vault, path: string): string | null {
  try {
    return formatTime(vault.fs.statSync(nodePath.join(vault.root, path)).mtime);
  } catch {
    return null;
  }
}

function timeOf(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  return Date.parse(value);
}
