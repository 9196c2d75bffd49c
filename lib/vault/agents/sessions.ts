import nodePath from 'node:path';
import { VaultError } from '../errors';
import { formatTime } from '../ids';
import type { Vault } from '../vault';
import { isSessionId } from '../ids';
import { notASessionId } from './contract';
import type { SessionObservations } from './contract-write';

/**
 * Open agent sessions, kept in `.lucid/sessions/<id>.jsonl` (local state, git-ignored) so that any
 * process (an MCP server, another server, a CLI verb) can continue or end a session. The first
 * line is the start record; every later line is one thing the session was observed doing. Lines
 * are appended with O_APPEND, one write each, so concurrent processes never lose an observation
 * and no lock is needed; a session ends when its note is committed and the file removed.
 */

/** Which process opened a session: an MCP server ends its own sessions as abandoned when its client goes. */
export interface SessionOwner {
  kind: 'mcp' | 'cli' | 'library';
  pid?: number;
  host?: string;
}

/** The start record of a session. */
export interface SessionStart {
  kind: 'start';
  id: string;
  /** The agent's name as given, and its slug (`agent:<slug>` is the actor). */
  agent: string;
  slug: string;
  task: string;
  /** Vault path of the project note, when one matched. */
  project: string | null;
  repo: string | null;
  /** ISO time with offset. */
  started: string;
  owner: SessionOwner;
  /** The machine the session was opened on (records written before machines were known have none). */
  machine?: string;
}

/** One observation of a session. `at` is an ISO time with offset. */
export type SessionEvent =
  | { kind: 'search'; query: string; at: string }
  | { kind: 'read'; path: string; at: string }
  | { kind: 'skill'; path: string; at: string }
  | { kind: 'write'; path: string; at: string; edit: string }
  | { kind: 'inbox'; path: string; at: string; edit: string };

/** An open session: its start record and what it was observed doing, in order. */
export interface OpenSession extends SessionStart {
  actor: string;
  events: SessionEvent[];
}

function sessionsDir(vault: Vault): string {
  const dir = nodePath.join(vault.stateDir(), 'sessions');
  if (!vault.fs.existsSync(dir)) vault.fs.mkdirSync(dir);
  return dir;
}

function stateFile(vault: Vault, id: string): string {
  if (!isSessionId(id)) {
    throw new VaultError('invalid_input', notASessionId(id), { field: 'session' });
  }
  return nodePath.join(sessionsDir(vault), `${id}.jsonl`);
}

/** Records a new open session, on this vault's machine; refuses an id that is already open. */
export function createSessionState(vault: Vault, start: Omit<SessionStart, 'kind' | 'machine'>): void {
  const file = stateFile(vault, start.id);
  try {
    vault.fs.writeNewFileSync(file, `${JSON.stringify({ kind: 'start', ...start, machine: vault.machine })}\n`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new VaultError('conflict', `Session ${start.id} is already open.`);
    throw error;
  }
}

function parseState(text: string): OpenSession | null {
  let start: SessionStart | null = null;
  const events: SessionEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let record: { kind?: string };
    try {
      record = JSON.parse(line) as { kind?: string };
    } catch {
      continue; // a line cut short by a crash
    }
    if (record.kind === 'start' && !start) start = record as SessionStart;
    else if (record.kind && record.kind !== 'start') events.push(record as SessionEvent);
  }
  if (!start) return null;
  return { ...start, actor: `agent:${start.slug}`, events };
}

/** The open session `id`, or null when it was never started or has ended. */
export function readOpenSession(vault: Vault, id: string): OpenSession | null {
  const file = stateFile(vault, id);
  let text: string;
  try {
    text = vault.fs.readFileSync(file).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return parseState(text);
}

/** The open session `id`; a sentence saying what to do when it is not open. */
export function requireOpenSession(vault: Vault, id: string): OpenSession {
  const session = readOpenSession(vault, id);
  if (session) return session;
  const note = `${vault.layout.sessions}/${id}.md`;
  if (vault.fs.existsSync(nodePath.join(vault.root, note))) {
    throw new VaultError('not_found', `Session ${id} has ended (its note is ${note}). Call start_session to begin a new one.`);
  }
  throw new VaultError('not_found', `No open session ${id}. Call start_session first and pass the session id it returns.`);
}

/** Appends one observation to an open session; does nothing when the session is not open. */
export function observeSession(vault: Vault, id: string, event: SessionEvent): void {
  const file = stateFile(vault, id);
  if (!vault.fs.existsSync(file)) return;
  vault.fs.appendFileSync(file, `${JSON.stringify(event)}\n`);
}

/** The time to stamp an observation with. */
export function observationTime(vault: Vault): string {
  return formatTime(vault.clock());
}

/** Every open session of the vault (any process's). */
export function listOpenSessions(vault: Vault): OpenSession[] {
  const dir = sessionsDir(vault);
  const out: OpenSession[] = [];
  for (const { name } of vault.fs.readdirSync(dir)) {
    if (!name.endsWith('.jsonl') || !isSessionId(name.slice(0, -6))) continue;
    try {
      const session = parseState(vault.fs.readFileSync(nodePath.join(dir, name)).toString('utf8'));
      if (session) out.push(session);
    } catch {
      // removed meanwhile
    }
  }
  return out.sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * The open sessions an MCP server on this machine left behind: opened by an MCP server on the same
 * host and machine (a folder two machines share holds the other's sessions too: those are never
 * this one's to end) whose process is gone. `owner` is the asking server.
 */
export function orphanedSessions(vault: Vault, owner: SessionOwner, isAlive: (pid: number) => boolean): OpenSession[] {
  return listOpenSessions(vault).filter(
    (s) =>
      s.owner.kind === 'mcp' &&
      s.owner.host === owner.host &&
      (s.machine ?? vault.machine) === vault.machine &&
      typeof s.owner.pid === 'number' &&
      s.owner.pid !== owner.pid &&
      !isAlive(s.owner.pid),
  );
}

/** Forgets an open session (after its note is committed). */
export function removeSessionState(vault: Vault, id: string): void {
  try {
    vault.fs.unlinkSync(stateFile(vault, id));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** What the session did, in the order it first did each thing, for its note. */
export function summarizeObservations(events: readonly SessionEvent[]): SessionObservations {
  const out: SessionObservations = { searched: [], read: [], touched: [], inbox: [], skills_used: [], first_search: null, first_read: null, first_write: null };
  const add = (list: string[], value: string) => {
    if (!list.includes(value)) list.push(value);
  };
  for (const event of events) {
    switch (event.kind) {
      case 'search':
        add(out.searched, event.query);
        out.first_search ??= event.at;
        break;
      case 'read':
        add(out.read, event.path);
        out.first_read ??= event.at;
        break;
      case 'skill':
        add(out.read, event.path);
        out.first_read ??= event.at;
        add(out.skills_used, event.path);
        break;
      case 'write':
        add(out.touched, event.path);
        out.first_write ??= event.at;
        break;
      case 'inbox':
        add(out.inbox, event.path);
        out.first_write ??= event.at;
        break;
    }
  }
  return out;
}
