import nodePath from 'node:path';
import { isVaultError } from '../errors';
import { isSessionId } from '../ids';
import { linkTarget } from '../notes/note-formats';
import type { Note } from '../notes/note';
import type { SessionObservations } from '../agents/contract-write';
import { listOpenSessions, readOpenSession, summarizeObservations, type OpenSession } from '../agents/sessions';
import type { Vault } from '../vault';

/** A session's outcome as the dashboard shows it: the note's outcome, or `open` while it runs. */
export type SessionOutcomeView = 'done' | 'partial' | 'abandoned' | 'open';

/** What is known of one session, from its note (ended) or its open state (running). */
export interface SessionFacts {
  id: string;
  /** The session note's vault path; null while the session is open. */
  path: string | null;
  /** The agent slug (`agent:<slug>` is the actor). */
  agent: string;
  actor: string;
  task: string;
  /** Vault path of the project note, when the session named one. */
  project: string | null;
  /** ISO times with offset as written. */
  started: string;
  ended: string | null;
  outcome: SessionOutcomeView;
  /** The machine it ran on: the note's `machine`, or the open state's; null when neither says. */
  machine: string | null;
  /** What Lucid observed; `first_read` is null in notes written before it was observed. */
  observed: SessionObservations & { first_read: string | null };
  /** The note (null while open). */
  note: Note | null;
}

const OUTCOMES = new Set(['done', 'partial', 'abandoned']);

const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : value instanceof Date ? value.toISOString() : null);
const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' ? [value] : [];
const pathOfLink = (value: string): string => linkTarget(value) ?? value;

/** The agent slug inside a session id (`20261130-140112-claude-code-k3tq` → `claude-code`). */
export function agentOfSessionId(id: string): string {
  return id.slice(16, -5);
}

/** The start of a session id's stamp as a local time (ms), or NaN. */
export function stampOfSessionId(id: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})/.exec(id);
  return m ? new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]).getTime() : Number.NaN;
}

/** The facts of an ended session from its note. */
export function factsFromNote(id: string, note: Note): SessionFacts {
  const fm = note.frontmatter;
  const outcome = str(fm.outcome);
  const agent = (str(fm.agent) ?? agentOfSessionId(id)).replace(/^agent:/, '');
  const project = str(fm.project);
  return {
    id,
    path: note.path,
    agent,
    actor: `agent:${agent}`,
    task: str(fm.task) ?? note.title,
    project: project ? pathOfLink(project) : null,
    started: str(fm.started) ?? '',
    ended: str(fm.ended),
    outcome: outcome && OUTCOMES.has(outcome) ? (outcome as SessionOutcomeView) : 'abandoned',
    machine: str(fm.machine),
    observed: {
      searched: list(fm.searched),
      read: list(fm.read).map(pathOfLink),
      touched: list(fm.touched).map(pathOfLink),
      inbox: list(fm.inbox).map(pathOfLink),
      skills_used: list(fm.skills_used).map(pathOfLink),
      first_search: str(fm.first_search),
      first_read: str(fm.first_read),
      first_write: str(fm.first_write),
    },
    note,
  };
}

/** The facts of a session still open, from its state in `.lucid/sessions/`. */
export function factsFromOpen(open: OpenSession): SessionFacts {
  const observed = summarizeObservations(open.events);
  return {
    id: open.id,
    path: null,
    agent: open.slug,
    actor: open.actor,
    task: open.task,
    project: open.project,
    started: open.started,
    ended: null,
    outcome: 'open',
    machine: open.machine ?? null,
    observed: { ...observed, first_read: observed.first_read ?? null },
    note: null,
  };
}

/** The vault path of session `id`'s note. */
export function sessionNotePath(vault: Vault, id: string): string {
  return `${vault.layout.sessions}/${id}.md`;
}

/** Session `id`: its note when it has ended, else its open state; null when there is neither. */
export async function readSessionFacts(vault: Vault, id: string): Promise<SessionFacts | null> {
  if (!isSessionId(id)) return null;
  const path = sessionNotePath(vault, id);
  try {
    const note = await vault.readNote(path);
    if (note.lucidType === 'session' || note.type === 'session') return factsFromNote(id, note);
  } catch (error) {
    if (!isVaultError(error, 'not_found')) throw error;
  }
  const open = readOpenSession(vault, id);
  return open ? factsFromOpen(open) : null;
}

/**
 * The ids of every session: the notes named `<session id>.md` directly in the sessions folder and
 * the open sessions, newest first (ids start with their time). Reads names only, never a note.
 */
export async function sessionIds(vault: Vault): Promise<{ ids: string[]; open: Map<string, OpenSession> }> {
  const names = new Set<string>();
  const dir = nodePath.join(vault.root, vault.layout.sessions);
  for (const entry of await vault.fs.readdir(dir).catch(() => [])) {
    if (!entry.isFile() || !entry.name.endsWith('.md')) continue;
    const id = entry.name.slice(0, -3);
    if (isSessionId(id)) names.add(id);
  }
  const open = new Map<string, OpenSession>();
  for (const session of listOpenSessions(vault)) {
    if (names.has(session.id)) continue; // its note is written: it has ended
    open.set(session.id, session);
    names.add(session.id);
  }
  return { ids: [...names].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0)), open };
}
