import { noteLink as link } from '../vault';
import type { AgentSession } from './agent';
import { P } from './paths';
import type { DemoRun, EndedSession } from './run';

/**
 * The weekly report of days `from`..`to` (inclusive), written by the agent's session with
 * write_note from what the history recorded, in the shape its summarize-weekly-activity skill
 * had reached that week.
 */
export async function writeWeeklyReport(run: DemoRun, session: AgentSession, from: number, to: number): Promise<void> {
  const start = run.dayAt(from).getTime();
  const end = run.dayAt(to + 1).getTime();
  const inPeriod = run.events.filter((e) => e.at >= start && e.at < end);
  const sessions = run.ended.filter((e) => e.ended >= start && e.ended < end);
  const periodStart = run.date(from);
  const periodEnd = run.date(to);
  const lines: string[] = [`# What happened from ${periodStart} to ${periodEnd}`, ''];
  const byAgent = new Map<string, EndedSession[]>();
  for (const e of sessions) byAgent.set(e.agent, [...(byAgent.get(e.agent) ?? []), e]);
  lines.push(`${sessions.length} agent sessions and ${inPeriod.length} edits.`, '', '## Sessions', '');
  for (const [agent, list] of [...byAgent].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`- **${agent}**: ${list.map((e) => `[[${e.path.replace(/\.md$/, '')}|${e.task}]] (${e.outcome})`).join('; ')}`);
  }
  const decisions = inPeriod.filter((e) => e.path.startsWith('decisions/') && e.op === 'create');
  if (decisions.length > 0) {
    lines.push('', '## Decisions', '');
    for (const e of decisions) lines.push(`- ${link(e.path)}: ${e.reason}`);
  }
  const people = inPeriod.filter((e) => e.actor.startsWith('human:'));
  lines.push('', "## People's edits", '');
  if (people.length === 0) lines.push('- None.');
  for (const e of people) lines.push(`- ${e.actor.slice(6)}: ${e.op} ${e.path.endsWith('.md') ? link(e.path) : e.path} (${e.reason})`);
  const molts = inPeriod.filter((e) => e.op === 'molt');
  if (molts.length > 0) {
    lines.push('', '## Skills that changed', '');
    for (const e of molts) lines.push(`- ${link(e.path)}: ${e.reason}`);
  }
  if ((run.versions.get(P.weekly) ?? 0) >= 4) {
    const settled = new Set(run.events.filter((e) => e.settled && e.at < end).map((e) => e.settled));
    const open = run.events.filter((e) => e.op === 'create' && e.path.startsWith('inbox/') && e.at < end && !settled.has(e.path));
    lines.push('', '## Open inbox proposals', '');
    if (open.length === 0) lines.push('- None.');
    for (const e of open) {
      const waiting = Math.floor((run.time().getTime() - e.at) / 86_400_000);
      lines.push(`- ${link(e.path)}: ${e.reason} (waiting ${waiting === 1 ? '1 day' : `${waiting} days`})`);
    }
  }
  lines.push('');
  await session.create(
    `reports/week-ending-${periodEnd}.md`,
    { type: 'report', period_start: periodStart, period_end: periodEnd, author: session.actor },
    lines.join('\n'),
    `weekly report ${periodStart} to ${periodEnd}`,
  );
}
