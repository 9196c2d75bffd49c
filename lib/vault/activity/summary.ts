import { parseMoltTrailer } from '../git/commit-message';
import { isChangelogPath, type VaultLayout } from '../notes/layout';
import { foldersOfType, type CommitRecord } from '../git/commit-index';
import { listInbox } from '../inbox/queue';
import { isEditedAccept } from '../inbox/decide';
import { personReason, revertedTarget } from '../agents/corrections';
import { NOTE_TYPES } from '../notes/schema';
import type { Vault } from '../vault';
import { trimEndOf } from '../text';
import { checkSessionProtocol, type ProtocolRule } from './protocol';
import { listSessions, type SessionOutcomeView } from './sessions';
import { type ActivityRange, dayOf, daysOf, localTimeZone } from './week';

/** What the agents (and the people correcting them) did in a span of time, from the commit index. */
export interface ActivitySummary {
  range: ActivityRange;
  /** The machine and person the summary was narrowed to (absent or empty: everyone's, everywhere). */
  origin?: ActivityOrigin;
  /** Commits with a `Lucid-Edit` trailer in the range. */
  edits: number;
  /** Edits per calendar day of the range (the vault's time zone), every day listed, by actor and by note type. */
  byDay: { day: string; byActor: Record<string, number>; byType: Record<string, number> }[];
  /** The series of the two charts: every actor and note type with an edit in the range, sorted. */
  actors: string[];
  types: string[];
  /** The sessions started in the range. */
  sessions: {
    total: number;
    byOutcome: Record<SessionOutcomeView, number>;
    list: { id: string; path: string | null; agent: string; task: string; outcome: SessionOutcomeView; edits: number }[];
  };
  /** Inbox decisions made in the range (`edited`: accepted after the person changed the text), and the items raised in the range still waiting. */
  inbox: { accepted: number; edited: number; rejected: number; pending: number; rejections: { path: string; reason: string; actor: string }[] };
  /** Reverts made by a person (`human:` actor): a person correcting an agent. `reverted` is the edit id or commit undone. */
  reverts: { total: number; list: { sha: string; actor: string; path: string; reason: string; reverted: string | null }[] };
  /** Skill molts (a revert of a molt is a molt too: it carries `Lucid-Molt`). */
  molts: { total: number; list: { skill: string; from: number; to: number; actor: string; session: string | null; reason: string }[] };
  /** The sessions of the range whose protocol check failed, with the rules they broke. */
  protocolFailed: { total: number; sessions: { id: string; path: string | null; failed: ProtocolRule['id'][] }[] };
  /** The notes edited most often in the range (at most 10), the changelog, the inbox and session notes left out. */
  topNotes: { path: string; edits: number }[];
  /** Each actor's edits and the notes they touched, most edits first. */
  byActor: { actor: string; edits: number; notes: string[] }[];
}

/** Narrows a summary to the commits made on one machine and/or at one person's vault (see CommitQuery). */
export interface ActivityOrigin {
  machine?: string;
  person?: string;
}

/** Options of {@link summarizeActivity}. */
export interface SummarizeOptions extends ActivityOrigin {
  /** IANA time zone the days are counted in; default the vault's (the process's local zone). */
  timeZone?: string;
}

/** How many commits one read of the index takes; a range is read in pages of this size. */
const PAGE = 1000;
/** How many top notes the summary lists. */
const TOP_NOTES = 10;
/** The note type of a note outside every folder of Lucid's layout. */
const OTHER_TYPE = 'other';

/**
 * The note type an edit is counted under in the "by note type" chart: the type of the folder (as
 * `foldersOfType`, the changelog's type filter, sees it) of the first file it changed other than the
 * changelog and the inbox, else `inbox` when it only touched the inbox, else `other`.
 */
function editTypeOf(layout: VaultLayout, commit: Pick<CommitRecord, 'paths'>): string {
  const files = commit.paths.map((p) => p.path).filter((p) => !isChangelogPath(layout, p));
  const inboxPrefix = `${layout.inbox}/`;
  const main = files.find((p) => !p.startsWith(inboxPrefix));
  if (main === undefined) return files.length > 0 ? 'inbox' : OTHER_TYPE;
  let best: { type: string; depth: number } | null = null;
  for (const type of NOTE_TYPES) {
    for (const folder of foldersOfType(layout, type)) {
      const prefix = `${trimEndOf(folder, '/')}/`;
      if (main.startsWith(prefix) && (best === null || prefix.length > best.depth)) best = { type, depth: prefix.length };
    }
  }
  return best?.type ?? OTHER_TYPE;
}

/** A note the top-notes list counts: markdown outside the inbox and the sessions folder (a session writes its own note once). */
function isKnowledgeNote(layout: VaultLayout, path: string): boolean {
  return path.toLowerCase().endsWith('.md') && !path.startsWith(`${layout.inbox}/`) && !path.startsWith(`${layout.sessions}/`);
}

/** The commits in a range, oldest first, read from the commit index page by page (never the whole history). */
async function commitsIn(vault: Vault, range: ActivityRange, origin: ActivityOrigin): Promise<CommitRecord[]> {
  const index = await vault.commits();
  // The index stores whole seconds; [since, until) in ms is [ceil(since), ceil(until) - 1] in seconds.
  const since = Math.ceil(range.since / 1000);
  const until = Math.ceil(range.until / 1000) - 1;
  if (until < since) return [];
  const out: (CommitRecord & { seq: number })[] = [];
  let beforeSeq: number | undefined;
  for (;;) {
    const page = index.list({ since, until, beforeSeq, limit: PAGE, ...origin });
    out.push(...page);
    if (page.length < PAGE) break;
    beforeSeq = page[page.length - 1].seq;
  }
  return out.reverse();
}

function bump(record: Record<string, number>, key: string): void {
  record[key] = (record[key] ?? 0) + 1;
}

/**
 * Summarizes the activity of `range` ([since, until) in ms) from the commit index and the vault:
 * edits by day, actor and note type; sessions by outcome; inbox decisions; people's reverts; molts;
 * failed protocol checks; the notes changed most. Reads only the range's commits.
 */
export async function summarizeActivity(vault: Vault, range: ActivityRange, options: SummarizeOptions = {}): Promise<ActivitySummary> {
  const timeZone = options.timeZone ?? localTimeZone();
  const origin: ActivityOrigin = {
    ...(options.machine ? { machine: options.machine } : {}),
    ...(options.person ? { person: options.person } : {}),
  };
  const commits = await commitsIn(vault, range, origin);
  const { layout } = vault;
  const days = new Map<string, { byActor: Record<string, number>; byType: Record<string, number> }>();
  for (const day of daysOf(range, timeZone)) days.set(day, { byActor: {}, byType: {} });
  const actors = new Set<string>();
  const types = new Set<string>();
  const perNote = new Map<string, number>();
  const perActor = new Map<string, { edits: number; notes: Set<string> }>();
  const inbox = { accepted: 0, edited: 0, rejected: 0, pending: 0, rejections: [] as ActivitySummary['inbox']['rejections'] };
  const reverts: ActivitySummary['reverts']['list'] = [];
  const molts: ActivitySummary['molts']['list'] = [];
  let edits = 0;

  for (const c of commits) {
    if (!c.editId || !c.actor) continue;
    edits += 1;
    const files = c.paths.map((p) => p.path).filter((p) => !isChangelogPath(layout, p));
    const type = editTypeOf(layout, c);
    const day = dayOf(c.time * 1000, timeZone);
    const slot = days.get(day) ?? { byActor: {}, byType: {} };
    days.set(day, slot);
    bump(slot.byActor, c.actor);
    bump(slot.byType, type);
    actors.add(c.actor);
    types.add(type);
    const mine = perActor.get(c.actor) ?? { edits: 0, notes: new Set<string>() };
    mine.edits += 1;
    for (const f of files) mine.notes.add(f);
    perActor.set(c.actor, mine);
    for (const f of files) if (isKnowledgeNote(layout, f)) perNote.set(f, (perNote.get(f) ?? 0) + 1);

    if (c.op === 'accept') {
      if (isEditedAccept(c)) inbox.edited += 1;
      else inbox.accepted += 1;
    } else if (c.op === 'reject') {
      inbox.rejected += 1;
      inbox.rejections.push({ path: files[0] ?? c.subject.replace(/^reject /, ''), reason: personReason(c), actor: c.actor });
    }
    if (c.op === 'revert' && c.actor.startsWith('human:')) {
      const target = revertedTarget(c);
      reverts.push({
        sha: c.sha,
        actor: c.actor,
        path: files[0] ?? '',
        reason: personReason(c),
        reverted: target === null ? null : 'edit' in target ? target.edit : target.sha,
      });
    }
    const molt = parseMoltTrailer(c.trailers['Lucid-Molt']);
    if (molt) molts.push({ ...molt, actor: c.actor, session: c.session, reason: personReason(c) });
  }

  const index = await vault.commits();
  for (const item of await listInbox(vault)) {
    const created = Date.parse(item.created);
    if (!(created >= range.since && created < range.until)) continue;
    // Narrowed: an item counts where the commit that raised it was made.
    const raised = origin.machine || origin.person ? index.historyOf(item.path, 200).at(-1) : undefined;
    if (origin.machine && raised?.machine !== origin.machine) continue;
    if (origin.person && raised?.person !== origin.person) continue;
    inbox.pending += 1;
  }

  const { sessions, protocolFailed } = await sessionsIn(vault, range, origin);
  return {
    range,
    origin,
    edits,
    byDay: [...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, v]) => ({ day, ...v })),
    actors: [...actors].sort(),
    types: [...types].sort(),
    sessions,
    inbox,
    reverts: { total: reverts.length, list: reverts.reverse() },
    molts: { total: molts.length, list: molts.reverse() },
    protocolFailed,
    topNotes: [...perNote]
      .sort(([pa, a], [pb, b]) => b - a || (pa < pb ? -1 : 1))
      .slice(0, TOP_NOTES)
      .map(([path, n]) => ({ path, edits: n })),
    byActor: [...perActor]
      .sort(([aa, a], [ab, b]) => b.edits - a.edits || (aa < ab ? -1 : 1))
      .map(([actor, v]) => ({ actor, edits: v.edits, notes: [...v.notes].sort() })),
  };
}

/** The sessions started in the range (listSessions, page by page), and the protocol rules the failed ones broke. */
async function sessionsIn(vault: Vault, range: ActivityRange, origin: ActivityOrigin): Promise<Pick<ActivitySummary, 'sessions' | 'protocolFailed'>> {
  const byOutcome: Record<SessionOutcomeView, number> = { done: 0, partial: 0, abandoned: 0, open: 0 };
  const list: ActivitySummary['sessions']['list'] = [];
  const failed: ActivitySummary['protocolFailed']['sessions'] = [];
  let cursor: string | null = null;
  do {
    const page = await listSessions(vault, { since: range.since, until: range.until, cursor, limit: 100, ...origin });
    for (const row of page.rows) {
      byOutcome[row.outcome] += 1;
      list.push({ id: row.id, path: row.path, agent: row.agent, task: row.task, outcome: row.outcome, edits: row.edits });
      if (row.protocolOk === false) {
        const check = await checkSessionProtocol(vault, row.id);
        failed.push({ id: row.id, path: row.path, failed: (check?.rules ?? []).filter((r) => !r.ok).map((r) => r.id) });
      }
    }
    cursor = page.nextCursor;
  } while (cursor);
  return { sessions: { total: list.length, byOutcome, list }, protocolFailed: { total: failed.length, sessions: failed } };
}
