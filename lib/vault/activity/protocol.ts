import { isUnderFolded } from '../notes/protected';
import { parseFrontmatter } from '../notes/frontmatter';
import { showOutput } from '../git/porcelain';
import { showFile } from '../git/repo';
import type { CommitIndex, CommitRecord } from '../git/commit-index';
import { DECISION_TRAILER, END_SESSION_TRAILER } from '../git/commit-message';
import type { Vault } from '../vault';
import { readSessionFacts, sessionNotePath, type SessionFacts } from './session-facts';

/** One rule of the memory protocol, checked against what was observed and committed. */
export interface ProtocolRule {
  id: 'read-before-write' | 'ended' | 'edits-logged' | 'decisions-recorded';
  ok: boolean;
  /** One sentence: what was observed. */
  detail: string;
}

/** The protocol check of one session: ok when every rule holds. `open`: the session has not ended yet. */
export interface ProtocolCheck {
  ok: boolean;
  open: boolean;
  rules: ProtocolRule[];
}

type SessionCommit = CommitRecord & { seq: number };

/** The UTC offset (minutes) an ISO time was written with (`+01:00`, `Z`), or null. */
function offsetOf(iso: string): number | null {
  const m = /(?:([+-])(\d{2}):?(\d{2})|Z)$/.exec(iso.trim());
  if (!m) return null;
  return m[1] ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/**
 * A time (seconds) as `2026-11-30 14:02:11` in the zone of the session's start, as the pages show
 * the session's own times (the server's zone when the start has no offset).
 */
function clockIn(started: string): (seconds: number) => string {
  const offset = offsetOf(started);
  const p = (n: number) => String(n).padStart(2, '0');
  return (seconds) => {
    const d = new Date(seconds * 1000 + (offset ?? -new Date(seconds * 1000).getTimezoneOffset()) * 60_000);
    return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
  };
}

const short = (c: SessionCommit) => `${c.sha.slice(0, 7)} (${c.subject})`;
const seconds = (time: string | null): number | null => {
  if (!time) return null;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? null : Math.floor(ms / 1000);
};

/** The session's own writes: its agent's commits other than its session note. */
function agentWrites(vault: Vault, facts: SessionFacts, commits: SessionCommit[]): SessionCommit[] {
  const note = sessionNotePath(vault, facts.id);
  return commits.filter((c) => c.actor === facts.actor && !c.paths.some((p) => p.path === note));
}

/**
 * Read before write (protocol step 2, "Search before you assume"): the first observed search (or
 * read, when the note records `first_read`) is at or before the session's first commit in git.
 * Times are to the second, so a search in the same second as the commit counts as before it.
 */
function readBeforeWrite(vault: Vault, facts: SessionFacts, commits: SessionCommit[]): ProtocolRule {
  const id = 'read-before-write' as const;
  const clock = clockIn(facts.started);
  const writes = agentWrites(vault, facts, commits);
  if (writes.length === 0) return { id, ok: true, detail: 'It committed nothing, so there was nothing to look up first.' };
  const first = writes.reduce((a, b) => (b.time < a.time || (b.time === a.time && b.seq < a.seq) ? b : a));
  const search = seconds(facts.observed.first_search);
  const read = seconds(facts.observed.first_read);
  const looks = [search, read].filter((t): t is number => t !== null);
  const look = looks.length > 0 ? Math.min(...looks) : null;
  const what = look === null ? '' : look === search ? 'searched' : 'read a note';
  if (look === null) {
    // A note from before reads were timed lists what it read without a time: only searches count there.
    const untimedReads = facts.observed.first_read === null && facts.observed.read.length > 0;
    const kinds = untimedReads ? 'no search was observed (this note does not record when it first read)' : 'no search or read was observed';
    return { id, ok: false, detail: `Its first commit ${short(first)} at ${clock(first.time)} came before any lookup: ${kinds}.` };
  }
  if (look <= first.time)
    return { id, ok: true, detail: `It first ${what} at ${clock(look)}, before its first commit ${short(first)} at ${clock(first.time)}.` };
  return { id, ok: false, detail: `Its first commit ${short(first)} at ${clock(first.time)} came before it first ${what} at ${clock(look)}.` };
}

/**
 * Ended (protocol step 6): `end_session` was called. Git says so: the commit that wrote the session
 * note carries `Lucid-Tool: end_session`; one Lucid wrote for a client that went away does not. A
 * note from before that trailer existed counts as ended unless its outcome is abandoned.
 */
function ended(vault: Vault, facts: SessionFacts, commits: SessionCommit[]): ProtocolRule {
  const id = 'ended' as const;
  if (facts.outcome === 'open') return { id, ok: false, detail: 'Still open: end_session has not been called yet.' };
  const note = sessionNotePath(vault, facts.id);
  const wrote = commits.find((c) => c.paths.some((p) => p.path === note && p.status === 'A'));
  const [key, value] = END_SESSION_TRAILER;
  if (wrote?.trailers[key] === value) return { id, ok: true, detail: `It called end_session (commit ${short(wrote)}).` };
  if (facts.outcome === 'abandoned') return { id, ok: false, detail: 'Abandoned: the client went away without calling end_session, and Lucid ended it.' };
  return { id, ok: true, detail: `It ended with outcome ${facts.outcome}; its note's commit predates the end_session trailer.` };
}

/**
 * The edit ids whose changelog line each commit adds (by sha), from one `git show` of the
 * changelog across all of them: a page of sessions costs one git process, not one per session.
 */
export async function changelogLines(vault: Vault, commits: readonly SessionCommit[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const withLog = [...new Set(commits.filter((c) => c.paths.some((p) => p.path === vault.layout.changelog)).map((c) => c.sha))];
  for (let at = 0; at < withLog.length; at += 200) {
    const text = await showOutput(vault.repo, [
      '--format=%x1e%H',
      '--unified=0',
      '--no-color',
      '--no-ext-diff',
      ...withLog.slice(at, at + 200),
      '--',
      `:(literal)${vault.layout.changelog}`,
    ]);
    for (const chunk of text.split('\u001e')) {
      const [sha, ...lines] = chunk.split('\n');
      if (!sha.trim()) continue;
      const ids = new Set<string>();
      for (const line of lines) {
        const m = /^\+[^+].* \^(e[a-z2-7]{12})\s*$/.exec(line);
        if (m) ids.add(m[1]);
      }
      out.set(sha.trim(), ids);
    }
  }
  return out;
}

/**
 * Edits logged (the vault's rule that every edit is one commit with its changelog line): each
 * commit naming the session has a `Lucid-Edit` and adds that edit's changelog line in the same
 * commit, and each note the session was observed touching has such a commit.
 */
function editsLogged(facts: SessionFacts, commits: SessionCommit[], lines: Map<string, Set<string>>): ProtocolRule {
  const id = 'edits-logged' as const;
  const problems: string[] = [];
  for (const c of commits) {
    if (!c.editId) problems.push(`commit ${short(c)} has no Lucid-Edit`);
    else if (!lines.get(c.sha)?.has(c.editId)) problems.push(`commit ${short(c)} does not add the changelog line of ${c.editId}`);
  }
  const committed = new Set(commits.flatMap((c) => c.paths.flatMap((p) => [p.path, p.oldPath ?? ''])));
  const missing = facts.observed.touched.filter((p) => !committed.has(p));
  if (missing.length > 0)
    problems.push(`no commit of this session touches ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ` and ${missing.length - 3} more` : ''}`);
  if (problems.length > 0)
    return { id, ok: false, detail: `${problems.slice(0, 3).join('; ')}${problems.length > 3 ? `; and ${problems.length - 3} more` : ''}.` };
  const n = commits.length;
  return {
    id,
    ok: true,
    detail: n === 0 ? 'No commits name this session yet.' : `All ${n} commit${n === 1 ? '' : 's'} naming this session carry an edit id and its changelog line.`,
  };
}

/** A note's `type`, `status` and `superseded_by` as one version of it says (null: no such version, or no frontmatter). */
function decisionFields(text: string | null): { type: unknown; status: unknown; superseded_by: unknown } | null {
  if (text === null) return null;
  const parsed = parseFrontmatter(text);
  return parsed.ok
    ? { type: parsed.data.type, status: parsed.data.status, superseded_by: parsed.data.superseded_by }
    : { type: null, status: null, superseded_by: null };
}

const shown = (value: unknown): string => (value === undefined || value === null || value === '' ? 'none' : String(value));

/**
 * What commit `c` did to `p` that only record_decision may do, or null: add a decision note (a new
 * file, or a note made a decision), or change a decision's `status` or `superseded_by` (superseding
 * it). Other edits of a decision's text (appending, fixing a line) are ordinary edits. A note outside
 * the decisions folder that is no decision on disk now is passed over without asking git (a page of
 * sessions would otherwise cost two git processes per note its agents wrote).
 */
async function decisionBypass(vault: Vault, c: SessionCommit, p: SessionCommit['paths'][number]): Promise<string | null> {
  if (p.status === 'D' || !p.path.toLowerCase().endsWith('.md')) return null;
  for (const folder of [vault.layout.sessions, vault.layout.inbox, vault.layout.skills]) if (isUnderFolded(p.path, folder)) return null;
  const inFolder = isUnderFolded(p.path, vault.layout.decisions) || (p.oldPath !== null && isUnderFolded(p.oldPath, vault.layout.decisions));
  if (!inFolder) {
    const now = await vault.readNote(p.path).catch(() => null);
    if (now && now.type !== 'decision') return null;
  }
  const after = decisionFields(await showFile(vault.repo, c.sha, p.path));
  const before = p.status === 'A' ? null : decisionFields(await showFile(vault.repo, `${c.sha}^`, p.oldPath ?? p.path));
  const isDecision = (f: typeof after) => f !== null && (f.type === 'decision' || (inFolder && f.type == null));
  if (!isDecision(after) && !isDecision(before)) return null;
  if (before === null) return `added decision ${p.path}`;
  if (!isDecision(before)) return `made ${p.path} a decision`;
  if (after === null) return null;
  for (const field of ['status', 'superseded_by'] as const) {
    if (shown(before[field]) !== shown(after[field])) return `changed ${field} of ${p.path} from ${shown(before[field])} to ${shown(after[field])}`;
  }
  return null;
}

/**
 * Decisions recorded (protocol step 3, "Decisions go through record_decision (it supersedes the one
 * it replaces)"): every decision note the agent added, and every change of a decision's `status` or
 * `superseded_by`, came in a commit of record_decision (its `Lucid-Tool` trailer).
 */
async function decisionsRecorded(vault: Vault, facts: SessionFacts, commits: SessionCommit[]): Promise<ProtocolRule> {
  const id = 'decisions-recorded' as const;
  const [key, value] = DECISION_TRAILER;
  let recorded = 0;
  const bypassed: string[] = [];
  for (const c of agentWrites(vault, facts, commits)) {
    if (c.trailers[key] === value) {
      recorded += 1;
      continue;
    }
    for (const p of c.paths) {
      const what = await decisionBypass(vault, c, p);
      if (what) {
        bypassed.push(`${what} (commit ${short(c)})`);
        break;
      }
    }
  }
  if (bypassed.length > 0) {
    return {
      id,
      ok: false,
      detail: `Without record_decision it ${bypassed.slice(0, 3).join('; ')}${bypassed.length > 3 ? `; and ${bypassed.length - 3} more` : ''}.`,
    };
  }
  return {
    id,
    ok: true,
    detail:
      recorded === 0
        ? 'It recorded no decision and superseded none.'
        : `Its ${recorded} decision commit${recorded === 1 ? '' : 's'} came through record_decision.`,
  };
}

/**
 * The check of a session whose facts and commits (every commit naming it) are already read;
 * `lines` are the changelog lines of those commits when a caller read them for many sessions at once.
 */
export async function checkFacts(vault: Vault, facts: SessionFacts, commits: SessionCommit[], lines?: Map<string, Set<string>>): Promise<ProtocolCheck> {
  const rules: ProtocolRule[] = [
    readBeforeWrite(vault, facts, commits),
    ended(vault, facts, commits),
    editsLogged(facts, commits, lines ?? (await changelogLines(vault, commits))),
    await decisionsRecorded(vault, facts, commits),
  ];
  return { ok: rules.every((r) => r.ok), open: facts.outcome === 'open', rules };
}

/** Every commit whose `Lucid-Session` names the session, oldest first, from the commit index. */
export async function sessionCommits(vault: Vault, id: string, index?: CommitIndex): Promise<SessionCommit[]> {
  return (index ?? (await vault.commits())).list({ session: id, oldestFirst: true, limit: 1000 });
}

/**
 * The protocol check of one ended or open session, from its note's observed times and git (the
 * commit index), never from what the session says about itself: read before write, ended with
 * end_session (its note's commit says so), every edit with its changelog line, decisions through record_decision. Null when
 * there is no such session.
 */
export async function checkSessionProtocol(vault: Vault, sessionId: string): Promise<ProtocolCheck | null> {
  const facts = await readSessionFacts(vault, sessionId);
  if (!facts) return null;
  return checkFacts(vault, facts, await sessionCommits(vault, sessionId));
}
