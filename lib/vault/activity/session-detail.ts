import { parseMoltTrailer } from '../git/commit-message';
import nodePath from 'node:path';
import type { CommitRecord } from '../git/commit-index';
import { isEditedAccept } from '../inbox/decide';
import { parseFrontmatter } from '../notes/frontmatter';
import type { Vault } from '../vault';
import { normalizeVaultPath } from '../notes/paths';
import { sessionCommits, type ProtocolCheck } from './protocol';
import { readSessionFacts } from './session-facts';
import { sessionRows, type SessionRow } from './sessions';

/** What became of a proposal a session sent to the inbox. */
export type InboxFateState = 'pending' | 'accepted' | 'edited' | 'rejected' | 'removed';

/** One inbox item a session raised, and what became of it. */
export interface InboxFate {
  /** The inbox note's vault path. */
  path: string;
  /** The note the proposal is about, and what it would do there, when known. */
  target: string | null;
  action: string | null;
  state: InboxFateState;
  /** Who decided (`human:<name>`), the commit, its time (seconds) and reason (a rejection's reason), when decided. */
  decidedBy: string | null;
  commit: string | null;
  time: number | null;
  reason: string | null;
}

/** A skill a session read or molted. */
export interface SkillUse {
  path: string;
  read: boolean;
  molts: { from: number; to: number; commit: string; editId: string | null }[];
}

/** Everything the session page shows about one session. */
export interface SessionDetail {
  row: SessionRow;
  /** The summary the session gave (the note's text under its title), and its next steps; null while open. */
  summary: string | null;
  nextSteps: string[];
  searched: string[];
  /** The notes it read (skills included), and whether each is still there. */
  read: { path: string; exists: boolean }[];
  /** Every commit whose `Lucid-Session` names the session, oldest first. */
  commits: (CommitRecord & { seq: number })[];
  inbox: InboxFate[];
  skills: SkillUse[];
  protocol: ProtocolCheck;
}

/** The summary (text between the title and the first `## `) and the next steps of a session note's body. */
export function summaryOfBody(body: string): { summary: string; nextSteps: string[] } {
  const lines = body.replace(/\r\n/g, '\n').split('\n');
  const start = lines.findIndex((l) => /^# /.test(l));
  const rest = lines.slice(start + 1);
  const firstSection = rest.findIndex((l) => /^## /.test(l));
  const summary = (firstSection === -1 ? rest : rest.slice(0, firstSection)).join('\n').trim();
  const steps: string[] = [];
  const at = rest.findIndex((l) => /^## Next steps\s*$/i.test(l));
  if (at !== -1) {
    for (const line of rest.slice(at + 1)) {
      if (/^## /.test(line)) break;
      const m = /^\s*[-*] (.*)$/.exec(line);
      if (m) steps.push(m[1].trim());
    }
  }
  return { summary, nextSteps: steps };
}

/** Whether a vault path a note names is there now (a path that is not a vault path is not). */
function existsInVault(vault: Vault, path: string): boolean {
  try {
    return vault.fs.existsSync(nodePath.join(vault.root, normalizeVaultPath(path)));
  } catch {
    return false;
  }
}

const subjectPath = (subject: string): string | null => {
  const at = subject.indexOf(' ');
  return at === -1 ? null : subject.slice(at + 1);
};

/** What became of one proposal: pending while its note is in the inbox, else the commit that took it out. */
async function fateOf(vault: Vault, path: string, commits: (CommitRecord & { seq: number })[]): Promise<InboxFate> {
  const fate: InboxFate = { path, target: null, action: null, state: 'pending', decidedBy: null, commit: null, time: null, reason: null };
  if (existsInVault(vault, path)) {
    const note = await vault.readNote(path).catch(() => null);
    if (note) {
      fate.target = typeof note.frontmatter.target === 'string' ? note.frontmatter.target : null;
      fate.action = typeof note.frontmatter.action === 'string' ? note.frontmatter.action : null;
    }
    return fate;
  }
  const removed = (c: CommitRecord) => c.paths.some((p) => p.path === path && p.status === 'D') || c.paths.some((p) => p.oldPath === path);
  // The session's own commits first (an accept or reject carries its session), then the file's history.
  const decided = [...commits].reverse().find(removed) ?? (await vault.history(path, 20)).find(removed) ?? null;
  if (!decided) return { ...fate, state: 'removed' };
  fate.decidedBy = decided.actor ?? decided.author;
  fate.commit = decided.sha;
  fate.time = decided.time;
  if (decided.op === 'accept' || decided.op === 'reject') {
    fate.target = subjectPath(decided.subject);
    fate.state = decided.op === 'reject' ? 'rejected' : isEditedAccept(decided) ? 'edited' : 'accepted';
    fate.reason = decided.op === 'reject' ? decided.reason || null : null;
  } else {
    fate.state = 'removed';
    fate.reason = decided.reason || decided.subject;
  }
  if (!fate.action) {
    const created = commits.find((c) => c.paths.some((p) => p.path === path && p.status === 'A'));
    const text = created ? await vault.commitDiff(created.sha, { path, maxBytes: 64 * 1024 }).catch(() => null) : null;
    const added = text?.patch
      .split('\n')
      .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
      .map((l) => l.slice(1))
      .join('\n');
    if (added) {
      const parsed = parseFrontmatter(added);
      if (parsed.ok && typeof parsed.data.action === 'string') fate.action = parsed.data.action;
      if (parsed.ok && typeof parsed.data.target === 'string') fate.target ??= parsed.data.target;
    }
  }
  return fate;
}

/** The skills a session read (its `skills_used`) and molted (its `molt` commits, by their `Lucid-Molt` trailer). */
function skillsOf(vault: Vault, used: string[], commits: (CommitRecord & { seq: number })[]): SkillUse[] {
  const byPath = new Map<string, SkillUse>();
  const get = (path: string) => {
    let use = byPath.get(path);
    if (!use) byPath.set(path, (use = { path, read: false, molts: [] }));
    return use;
  };
  for (const path of used) get(path).read = true;
  for (const c of commits) {
    if (c.op !== 'molt') continue;
    const m = parseMoltTrailer(c.trailers['Lucid-Molt']);
    const path = subjectPath(c.subject) ?? (m ? `${vault.layout.skills}/${m.skill}.md` : null);
    if (!path) continue;
    get(path).molts.push({ from: m?.from ?? 0, to: m?.to ?? 0, commit: c.sha, editId: c.editId });
  }
  return [...byPath.values()];
}

/**
 * One session for its page, tied together from its note (or open state), the commit index and
 * the vault: what it searched and read, every commit naming it, the inbox items it raised and what
 * became of each, the skills it read or molted, and its protocol check. Null when there is no such session.
 */
export async function sessionDetail(vault: Vault, id: string): Promise<SessionDetail | null> {
  const facts = await readSessionFacts(vault, id);
  if (!facts) return null;
  const commits = await sessionCommits(vault, id);
  const [{ row, check }] = await sessionRows(vault, [facts]);
  const body = facts.note ? summaryOfBody(facts.note.body) : null;
  const inbox: InboxFate[] = [];
  for (const path of facts.observed.inbox) inbox.push(await fateOf(vault, path, commits));
  return {
    row,
    summary: body ? body.summary || null : null,
    nextSteps: body?.nextSteps ?? [],
    searched: facts.observed.searched,
    read: facts.observed.read.map((path) => ({ path, exists: existsInVault(vault, path) })),
    commits,
    inbox,
    skills: skillsOf(vault, facts.observed.skills_used, commits),
    protocol: check,
  };
}
