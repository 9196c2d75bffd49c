import { DEFAULT_LAYOUT, type VaultLayout } from '../notes/layout';
import { VaultError } from '../errors';
import { composeNote, editFrontmatter, parseFrontmatter, splitNote, type FrontmatterData } from '../notes/frontmatter';
import { formatDate, formatTime } from '../ids';
import { noteLinkShown } from '../notes/note-formats';
import { readIfExists } from '../agents/common';
import type { Vault } from '../vault';
import { summarizeActivity, type ActivityOrigin, type ActivitySummary } from './summary';
import { dayOf, isoWeekRange } from './week';

/** How many entries one list of the report shows before "… and N more": the report stays small. */
const LIST_LIMIT = 20;

/** What a report is rendered with besides the summary. */
export interface ReportOptions {
  /** The vault's layout (the reports, sessions and skills folders); the defaults otherwise. */
  layout?: Pick<VaultLayout, 'reports' | 'sessions' | 'skills' | 'inbox'>;
  /**
   * Whether a note exists now: a note that does not (deleted or moved since) is named as its path in
   * code, never as a link Obsidian would show broken. Every path counts as existing without it.
   */
  exists?: (path: string) => boolean;
  /** The time zone the period's days are named in; the vault's (the process's) by default. */
  timeZone?: string;
}

/** A rendered report: where it goes, its properties (without `created`/`updated`) and its text. */
export interface RenderedReport {
  /** `<layout.reports>/<ISO week-year>-W<ww>.md`. */
  path: string;
  frontmatter: FrontmatterData;
  /** The shareable text: plain Markdown with Obsidian links, the same bytes for the same history. */
  body: string;
}

/** `<reports>/<week>.md`: where the report of an ISO week (`2026-W48`) goes. */
function reportPath(week: string, reportsFolder: string = DEFAULT_LAYOUT.reports): string {
  isoWeekRange(week, 'UTC');
  return `${reportsFolder}/${week}.md`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A list's lines, cut at {@link LIST_LIMIT} with a line saying how many were left out. */
function capped<T>(items: T[], line: (item: T) => string): string[] {
  const lines = items.slice(0, LIST_LIMIT).map((item) => `- ${line(item)}`);
  if (items.length > LIST_LIMIT) lines.push(`- … and ${items.length - LIST_LIMIT} more`);
  return lines;
}

/** A code span holding `text` (a path that is not a link), fenced with more backticks than it holds. */
function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return /^`|`$/.test(text) ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/** One line of free text (a reason, a task) that cannot break the list it is in. */
function line(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** What a revert undid: `edit e…` or `commit <short sha>`. */
function undone(ref: string): string {
  return /^[0-9a-f]{40}$/.test(ref) ? `commit ${ref.slice(0, 7)}` : `edit ${ref}`;
}

/**
 * Renders "What the agents did" for an ISO week from its {@link ActivitySummary}: the period, the
 * totals, each agent's sessions (linked `[[sessions/…|task]]`) and the notes it changed, people's
 * corrections (reverts, rejections with their reasons, edited accepts), molts, pending inbox
 * proposals and failed protocol checks. Only agents' edits are counted, so exporting the report
 * (a person's edit) never changes the next export's text. Pure and deterministic: the same summary
 * gives the same bytes.
 */
export function renderReport(summary: ActivitySummary, week: string, options: ReportOptions = {}): RenderedReport {
  const layout = options.layout ?? DEFAULT_LAYOUT;
  const exists = options.exists ?? (() => true);
  const link = (path: string, shown?: string) => (exists(path) ? noteLinkShown(path, shown) : code(path));
  const periodStart = dayOf(summary.range.since, options.timeZone);
  const periodEnd = dayOf(summary.range.until - 1, options.timeZone);
  const sessionPath = (id: string) => `${layout.sessions}/${id}.md`;

  const agentEdits = summary.byActor.filter((a) => a.actor.startsWith('agent:'));
  const agents = new Map<string, { sessions: ActivitySummary['sessions']['list']; edits: number; notes: string[] }>();
  const agentOf = (name: string) => {
    const key = name.replace(/^agent:/, '');
    let entry = agents.get(key);
    if (!entry) agents.set(key, (entry = { sessions: [], edits: 0, notes: [] }));
    return entry;
  };
  for (const s of summary.sessions.list) agentOf(s.agent).sessions.push(s);
  const own = (path: string) => !path.startsWith(`${layout.sessions}/`) && !path.startsWith(`${layout.inbox}/`);
  for (const a of agentEdits) Object.assign(agentOf(a.actor), { edits: a.edits, notes: a.notes.filter(own) });
  const totalAgentEdits = agentEdits.reduce((n, a) => n + a.edits, 0);
  const { byOutcome } = summary.sessions;
  const { inbox, reverts, molts, protocolFailed } = summary;

  const out: string[] = [`# What the agents did in ${week}`, '', `${periodStart} to ${periodEnd} (Monday to Sunday).`, ''];
  const { machine, person } = summary.origin ?? {};
  if (machine || person) {
    const where = [machine ? `on the machine ${code(line(machine))}` : '', person ? `at ${line(person)}'s vault` : ''].filter(Boolean).join(' and ');
    out.push(`Only the work done ${where}.`, '');
  }
  out.push('## Totals', '');
  const outcomes = (['done', 'partial', 'abandoned', 'open'] as const)
    .filter((o) => byOutcome[o] > 0)
    .map((o) => `${byOutcome[o]} ${o === 'open' ? 'still open' : o}`);
  out.push(
    `- Sessions: ${summary.sessions.total}${outcomes.length > 0 ? ` (${outcomes.join(', ')})` : ''}`,
    `- Edits by agents: ${totalAgentEdits}`,
    `- Inbox proposals: ${inbox.accepted} accepted, ${inbox.edited} accepted after a person edited them, ${inbox.rejected} rejected; ${inbox.pending} from this week still pending`,
    `- Reverts by people: ${reverts.total}`,
    `- Skill molts: ${molts.total}`,
    `- Sessions that failed the protocol check: ${protocolFailed.total}`,
  );

  if (agents.size === 0)
    out.push(
      '',
      'No agent activity this week. To connect an agent, print its MCP configuration with `lucid mcp --print-config claude-code` (or cursor, vscode, claude-desktop).',
    );
  for (const [name, a] of [...agents].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    out.push('', `## ${line(name)}`, '');
    out.push(`Sessions (${a.sessions.length}):`, '');
    if (a.sessions.length === 0) out.push('- None.');
    out.push(
      ...capped(a.sessions, (s) => {
        const task = line(s.task) || s.id;
        const named = s.path ? link(s.path, task) : task;
        return `${named}: ${s.outcome === 'open' ? 'still open' : s.outcome}, ${plural(s.edits, 'edit')}`;
      }),
    );
    out.push('', `${plural(a.edits, 'edit')} (its session notes and inbox proposals included). Notes changed (${a.notes.length}):`, '');
    if (a.notes.length === 0) out.push('- None.');
    out.push(...capped(a.notes, (path) => link(path)));
  }

  out.push('', "## People's corrections", '');
  if (reverts.list.length + inbox.rejections.length + inbox.edited === 0) out.push('- None.');
  out.push(
    ...capped(
      reverts.list,
      (r) =>
        `${line(r.actor)} reverted ${r.path ? link(r.path) : 'an edit'}${r.reverted ? ` (${undone(r.reverted)})` : ''}${r.reason ? `: ${line(r.reason)}` : ''}`,
    ),
  );
  out.push(...capped(inbox.rejections, (r) => `${line(r.actor)} rejected the proposal ${code(r.path)}${r.reason ? `: ${line(r.reason)}` : ''}`));
  if (inbox.edited > 0) out.push(`- ${plural(inbox.edited, 'proposal was', 'proposals were')} edited by a person before being accepted.`);

  if (molts.list.length > 0) {
    out.push('', '## Skills molted', '');
    out.push(
      ...capped(molts.list, (m) => {
        const by = m.session && exists(sessionPath(m.session)) ? ` in ${noteLinkShown(sessionPath(m.session), 'session')}` : '';
        return `${link(`${layout.skills}/${m.skill}.md`)} ${m.from} → ${m.to} by ${line(m.actor)}${by}${m.reason ? `: ${line(m.reason)}` : ''}`;
      }),
    );
  }

  if (protocolFailed.sessions.length > 0) {
    out.push('', '## Protocol checks failed', '');
    const taskOf = (id: string) => line(summary.sessions.list.find((s) => s.id === id)?.task ?? '') || id;
    out.push(...capped(protocolFailed.sessions, (s) => `${s.path ? link(s.path, taskOf(s.id)) : taskOf(s.id)}: ${s.failed.join(', ')}`));
  }

  if (inbox.pending > 0)
    out.push('', `${plural(inbox.pending, 'proposal')} from this week ${inbox.pending === 1 ? 'waits' : 'wait'} in the inbox for a person.`);
  out.push('');
  return {
    path: reportPath(week, layout.reports),
    frontmatter: { type: 'report', period_start: periodStart, period_end: periodEnd },
    body: out.join('\n'),
  };
}

/** What {@link writeReport} did. */
export interface WrittenReport {
  path: string;
  /** The commit that wrote the report, or when unchanged the last commit of the note (null if it never had one). */
  commit: string | null;
  /** The edit id of that commit (null when it has none). */
  editId: string | null;
  /** The note did not exist before. */
  created: boolean;
  /** The note already held this text: nothing was written and no commit made. */
  unchanged: boolean;
  /** The report's text (without front matter), as `lucid report` prints it and the dashboard copies it. */
  body: string;
  /**
   * The commit that holds a version the export replaced that was not Lucid's own export (a person
   * edited the report): their uncommitted version committed as theirs first, or their last commit.
   * Null when the export replaced only an earlier export.
   */
  replacedVersion: string | null;
}

/** The report of a week as `lucid report` prints it, without writing anything; narrowed to a machine and/or person when `origin` names them. */
export async function renderWeekReport(vault: Vault, week: string, origin: ActivityOrigin = {}): Promise<RenderedReport> {
  const summary = await summarizeActivity(vault, isoWeekRange(week), origin);
  const paths = new Set((await vault.listFiles()).map((f) => f.path));
  return renderReport(summary, week, { layout: vault.layout, exists: (path) => paths.has(path) });
}

/**
 * Writes the report of an ISO week (`2026-W48`) to `<reports>/<week>.md` as `actor`, through the
 * one write path: one edit (op `report`) with its changelog line. Exporting again with the same
 * history changes nothing and makes no commit; otherwise the body is replaced and the properties
 * updated (`period_start`, `period_end`, `author`, `updated`), every other property kept. The
 * write names the hash of the note as it was read, so a change made meanwhile is a `conflict` and
 * nothing is overwritten; a person's uncommitted version is committed as theirs first (the write
 * path does it), so a person's edits to the report are replaced but stay in history, revertable.
 * A report whose front matter does not parse is never rewritten (`invalid_frontmatter`).
 */
export async function writeReport(vault: Vault, week: string, actor: string): Promise<WrittenReport> {
  const rendered = await renderWeekReport(vault, week);
  const { path, body } = rendered;
  const current = await readIfExists(vault, path);
  const last = (await vault.history(path, 1))[0] ?? null;
  const fields = { ...rendered.frontmatter, author: actor };
  let text: string;
  const now = vault.clock();
  if (current) {
    if (current.text === null)
      throw new VaultError('invalid_input', `${path} is not a text note (${current.problemMessage}); move it away, then export again.`);
    const parsed = parseFrontmatter(current.text);
    if (!parsed.ok) {
      throw new VaultError('invalid_frontmatter', `${path} has front matter Lucid cannot read (${parsed.error}); fix it or move the note, then export again.`);
    }
    const same =
      Object.entries(rendered.frontmatter).every(([k, v]) => parsed.data[k] === v) && parsed.parts.body.replace(/^\r?\n/, '').replace(/\r\n/g, '\n') === body;
    if (same) return { path, commit: last?.sha ?? null, editId: last?.editId ?? null, created: false, unchanged: true, body, replacedVersion: null };
    // Properties changed line by line (every other one kept byte for byte), then the body replaced.
    const edited = editFrontmatter(current.text, { ...fields, updated: formatDate(now) }, parsed).text;
    const { bodyStart, eol } = splitNote(edited);
    text = `${current.bom ? '\uFEFF' : ''}${edited.slice(0, bodyStart)}${eol}${eol === '\n' ? body : body.replace(/\n/g, '\r\n')}`;
  } else {
    text = composeNote({ ...fields, created: formatTime(now), updated: formatDate(now) }, body);
  }
  const result = await vault.edit({
    actor,
    op: 'report',
    path,
    reason: `report of ${week}`,
    changes: [{ path, content: text, expectedHash: current ? current.hash : null }],
  });
  const personVersion = result.savedPersonCommit ?? (last && last.op !== 'report' ? last.sha : null);
  return { path, commit: result.commit, editId: result.editId, created: !current, unchanged: false, body, replacedVersion: personVersion };
}
