import { isChangelogPath } from '../notes/layout';
import { oneLine } from '../text';
import type { Note } from '../notes/note';
import { basenameOf } from '../notes/paths';
import type { SearchHit } from '../search/search-index';
import type { Vault } from '../vault';
import type { ReadFirstItem } from './contract-read';
import type { NoteLookup } from './note-lookup';
import { firstHeading, type ProjectFinding } from './session-context';
import { informativeTerms, overlap, stem, termsOf, wordsByStem } from './task-terms';

/** The most notes start_session lists to read first. */
const READ_FIRST_MAX = 12;
/** The most of each kind; ordinary notes from search fill what is left, up to {@link MAX_SEARCHED}. */
const MAX = { projects: 2, decisions: 3, sessions: 3, skills: 2 } as const;
const MAX_SEARCHED = 4;
/**
 * How many sessions on a similar task search is asked for (and how many of those are read whatever
 * their title), and how many of the project's newest sessions are read to find its last two.
 */
const SEARCHED = { sessions: 12, sessionsRead: 3, projectSessions: 4 } as const;
const MAX_NEXT_STEPS = 5;
/** How much of a session's summary is read: it is shown cut to 400 characters. */
const MAX_SUMMARY_SCAN = 4_000;

/** What start_session lists to read first, and sentences about what it left out. */
export interface ReadFirstResult {
  items: ReadFirstItem[];
  /** Sentences for the agent, e.g. how to find the decisions left out. */
  notes: string[];
}

/**
 * What a colleague would hand an agent before it works on `task`, at most 12
 * notes, each with why: the project note (and another project the task names), its current
 * decisions (newest first), the last sessions on the project and earlier sessions whose task shares
 * enough of this task's informative terms (the newest of them with its summary and next steps
 * inline), the skills whose trigger fits, and the notes search ranks best for the task, with or
 * without a Lucid type. The inbox, the changelog and AGENTS.md are never listed. The candidates
 * come from the search index (a project's decisions and sessions by the project the index resolved
 * for each note) and, for skills, the skills folder; only those are read, never every note.
 * `hits`: the task's search, best first.
 */
export async function readFirst(
  lookup: NoteLookup,
  input: {
    task: string;
    project: ProjectFinding;
    excludeSession?: string;
    hits: readonly SearchHit[];
    /** The task's search with more hits (the first ones the same), asked for when `hits` leave room. */
    moreHits?: () => Promise<readonly SearchHit[]>;
  },
): Promise<ReadFirstResult> {
  const { vault } = lookup;
  const items: ReadFirstItem[] = [];
  const hints: string[] = [];
  const listed = new Set<string>();
  const push = (note: Note, why: string): ReadFirstItem | null => {
    if (listed.has(note.path)) return null;
    listed.add(note.path);
    const item: ReadFirstItem = { path: note.path, title: displayTitle(note), type: note.type, why };
    items.push(item);
    return item;
  };
  const { match, alsoNamed } = input.project;
  const project = match?.note ?? null;
  const projectName = project ? oneLine(String(project.frontmatter.name ?? '') || displayTitle(project), 60) : null;
  if (match) push(match.note, match.why);
  for (const other of alsoNamed.slice(0, MAX.projects - (match ? 1 : 0))) push(other.note, other.why);

  // Every note of the project, by the project the index resolved for each: none is read here.
  const projectHits = project ? await lookup.ofProject(project.path) : [];
  if (project) {
    const decisions = (await lookup.notes(projectHits.filter((h) => h.type === 'decision').map((h) => h.path)))
      .filter((n) => n.lucidType === 'decision' && n.frontmatter.status !== 'superseded')
      .sort((a, b) => String(b.frontmatter.date ?? '').localeCompare(String(a.frontmatter.date ?? '')) || a.path.localeCompare(b.path));
    for (const d of decisions.slice(0, MAX.decisions)) {
      push(d, `a current decision of ${projectName} (${String(d.frontmatter.status)}, ${String(d.frontmatter.date)})`);
    }
    if (decisions.length > MAX.decisions) {
      hints.push(
        `${projectName} has ${decisions.length - MAX.decisions} more current decisions than listed: search_notes with type "decision" and project "${projectName}".`,
      );
    }
  }

  const taskTerms = informativeTerms(input.task);
  const taskWords = wordsByStem(input.task);
  const said = (shared: readonly string[], max: number) =>
    shared
      .slice(0, max)
      .map((t) => taskWords.get(t) ?? t)
      .join(', ');
  // The informative words as written: the index stems them its own way.
  const query = [...taskTerms].map((t) => taskWords.get(t) ?? t).join(' ');
  await addSessions(lookup, { project, projectName, projectHits, taskTerms, query, said, excludeSession: input.excludeSession }, push);

  // Skills are few and live in their folder: read once, then kept while unchanged.
  const skillPaths = lookup.files.filter((f) => f.path.startsWith(`${vault.layout.skills}/`) && f.path.toLowerCase().endsWith('.md')).map((f) => f.path);
  const skills = (await lookup.notes(skillPaths))
    .filter(
      (n) =>
        n.lucidType === 'skill' &&
        n.frontmatter.status !== 'archived' &&
        n.path.startsWith(`${vault.layout.skills}/`) &&
        !n.path.startsWith(`${vault.layout.skillsArchive}/`),
    )
    .map((n) => {
      const trigger = String(n.frontmatter.trigger ?? '');
      const shared = [...termsOf(`${trigger} ${String(n.frontmatter.name ?? '').replace(/-/g, ' ')}`)].filter((t) => taskTerms.has(t));
      return { n, trigger, shared, score: shared.length / Math.max(1, termsOf(trigger).size) };
    })
    .filter((s) => s.shared.length > 0)
    .sort((a, b) => b.shared.length - a.shared.length || b.score - a.score || a.n.path.localeCompare(b.n.path));
  for (const s of skills.slice(0, MAX.skills)) {
    push(s.n, `a skill whose trigger fits the task ("${oneLine(s.trigger, 80)}"), version ${String(s.n.frontmatter.version)}`);
  }

  const room = Math.min(MAX_SEARCHED, READ_FIRST_MAX - items.length);
  let added = 0;
  let hits = input.hits;
  for (let i = 0; added < room; i += 1) {
    // The first hits of the task's search usually fill the room; the next ones are asked for only when not.
    if (i === hits.length && hits.length === input.hits.length && input.moreHits) hits = await input.moreHits();
    const hit = hits[i];
    if (!hit) break;
    // Sessions, skills, proposals and evaluation runs are never ordinary reading: no need to read them.
    if (listed.has(hit.path) || (hit.type !== null && NOT_ORDINARY.has(hit.type))) continue;
    const note = await lookup.note(hit.path);
    if (!note || !isOrdinary(note, vault)) continue;
    const { shared, covers } = overlap(taskTerms, termsOfNote(note));
    if (!covers) continue;
    push(note, `search ranks it ${i + 1} for the task; it has ${said(shared, 5)}`);
    added += 1;
  }
  return { items: items.slice(0, READ_FIRST_MAX), notes: hints };
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const NOT_ORDINARY: ReadonlySet<string> = new Set(['session', 'skill', 'inbox', 'eval-run']);

/** Whether search may offer a note as ordinary reading: not Lucid's own files, sessions, skills or superseded decisions (listed their own way). */
function isOrdinary(note: Note, vault: Vault): boolean {
  const { layout } = vault;
  if (note.path === layout.agents || isChangelogPath(layout, note.path) || note.path.startsWith(`${layout.inbox}/`)) return false;
  if (note.lucidType === 'session' || note.lucidType === 'skill' || note.lucidType === 'inbox' || note.lucidType === 'eval-run') return false;
  return !(note.lucidType === 'decision' && note.frontmatter.status === 'superseded');
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{Mn}\p{Mc}]*/gu;
const MAX_SCANNED = 200_000;

/** The stemmed words of a note: its title, names, aliases, tags, other properties and body. */
function termsOfNote(note: Note): Set<string> {
  const fields = Object.values(note.frontmatter)
    .flatMap((v) => (Array.isArray(v) ? v : [v]))
    .filter((v) => typeof v === 'string' || typeof v === 'number')
    .join(' ');
  const text = `${note.title} ${basenameOf(note.path)} ${fields} ${note.body ?? ''}`.slice(0, MAX_SCANNED).normalize('NFC').toLowerCase();
  const terms = new Set<string>();
  for (const match of text.matchAll(WORD)) terms.add(stem(match[0]));
  return terms;
}

/**
 * Sessions to read: the project's last ones, newest first, then earlier sessions whose task shares
 * enough of this task's informative terms. The newest of those listed carries its summary and next
 * steps, read from its note, so the agent needs no other call. Candidates come from search: the
 * project's sessions by the index's project, the similar ones by the task's terms.
 */
async function addSessions(
  lookup: NoteLookup,
  input: {
    project: Note | null;
    projectName: string | null;
    projectHits: readonly { path: string; type: string | null }[];
    taskTerms: Set<string>;
    query: string;
    said: (shared: readonly string[], max: number) => string;
    excludeSession?: string;
  },
  push: (note: Note, why: string) => ReadFirstItem | null,
): Promise<void> {
  const isSession = (n: Note) => n.lucidType === 'session' && basenameOf(n.path) !== input.excludeSession;
  const chosen: { note: Note; item: ReadFirstItem }[] = [];
  const take = (note: Note, why: string) => {
    const item = push(note, why);
    if (item) chosen.push({ note, item });
  };
  const { project } = input;
  if (project) {
    // Session ids start with their start time: the newest are read, not every session of the project.
    const newest = input.projectHits
      .filter((h) => h.type === 'session')
      .map((h) => h.path)
      .sort((a, b) => byCodeUnit(basenameOf(b), basenameOf(a)))
      .slice(0, SEARCHED.projectSessions);
    const ofProjectNotes = (await lookup.notes(newest)).filter(isSession).sort(byEnd);
    for (const s of ofProjectNotes.slice(0, MAX.sessions - 1)) take(s, `the last work on ${input.projectName} (${sessionLine(s)})`);
  }
  const hits = await lookup.search(input.query, { type: 'session', limit: SEARCHED.sessions });
  // A session note's title is its task: the notes whose title does not relate are read only when ranked high.
  const worth = hits.filter((h, i) => i < SEARCHED.sessionsRead || overlap(input.taskTerms, informativeTerms(h.title)).enough);
  const similar = (await lookup.notes(worth.map((h) => h.path)))
    .filter((s) => isSession(s) && !chosen.some((c) => c.note.path === s.path))
    .map((s) => ({ s, ...overlap(input.taskTerms, informativeTerms(String(s.frontmatter.task ?? ''))) }))
    .filter((c) => c.enough)
    .sort((a, b) => b.share - a.share || b.shared.length - a.shared.length || byEnd(a.s, b.s));
  for (const c of similar) {
    if (chosen.length >= MAX.sessions) break;
    take(c.s, `an earlier session on a similar task, sharing ${input.said(c.shared, 4)} (${sessionLine(c.s)})`);
  }
  const last = [...chosen].sort((a, b) => byEnd(a.note, b.note))[0];
  if (!last) return;
  const digest = sessionDigest(last.note.body ?? '');
  if (digest.summary) last.item.summary = digest.summary;
  if (digest.nextSteps.length > 0) last.item.next_steps = digest.nextSteps;
}

function timeOf(value: unknown): number {
  return typeof value === 'string' ? Date.parse(value) : Number.NaN;
}

/** Newest `ended` first; sessions without one last. */
function byEnd(a: Note, b: Note): number {
  return (timeOf(b.frontmatter.ended) || 0) - (timeOf(a.frontmatter.ended) || 0) || a.path.localeCompare(b.path);
}

function sessionLine(s: Note): string {
  const ended = typeof s.frontmatter.ended === 'string' ? s.frontmatter.ended.slice(0, 10) : 'not ended';
  return `${oneLine(String(s.frontmatter.agent), 40)}, ended ${ended}, ${oneLine(String(s.frontmatter.outcome), 20)}`;
}

/** One heading of a markdown line: its level and text, or null. Linear, unlike a regex with `\s*#*\s*$`. */
function headingOf(line: string): { level: number; text: string } | null {
  let level = 0;
  while (level < line.length && line[level] === '#') level += 1;
  if (level === 0 || level > 6 || (level < line.length && line[level] !== ' ' && line[level] !== '\t')) return null;
  let end = line.length;
  while (end > level && /\s/.test(line[end - 1])) end -= 1;
  while (end > level && line[end - 1] === '#') end -= 1;
  return { level, text: line.slice(level, end).trim() };
}

/**
 * A session note's summary and next steps (VAULT-FORMAT's session note: `# task`, the summary,
 * then sections such as `## Changed` and `## Next steps`): the summary's paragraphs on one line (at
 * most 400 characters), and the items of the next-steps list (at most five, each on one line, with
 * a last item saying how many more the note has). Code blocks are skipped.
 */
export function sessionDigest(body: string): { summary: string; nextSteps: string[] } {
  const summary: string[] = [];
  const steps: string[] = [];
  let section: 'summary' | 'steps' | 'other' = 'summary';
  let fence: string | null = null;
  let titled = false;
  let summaryLength = 0;
  for (const line of body.split(/\r\n|\n|\r/)) {
    const trimmed = line.trim();
    const fenceMark = /^(`{3,}|~{3,})/.exec(trimmed)?.[1];
    if (fence !== null) {
      if (fenceMark && fenceMark[0] === fence[0] && fenceMark.length >= fence.length) fence = null;
      continue;
    }
    if (fenceMark) {
      fence = fenceMark;
      continue;
    }
    const heading = headingOf(trimmed);
    if (heading) {
      if (heading.level === 1 && !titled && section === 'summary' && summary.every((l) => l.trim() === '')) {
        titled = true;
        continue;
      }
      section = /^next steps?\b/i.test(heading.text) ? 'steps' : 'other';
      continue;
    }
    if (section === 'summary') {
      if (summaryLength < MAX_SUMMARY_SCAN) summary.push(line);
      summaryLength += line.length;
    } else if (section === 'steps') {
      const item = /^(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(\S.*)$/.exec(trimmed);
      if (item) steps.push(oneLine(item[1], 200));
    }
  }
  const text = oneLine(
    summary
      .join('\n')
      .split(/\n\s*\n/)
      .map((p) => oneLine(p, 400))
      .filter(Boolean)
      .join(' '),
    400,
  );
  const more = steps.length - MAX_NEXT_STEPS;
  const nextSteps = more > 0 ? [...steps.slice(0, MAX_NEXT_STEPS), `and ${more} more in the session note`] : steps;
  return { summary: text, nextSteps };
}

/** A note's title for people: its `title`, its `name`, its first heading, a session's task, else its file name. */
function displayTitle(note: Note): string {
  if (note.title !== basenameOf(note.path)) return note.title;
  if (typeof note.frontmatter.name === 'string' && note.frontmatter.name.trim()) return note.frontmatter.name.trim();
  const heading = firstHeading(note.body ?? '');
  if (heading) return heading;
  if (typeof note.frontmatter.task === 'string' && note.frontmatter.task.trim()) return note.frontmatter.task.trim();
  return note.title;
}
