import type { CommitIndex, CommitRecord } from '../git/commit-index';
import type { Note } from '../notes/note';
import { basenameOf } from '../notes/paths';
import type { NoteLookup } from './note-lookup';

/**
 * Where "since your last session" starts: the agent's previous session, found through the commit
 * index, and the people's commits after it, never a look through every session of the vault.
 */

const NO_SESSION_WINDOW_DAYS = 14;
/** People's commits read at most; the rest are counted. */
const MAX_SCANNED = 1000;
/** Session notes of the agent read to find its previous session: its newest by commit, the latest ended among them. */
const PREVIOUS_READ = 5;

/**
 * The agent's previous session: of the session notes its own commits created or changed (newest
 * first, from the commit index), the one that ended last, read from its note (type session, this
 * agent, still in the vault). Never a look through every session of the vault.
 */
export async function previousSession(lookup: NoteLookup, index: CommitIndex, input: { slug: string; excludeSession?: string }): Promise<Note | null> {
  const paths: string[] = [];
  const { layout } = lookup.vault;
  // An agent that never committed has no session note of its own (a look at the actor index alone).
  if (index.countWhere({ actor: `agent:${input.slug}` }) === 0) return null;
  for (let beforeSeq: number | undefined; paths.length < PREVIOUS_READ; ) {
    const page = index.list({ actor: `agent:${input.slug}`, folders: [layout.sessions], beforeSeq, limit: 50 });
    for (const c of page) {
      for (const p of c.paths) {
        const inSessions = p.path.startsWith(`${layout.sessions}/`) && p.status !== 'D';
        if (inSessions && !paths.includes(p.path) && basenameOf(p.path) !== input.excludeSession && lookup.file(p.path)) paths.push(p.path);
      }
    }
    if (page.length < 50) break;
    beforeSeq = page[page.length - 1].seq;
  }
  let previous: Note | null = null;
  for (const n of await lookup.notes(paths.slice(0, PREVIOUS_READ))) {
    if (n.lucidType !== 'session' || n.frontmatter.agent !== input.slug || basenameOf(n.path) === input.excludeSession) continue;
    if (!previous || (timeOf(n.frontmatter.ended) || 0) > (timeOf(previous.frontmatter.ended) || 0)) previous = n;
  }
  return previous;
}

/**
 * People's commits to report, newest first: those after the previous session's first commit (its
 * place in the history, so a wrong clock cannot hide or repeat a correction, and a correction made
 * while it ran still counts), else since its end, else the last 14 days; at most 1,000, and how
 * many more there were.
 */
export function peopleCommits(index: CommitIndex, previous: Note | null, previousEnd: number, now: Date): { commits: CommitRecord[]; more: number } {
  const session = previous ? basenameOf(previous.path) : null;
  const own = session ? index.list({ session, limit: 1000 }) : [];
  const marker = own.length > 0 ? own[own.length - 1] : null;
  const query = marker
    ? { people: true, afterSeq: marker.seq }
    : { people: true, since: Math.floor((Number.isFinite(previousEnd) ? previousEnd : now.getTime() - NO_SESSION_WINDOW_DAYS * 86_400_000) / 1000) };
  // The same history answers the same question: from the last answer while HEAD has not moved.
  const head = index.list({ limit: 1 })[0]?.sha ?? null;
  const known = peopleKnown.get(index);
  if (known && known.head === head && known.more === 0) {
    if (marker && known.afterSeq === marker.seq) return { commits: known.commits, more: 0 };
    if (query.since !== undefined && known.since !== null && known.since <= query.since) {
      const since = query.since;
      return { commits: known.commits.filter((c) => c.time >= since), more: 0 };
    }
  }
  const commits = index.list({ ...query, limit: MAX_SCANNED });
  const more = commits.length < MAX_SCANNED ? 0 : index.countWhere(query) - commits.length;
  peopleKnown.set(index, { head, afterSeq: marker?.seq ?? null, since: query.since ?? null, commits, more });
  return { commits, more };
}

/** The last answer of {@link peopleCommits} per commit index: every people's commit after `afterSeq` or since `since` (seconds), when `more` is 0. */
const peopleKnown = new WeakMap<CommitIndex, { head: string | null; afterSeq: number | null; since: number | null; commits: CommitRecord[]; more: number }>();

/** A time property in milliseconds, NaN when it is not a time. */
export function timeOf(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  return Date.parse(value);
}
