import { isChangelogPath } from '../notes/layout';
import { SNAPSHOT_SUBJECT } from '../git/commit-message';
import { parseFrontmatter } from '../notes/frontmatter';
import { headState, runGit, showFile, worktreeBlobs } from '../git/repo';
import type { StatusEntry } from '../git/status';
import { formatTime } from '../ids';
import { isNoteFile } from '../notes/paths';
import { readConfined } from '../write/confine-read';
import { maskSecrets } from '../write/secrets';
import type { CommitIndex, CommitRecord } from '../git/commit-index';
import type { Vault } from '../vault';
import type { NoteLookup } from './note-lookup';
import { peopleCommits, previousSession, timeOf } from './since-when';
import { uncommittedNotes } from './worktree-status';
import type { Correction, NoteCorrections, SinceLastSession } from './contract-read';

/**
 * What people did to the vault since an agent's last session, read from the commit index and a
 * `git status` of the notes that can have changed (never a walk of the history, nor of every note): their commits with their own words, reverts (Lucid's
 * and plain `git revert`), inbox proposals they rejected, deleted or moved, edits saved on disk and
 * not committed yet, and imports of many files, one line each.
 */

const MAX_NOTES = 20;
const MAX_CHANGES = 5;
const MAX_LINES = 12;
const MAX_LINE_LENGTH = 200;
const MAX_REASON = 1000;
const MAX_IMPORTS = 5;
/** Inbox items whose proposal is read from git at most (one `git show` each); the rest are counted. */
const MAX_PROPOSALS = 60;
/** A person's commit that only adds notes, at least this many, is an import (a root commit always is). */
const IMPORT_MIN_NOTES = 20;
const NEW_FILE_BYTES = 64 * 1024;

const REVERT_LINE = 'This reverts commit ';

/**
 * git's own revert line in a message body ("This reverts commit <sha>.", and for a merge the
 * "changes made to <sha>." line after it): the sha it names, and the body without those lines.
 * Read line by line, without a regular expression over the whole body.
 */
function gitRevert(body: string): { sha: string; rest: string } | null {
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (!lines[i].startsWith(REVERT_LINE)) continue;
    const tail = lines[i].slice(REVERT_LINE.length);
    const sha = /^[0-9a-f]{7,40}/.exec(tail)?.[0];
    if (!sha || /^[0-9A-Za-z_]/.test(tail.slice(sha.length))) continue;
    const merge = lines[i].endsWith(', reversing') && (lines[i + 1] ?? '').startsWith('changes made to ');
    lines.splice(i, merge ? 2 : 1);
    return { sha, rest: lines.join('\n').trim() };
  }
  return null;
}

/**
 * The person's words in a commit, secrets masked: a Lucid commit's reason; a plain commit's subject
 * and body (git's "This reverts commit" line left out).
 */
export function personReason(commit: Pick<CommitRecord, 'actor' | 'subject' | 'reason'>): string {
  const body = commit.actor ? commit.reason : (gitRevert(commit.reason)?.rest ?? commit.reason.trim());
  const text = commit.actor ? body : [commit.subject, body].filter(Boolean).join('\n\n');
  const trimmed = maskSecrets(text.trim()).text;
  return trimmed.length > MAX_REASON ? `${trimmed.slice(0, MAX_REASON - 1)}…` : trimmed;
}

/** The commit a revert undid: Lucid's `Lucid-Reverts`/`Lucid-Reverts-Commit` trailers, or git's own "This reverts commit <sha>". */
export function revertedTarget(commit: Pick<CommitRecord, 'actor' | 'trailers' | 'reason'>): { edit: string } | { sha: string } | null {
  if (commit.actor && commit.trailers['Lucid-Reverts']) return { edit: commit.trailers['Lucid-Reverts'] };
  if (commit.actor && commit.trailers['Lucid-Reverts-Commit']) return { sha: commit.trailers['Lucid-Reverts-Commit'] };
  const revert = gitRevert(commit.reason);
  return revert ? { sha: revert.sha } : null;
}

/**
 * The `+ added` and `- removed` lines of a unified diff (`-U0`), secrets masked (each run of
 * removed or added lines masked as one text, so a key over several lines is caught whole), each cut
 * to 200 characters, at most `max` of them; `more` counts the rest.
 */
export function changedLines(patch: string, max = MAX_LINES): { lines: string[]; more: number } {
  const runs: { sign: '+' | '-'; lines: string[] }[] = [];
  let inHunk = false;
  for (const line of patch.split('\n')) {
    if (line.startsWith('@@')) inHunk = true;
    else if (line.startsWith('diff --git ')) inHunk = false;
    else if (inHunk && (line[0] === '+' || line[0] === '-')) {
      const sign = line[0];
      const last = runs[runs.length - 1];
      const text = line.slice(1).replace(/\r$/, '');
      if (last && last.sign === sign) last.lines.push(text);
      else runs.push({ sign, lines: [text] });
    }
  }
  return capLines(runs, max);
}

/** The lines of runs, each run masked as one text, then marked and cut. */
function capLines(runs: readonly { sign: '+' | '-'; lines: readonly string[] }[], max = MAX_LINES): { lines: string[]; more: number } {
  const all = runs.flatMap((run) =>
    maskSecrets(run.lines.join('\n'))
      .text.split('\n')
      .map((text) => (text === '' ? run.sign : `${run.sign} ${text}`)),
  );
  const lines = all.slice(0, max).map((l) => (l.length > MAX_LINE_LENGTH ? `${l.slice(0, MAX_LINE_LENGTH - 1)}…` : l));
  return { lines, more: Math.max(0, all.length - max) };
}

/** A person's edit of a file on disk that nobody committed yet. */
interface Uncommitted {
  path: string;
  /** Never `renamed`: the status is read without rename detection. */
  status: StatusEntry['status'];
  /** Milliseconds; 0 for a deleted file. */
  mtime: number;
}

/** The vault's notes (and inbox items) that differ from HEAD on disk or in the index, the newest saved first (mtimes from the listing). */
async function uncommittedFiles(lookup: NoteLookup, index: CommitIndex): Promise<Uncommitted[]> {
  let entries: StatusEntry[];
  try {
    entries = await uncommittedNotes(lookup, index);
  } catch {
    return [];
  }
  const out: Uncommitted[] = [];
  for (const { path, status } of entries) {
    if (isChangelogPath(lookup.vault.layout, path)) continue;
    out.push({ path, status, mtime: status === 'deleted' ? 0 : (lookup.file(path)?.mtimeMs ?? 0) });
  }
  return out.sort((a, b) => b.mtime - a.mtime || a.path.localeCompare(b.path));
}

interface Group {
  path: string;
  changes: Correction[];
  more: number;
  proposedByYou: boolean;
}

type Proposal = NonNullable<Correction['proposal']>;

/**
 * What people changed since `slug`'s previous session (from that session's first commit on), or in
 * the last 14 days when it has none: grouped by note, the note changed most recently first, each
 * change newest first with who, when and their words, every cut counted.
 */
export async function sinceLastSession(lookup: NoteLookup, input: { slug: string; now: Date; excludeSession?: string }): Promise<SinceLastSession> {
  const { vault } = lookup;
  const actor = `agent:${input.slug}`;
  const index = await vault.commits();
  const previous = await previousSession(lookup, index, input);
  const previousEnd = previous ? timeOf(previous.frontmatter.ended) : Number.NaN;
  const { commits, more: moreCommits } = peopleCommits(index, previous, previousEnd, input.now);

  const groups = new Map<string, Group>();
  const leftOut = new Set<string>();
  let unread = 0;
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
  /** Adds a change to `path`'s group, making it (and its git reads) only when there is room. */
  const add = async (path: string, change: () => Promise<Correction> | Correction, proposedByYou = false): Promise<void> => {
    const group = groupOf(path);
    if (!group) return;
    if (proposedByYou) group.proposedByYou = true;
    if (group.changes.length >= MAX_CHANGES) {
      group.more += 1;
      return;
    }
    group.changes.push(await change());
  };

  const isInbox = (p: string) => p.startsWith(`${vault.layout.inbox}/`);
  let proposalsRead = 0;
  /** The proposal an inbox item held at `commit`, or null once too many were read (then counted). */
  const proposalAt = async (commit: string, path: string): Promise<Proposal | null> => {
    if (proposalsRead >= MAX_PROPOSALS) {
      unread += 1;
      return null;
    }
    proposalsRead += 1;
    const text = await showFile(vault.repo, commit, path);
    const parsed = text ? parseFrontmatter(text) : null;
    const data = parsed?.ok ? parsed.data : {};
    const field = (key: string) => (typeof data[key] === 'string' ? String(data[key]) : null);
    const proposedBy = field('proposed_by');
    return { inbox_path: path, action: field('action'), target: field('target'), proposed_by: proposedBy, yours: proposedBy === actor };
  };

  // First what is on disk and not committed yet: the newest saved first.
  const now = formatTime(input.now);
  const uncommitted = await uncommittedFiles(lookup, index);
  const dirty = new Set(uncommitted.map((u) => u.path));
  const movedTo = await uncommittedMoves(vault, uncommitted, isInbox);
  for (const u of uncommitted) {
    if (isInbox(u.path)) {
      if (u.status !== 'deleted') continue;
      const proposal = await proposalAt('HEAD', u.path);
      if (!proposal) continue;
      const to = movedTo.get(u.path);
      const byHand = proposal.target !== null && (dirty.has(proposal.target) || to === proposal.target);
      const base = { by: vault.person, at: now, reason: '', op: null, commit: null, proposal };
      await add(
        proposal.target ?? u.path,
        () => (to && !byHand ? { ...base, kind: 'moved', moved_to: to } : { ...base, kind: byHand ? 'accepted_by_hand' : 'rejected' }),
        proposal.yours,
      );
      continue;
    }
    if (u.status === 'added' && [...movedTo.values()].includes(u.path)) continue;
    await add(u.path, async () => {
      const { lines, more } = await uncommittedLines(vault, u);
      return {
        kind: 'uncommitted',
        by: vault.person,
        at: u.mtime ? formatTime(new Date(u.mtime)) : now,
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
    // Installing Lucid is not a person correcting the memory.
    if (c.op === 'init') continue;
    const by = c.actor ?? `human:${c.author}`;
    const at = formatTime(new Date(c.time * 1000));
    const reason = personReason(c);
    const commit = c.sha.slice(0, 12);
    const base = { by, at, reason, op: c.op ?? 'commit', commit };

    const handled = new Set<string>();
    /** An inbox item this commit deleted or moved out: rejected, accepted by hand, or moved. */
    const settle = async (p: CommitRecord['paths'][number], from: string) => {
      const proposal = await proposalAt(`${c.sha}^`, from);
      if (!proposal) return;
      const touched = c.paths.some((q) => q.path === proposal.target || q.oldPath === proposal.target);
      const byHand = c.op !== 'reject' && proposal.target !== null && (touched || p.path === proposal.target);
      if (proposal.target && byHand) handled.add(proposal.target);
      if (p.status === 'R') handled.add(p.path);
      const correction: Correction =
        p.status === 'R' && !byHand
          ? { ...base, kind: 'moved', proposal, moved_to: p.path }
          : { ...base, kind: byHand ? 'accepted_by_hand' : 'rejected', proposal };
      await add(proposal.target ?? from, () => correction, proposal.yours);
    };
    const leavingInbox = c.paths.filter(
      (p) => (p.status === 'D' && isInbox(p.path)) || (p.status === 'R' && p.oldPath && isInbox(p.oldPath) && !isInbox(p.path)),
    );

    const reverted = revertedTarget(c);
    if (reverted) {
      // A revert of a proposal's commit takes the item out of the inbox: a rejection in the person's words.
      for (const p of leavingInbox) await settle(p, p.oldPath ?? p.path);
      const original = 'edit' in reverted ? index.byEdit(reverted.edit) : index.bySha(reverted.sha);
      for (const p of c.paths.filter((q) => isReported(q.path) && !isInbox(q.path))) {
        await add(p.path, async () => {
          const { lines, more } = original ? await editLines(vault, original.sha, p.path) : { lines: [], more: 0 };
          return {
            ...base,
            kind: 'reverted',
            undid: {
              edit: original?.editId ?? ('edit' in reverted ? reverted.edit : null),
              commit: original ? original.sha.slice(0, 12) : 'sha' in reverted ? reverted.sha.slice(0, 12) : null,
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

    if (!c.actor) {
      const added = c.paths.filter((p) => isReported(p.path));
      const onlyAdds = added.length > 0 && added.every((p) => p.status === 'A');
      if (c.subject === SNAPSHOT_SUBJECT || (onlyAdds && (c.parents === 0 || added.length >= IMPORT_MIN_NOTES))) {
        if (imports.length >= MAX_IMPORTS) moreImports += 1;
        else imports.push({ commit, by, at, reason, notes: added.length, files: c.paths.length, examples: added.slice(0, 3).map((p) => p.path) });
        continue;
      }
    }

    // Lucid's accept moves the proposal to its target itself: the target shows as edited below.
    if (c.op !== 'accept') for (const p of leavingInbox) await settle(p, p.oldPath ?? p.path);

    for (const p of c.paths) {
      if (!isReported(p.path) || isInbox(p.path) || handled.has(p.path)) continue;
      const status = p.status === 'A' ? 'added' : p.status === 'D' ? 'deleted' : p.status === 'R' ? 'renamed' : 'modified';
      await add(p.path, () => ({ ...base, kind: 'edited', status, ...(p.oldPath ? { renamed_from: p.oldPath } : {}) }));
    }
  }

  const committed = index.committedBy(actor, [...groups.keys()]);
  const corrections: NoteCorrections[] = [];
  for (const group of groups.values()) {
    const wrote = group.proposedByYou || committed.has(group.path);
    const exists = lookup.file(group.path) !== undefined && isNoteFile(group.path);
    corrections.push({ path: group.path, exists, yours: wrote, changes: group.changes, more_changes: group.more });
  }
  return {
    since: Number.isFinite(previousEnd) ? formatTime(new Date(previousEnd)) : null,
    previous_session: previous?.path ?? null,
    corrections,
    more_notes: leftOut.size + unread,
    more_commits: moreCommits,
    imports,
    more_imports: moreImports,
  };
}

/**
 * Inbox items deleted on disk whose bytes reappear in a new file elsewhere: a proposal a person
 * moved out of the inbox in Obsidian, by inbox path → where it went.
 */
async function uncommittedMoves(vault: Vault, files: readonly Uncommitted[], isInbox: (p: string) => boolean): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const gone = files.filter((f) => f.status === 'deleted' && isInbox(f.path)).map((f) => f.path);
  const fresh = files.filter((f) => f.status === 'added' && !isInbox(f.path)).map((f) => f.path);
  if (gone.length === 0 || fresh.length === 0) return out;
  try {
    const { blobs: before } = await headState(vault.repo, gone);
    const now = await worktreeBlobs(vault.repo, fresh);
    const byBlob = new Map([...now].map(([path, blob]) => [blob, path]));
    for (const [path, blob] of before) {
      const to = byBlob.get(blob);
      if (to) out.set(path, to);
    }
  } catch {
    // Without the blobs a move reads as a deletion and a new note: still reported, less precisely.
  }
  return out;
}

/** The changed lines of an uncommitted edit: the diff against HEAD, or the start of the file when it is new. */
async function uncommittedLines(vault: Vault, file: Uncommitted): Promise<{ lines: string[]; more: number }> {
  if (file.status === 'deleted') return { lines: [], more: 0 };
  if (file.status === 'modified') {
    const patch = await runGit(vault.repo, ['diff', 'HEAD', '--no-color', '--no-ext-diff', '--no-textconv', '-U0', '--', `:(literal)${file.path}`]).catch(
      () => '',
    );
    return changedLines(patch);
  }
  let text: string;
  try {
    // Through the vault's confinement: a new "note" that links outside the vault is never read.
    text = (await readConfined(vault.fs, vault.root, file.path)).bytes.subarray(0, NEW_FILE_BYTES).toString('utf8');
  } catch {
    return { lines: [], more: 0 };
  }
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return capLines([{ sign: '+', lines }]);
}

/** The lines an earlier commit changed in `path`. */
async function editLines(vault: Vault, sha: string, path: string): Promise<{ lines: string[]; more: number }> {
  const patch = await runGit(vault.repo, [
    'show',
    '--format=',
    '--no-color',
    '--no-ext-diff',
    '--no-textconv',
    '-M',
    '-U0',
    sha,
    '--',
    `:(literal)${path}`,
  ]).catch(() => '');
  return changedLines(patch);
}
