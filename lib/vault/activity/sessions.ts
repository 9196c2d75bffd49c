import nodePath from 'node:path';
import { isSessionId } from '../ids';
import type { Vault } from '../vault';
import type { CommitIndex, CommitRecord } from '../git/commit-index';
import { changelogLines, checkFacts, type ProtocolCheck } from './protocol';
import { agentOfSessionId, factsFromNote, factsFromOpen, readSessionFacts, sessionIds, stampOfSessionId, type SessionFacts } from './session-facts';
import { isVaultError } from '../errors';
import type { OpenSession } from '../agents/sessions';

export type { SessionOutcomeView } from './session-facts';
import type { SessionOutcomeView } from './session-facts';

/** One session as the sessions list shows it: its facts, with what the commit index and the check add. */
export interface SessionRow extends Pick<SessionFacts, 'id' | 'path' | 'agent' | 'actor' | 'task' | 'project' | 'started' | 'ended' | 'outcome' | 'machine'> {
  /** The person at whose vault it ran (its commits' committer; this vault's person while it is open here), or null. */
  person: string | null;
  durationMs: number | null;
  /** The agent's commits in this session, its session note left out (from the commit index). */
  edits: number;
  inboxRaised: number;
  /** Whether every protocol rule holds; null while the session is open. */
  protocolOk: boolean | null;
}

/** Filters and paging of {@link listSessions}. */
export interface SessionQuery {
  /** Agent slug (`claude-code`; `agent:claude-code` is accepted too). */
  agent?: string;
  /** Vault path of a project note. */
  project?: string;
  outcome?: SessionOutcomeView;
  /** Only the sessions that ran on this machine (see {@link SessionRow.machine}). */
  machine?: string;
  /** Only the sessions that ran at this person's vault (see {@link SessionRow.person}). */
  person?: string;
  /** Started at or after / before this time (ms since the epoch). */
  since?: number;
  until?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string | null;
  /** Rows per page (default 25, at most 100). */
  limit?: number;
}

/** A page of sessions, with the agents and projects a filter can name. */
export interface SessionPage {
  rows: SessionRow[];
  /** The cursor of the next older page, or null when this is the oldest. */
  nextCursor: string | null;
  /** The newer page: `{ cursor: null }` is the first page; null when this page has no newer one (no cursor was given). */
  newer: { cursor: string | null } | null;
  agents: string[];
  projects: string[];
  /** The machines and people the history names (bounded), for the filters. */
  machines: string[];
  persons: string[];
}

/** At most this many session notes are read for one page; a page cut short says where to go on. */
const MAX_READS = 400;
/** The slack around a session id's stamp (written in the writer's local time) when filtering by date before reading. */
const ZONE_SLACK_MS = 15 * 3600_000;

interface CacheEntry {
  key: string;
  row: SessionRow;
  check: ProtocolCheck;
}
const cache = new WeakMap<Vault, Map<string, CacheEntry>>();

const cacheKey = (facts: SessionFacts, commits: readonly { seq: number }[]): string =>
  `${facts.note?.hash ?? `open:${facts.observed.touched.length}:${facts.observed.inbox.length}:${facts.observed.first_search}:${facts.observed.first_read}`}:${commits.length}:${commits.at(-1)?.seq ?? 0}`;

/**
 * The rows and protocol checks of sessions whose facts are read: every commit naming each from the
 * commit index, the changelog lines of all of them from one git process, each result cached until
 * the session's note or commits change.
 */
export async function sessionRows(vault: Vault, list: readonly SessionFacts[]): Promise<{ row: SessionRow; check: ProtocolCheck }[]> {
  const index = await vault.commits();
  let byId = cache.get(vault);
  if (!byId) cache.set(vault, (byId = new Map()));
  const known = byId;
  const pending = list.map((facts) => {
    const commits = index.list({ session: facts.id, oldestFirst: true, limit: 1000 });
    const key = cacheKey(facts, commits);
    const hit = known.get(facts.id);
    return { facts, commits, key, hit: hit && hit.key === key ? hit : null };
  });
  const misses = pending.filter((p) => !p.hit);
  const lines =
    misses.length > 0
      ? await changelogLines(
          vault,
          misses.flatMap((p) => p.commits),
        )
      : new Map<string, Set<string>>();
  const out: { row: SessionRow; check: ProtocolCheck }[] = [];
  for (const { facts, commits, key, hit } of pending) {
    if (hit) {
      out.push(hit);
      continue;
    }
    const check = await checkFacts(vault, facts, commits, lines);
    const entry = { key, row: rowOf(facts, commits, check, originOf(vault, facts, commits)), check };
    known.set(facts.id, entry);
    out.push(entry);
  }
  return out;
}

/** Where a session ran: its note's (or open state's) machine, else its first commit's; the person from its commits, or this vault's while it is open here. */
function originOf(vault: Vault, facts: SessionFacts, commits: readonly Pick<CommitRecord, 'machine' | 'person'>[]): Pick<SessionRow, 'machine' | 'person'> {
  const first = commits[0];
  const here = facts.outcome === 'open' ? vault.person.replace(/^human:/, '') : null;
  return { machine: facts.machine ?? first?.machine ?? null, person: first?.person ?? here };
}

function rowOf(facts: SessionFacts, commits: readonly CommitRecord[], check: ProtocolCheck, origin: Pick<SessionRow, 'machine' | 'person'>): SessionRow {
  const note = facts.path;
  const edits = commits.filter((c) => c.actor === facts.actor && !c.paths.some((p) => p.path === note)).length;
  const start = Date.parse(facts.started);
  const end = facts.ended ? Date.parse(facts.ended) : Number.NaN;
  return {
    id: facts.id,
    path: facts.path,
    agent: facts.agent,
    actor: facts.actor,
    task: facts.task,
    project: facts.project,
    started: facts.started,
    ended: facts.ended,
    durationMs: Number.isNaN(start) || Number.isNaN(end) ? null : Math.max(0, end - start),
    edits,
    inboxRaised: facts.observed.inbox.length,
    outcome: facts.outcome,
    ...origin,
    protocolOk: facts.outcome === 'open' ? null : check.ok,
  };
}

/** The project notes directly in the projects folder, for the project filter (names only, nothing read). */
async function projectPaths(vault: Vault): Promise<string[]> {
  const dir = nodePath.join(vault.root, vault.layout.projects);
  const entries = await vault.fs.readdir(dir).catch(() => []);
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => `${vault.layout.projects}/${e.name}`)
    .sort();
}

/**
 * Every session, newest first, with filters and cursor paging both ways: session ids start with
 * their time, so a page is found among the file names of the sessions folder (and the open
 * sessions), and only that page's notes (and the next match's: is there an older page?) are read;
 * edit counts come from the commit index. Filters on project, outcome and date read notes until
 * the page is full or {@link MAX_READS} were read;
 * `nextCursor` then says where to go on. `newer` is the page before this one (ids above the cursor).
 */
export async function listSessions(vault: Vault, query: SessionQuery = {}): Promise<SessionPage> {
  const limit = Math.min(Math.max(query.limit ?? 25, 1), 100);
  const { ids, open } = await sessionIds(vault);
  const agents = [...new Set(ids.map(agentOfSessionId))].sort();
  const projects = await projectPaths(vault);
  const cursor = query.cursor && isSessionId(query.cursor) ? query.cursor : null;
  const index = await vault.commits();
  const match = matcher(vault, query, open, index);
  const page: SessionFacts[] = [];
  let nextCursor: string | null = null;
  // Older: the ids below the cursor, newest first.
  const from = cursor ? ids.findIndex((id) => id < cursor) : 0;
  for (let i = from === -1 ? ids.length : from; i < ids.length; i += 1) {
    if (match.reads >= MAX_READS) {
      nextCursor = ids[i - 1] ?? null;
      break;
    }
    const facts = await match(ids[i]);
    if (!facts) continue;
    // One match past a full page: there is an older page (so Older never leads to an empty one).
    if (page.length === limit) {
      nextCursor = page[limit - 1].id;
      break;
    }
    page.push(facts);
  }
  // Newer: the ids above the cursor, oldest first, until one more than a page matched.
  let newer: SessionPage['newer'] = null;
  if (cursor) {
    const above = ids.filter((id) => id >= cursor).reverse();
    const newerMatch = matcher(vault, query, open, index);
    const found: string[] = [];
    for (const id of above) {
      if (found.length > limit || newerMatch.reads >= MAX_READS) break;
      if (await newerMatch(id)) found.push(id);
    }
    newer = { cursor: found.length > limit ? found[limit] : newerMatch.reads >= MAX_READS ? (found.at(-1) ?? null) : null };
  }
  const rows = (await sessionRows(vault, page)).map((r) => r.row);
  return { rows, nextCursor, newer, agents, projects, ...index.origins() };
}

/** A test of one session id against a query's filters: its facts when it matches (reading its note only when a filter needs it), counting the reads. */
function matcher(vault: Vault, query: SessionQuery, open: Map<string, OpenSession>, index: CommitIndex) {
  const agent = query.agent?.replace(/^agent:/, '');
  const test = async (id: string): Promise<SessionFacts | null> => {
    if (agent && agentOfSessionId(id) !== agent) return null;
    if (query.outcome === 'open' && !open.has(id)) return null;
    if (query.outcome && query.outcome !== 'open' && open.has(id)) return null;
    const stamp = stampOfSessionId(id);
    if (query.since !== undefined && stamp < query.since - ZONE_SLACK_MS) return null;
    if (query.until !== undefined && stamp >= query.until + ZONE_SLACK_MS) return null;
    test.reads += 1;
    const facts = await factsOf(vault, id, open);
    if (!facts) return null;
    if (query.outcome && facts.outcome !== query.outcome) return null;
    if (query.project && facts.project !== query.project) return null;
    if (query.machine || query.person) {
      const origin = originOf(vault, facts, index.list({ session: id, oldestFirst: true, limit: 1 }));
      if (query.machine && origin.machine !== query.machine) return null;
      if (query.person && origin.person !== query.person) return null;
    }
    const started = Date.parse(facts.started);
    if (query.since !== undefined && !(started >= query.since)) return null;
    if (query.until !== undefined && !(started < query.until)) return null;
    return facts;
  };
  test.reads = 0;
  return test;
}

async function factsOf(vault: Vault, id: string, open: Map<string, OpenSession>): Promise<SessionFacts | null> {
  const running = open.get(id);
  if (running) return factsFromOpen(running);
  try {
    const note = await vault.readNote(`${vault.layout.sessions}/${id}.md`);
    return factsFromNote(id, note);
  } catch (error) {
    if (isVaultError(error, 'not_found')) return readSessionFacts(vault, id);
    throw error;
  }
}
