import Link from 'next/link';
import { type ChartDay, OverviewChart } from '@/components/overview-chart';
import { OverviewConnect } from '@/components/overview-connect';
import { OverviewFigure } from '@/components/overview-figure';
import { OverviewList } from '@/components/overview-list';
import { OverviewOriginFilter } from '@/components/overview-origin-filter';
import { OverviewRangePicker } from '@/components/overview-range-picker';
import { PageHeader } from '@/components/page-header';
import { RemotePanel } from '@/components/remote-panel';
import { ReportExport } from '@/components/report-export';
import { UncommittedNotice } from '@/components/uncommitted-notice';
import { noteHref } from '@/lib/markdown/hrefs';
import { changelogChoices } from '@/lib/server/data';
import { fetchActivityOverview } from '@/lib/server/data-overview';
import { fetchRemoteState } from '@/lib/server/data-sync';

const TYPE_LABELS: Record<string, string> = {
  person: 'People',
  project: 'Projects',
  decision: 'Decisions',
  session: 'Sessions',
  skill: 'Skills',
  inbox: 'Inbox proposals',
  report: 'Reports',
  'eval-run': 'Evaluation runs',
  other: 'Other notes',
};

const OUTCOMES = ['done', 'partial', 'abandoned', 'open'] as const;

const RULES: Record<string, string> = {
  'read-before-write': 'wrote before it searched or read',
  ended: 'never ended',
  'edits-logged': 'an edit without its changelog line',
  'decisions-recorded': 'a decision outside record_decision',
};

/** `Mon 23 Nov` for a `YYYY-MM-DD` day, the same on the server and in every browser. */
function dayLabel(day: string): string {
  return new Date(`${day}T00:00:00Z`).toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });
}

function href(path: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
  return query ? `${path}?${query}` : path;
}

export default async function OverviewPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const [{ range, activity, vault, vaultRoot, origin, origins }, remote] = await Promise.all([fetchActivityOverview(await searchParams), fetchRemoteState()]);
  // The changelog and sessions links keep the machine and person the overview is narrowed to.
  const days = { since: range.from, until: range.to, ...origin };
  const base: Record<string, string> = range.week ? { week: range.week } : { from: range.from, to: range.to };
  const narrowed = [origin.machine ? `on ${origin.machine}` : '', origin.person ? `at ${origin.person}'s vault` : ''].filter(Boolean).join(' and ');
  const changelog = (params: Record<string, string | undefined> = {}) => href('/changelog', { ...params, ...days });
  const sessions = (params: Record<string, string | undefined> = {}) => href('/sessions', { ...params, ...days });
  const chartDays = (pick: 'byActor' | 'byType'): ChartDay[] => activity.byDay.map((d) => ({ day: d.day, label: dayLabel(d.day), values: d[pick] }));
  const { inbox } = activity;
  const figures = [
    { value: activity.edits, label: 'Edits', href: changelog(), testId: 'figure-edits' },
    { value: inbox.accepted, label: 'Inbox items accepted as proposed', href: changelog({ op: 'accept' }), testId: 'figure-accepted' },
    { value: inbox.edited, label: 'Inbox items edited, then accepted', href: changelog({ op: 'accept' }), testId: 'figure-edited' },
    { value: inbox.rejected, label: 'Inbox items rejected', href: changelog({ op: 'reject' }), testId: 'figure-rejected' },
    { value: inbox.pending, label: 'Inbox items raised and still pending', href: '/inbox', testId: 'figure-pending' },
    { value: activity.reverts.total, label: 'Reverts by people', href: changelog({ op: 'revert' }), testId: 'figure-reverts' },
    { value: activity.molts.total, label: 'Skill molts', href: changelog({ op: 'molt' }), testId: 'figure-molts' },
    { value: activity.protocolFailed.total, label: 'Protocol checks failed', href: sessions(), testId: 'figure-protocol-failed' },
  ];
  const span = range.week ? `week ${range.week} (${range.from} to ${range.to})` : `${range.from} to ${range.to}`;
  return (
    <div>
      <PageHeader title="Overview" description={`What the agents did in ${span}${narrowed ? ` ${narrowed}` : ''}, and what is in the vault's memory now.`} />
      <OverviewRangePicker {...range} keep={origin} />
      <OverviewOriginFilter base={base} machine={origin.machine} person={origin.person} machines={origins.machines} persons={origins.persons} />
      {narrowed && activity.edits === 0 && activity.sessions.total === 0 ? (
        <p role="status" data-testid="overview-origin-empty" className="mb-4 rounded-md border border-dashed border-stone-300 p-3 text-sm text-stone-600">
          Nothing was done {narrowed} in this range.{' '}
          <Link href={href('/', base)} className="underline">
            Clear the machine and person filters
          </Link>{' '}
          to see everyone's work.
        </p>
      ) : null}
      {range.problem ? (
        <p role="alert" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {range.problem}
        </p>
      ) : null}
      <UncommittedNotice />
      {vault.agentActivity ? null : <OverviewConnect vaultRoot={vaultRoot} />}
      {range.week ? <ReportExport week={range.week} origin={origin} /> : null}

      <section aria-label="In this range" className="grid grid-cols-2 gap-4 lg:grid-cols-3">
        <OverviewFigure value={activity.sessions.total} label="Sessions" href={sessions()} testId="figure-sessions">
          <ul className="mt-2 flex flex-wrap gap-x-3 gap-y-1 text-xs text-stone-600">
            {OUTCOMES.map((o) => (
              <li key={o}>
                <Link href={sessions({ outcome: o })} className="underline">
                  <span data-testid={`figure-sessions-${o}`}>{activity.sessions.byOutcome[o]}</span> {o}
                </Link>
              </li>
            ))}
          </ul>
        </OverviewFigure>
        {figures.map((f) => (
          <OverviewFigure key={f.testId} {...f} />
        ))}
      </section>

      <div className="mt-6 grid gap-4 xl:grid-cols-2">
        <OverviewChart
          id="chart-actor"
          title="Edits by agent or person"
          seriesLabel="Agent or person"
          days={chartDays('byActor')}
          series={activity.actors}
          seriesHref={Object.fromEntries(activity.actors.map((a) => [a, changelog({ actor: a })]))}
        />
        <OverviewChart
          id="chart-type"
          title="Edits by note type"
          seriesLabel="Note type"
          days={chartDays('byType')}
          series={activity.types}
          seriesHref={Object.fromEntries(activity.types.map((t) => [t, changelogChoices().types.includes(t) ? changelog({ type: t }) : null]))}
        />
      </div>

      <div className="mt-6 grid gap-4 xl:grid-cols-2">
        <OverviewList
          id="list-sessions"
          title="Sessions"
          empty="No session started in this range."
          more={activity.sessions.total > 12 ? { href: sessions(), label: `All ${activity.sessions.total} sessions` } : undefined}
        >
          {activity.sessions.list.slice(0, 12).map((s) => (
            <li key={s.id} className="flex flex-wrap items-baseline gap-x-2">
              <Link href={`/sessions/${encodeURIComponent(s.id)}`} className="text-blue-800 underline">
                {s.task || s.id}
              </Link>
              <span className="text-stone-600">
                {s.agent} · {s.edits} {s.edits === 1 ? 'edit' : 'edits'}
              </span>
              <span className={`rounded px-1.5 text-xs ${s.outcome === 'abandoned' ? 'bg-red-100 text-red-900' : 'bg-stone-100 text-stone-700'}`}>
                {s.outcome}
              </span>
            </li>
          ))}
        </OverviewList>
        <OverviewList id="list-protocol" title="Protocol checks failed" empty="Every session that ended in this range kept the protocol.">
          {activity.protocolFailed.sessions.map((s) => (
            <li key={s.id}>
              <Link href={`/sessions/${encodeURIComponent(s.id)}`} className="text-blue-800 underline">
                {s.id}
              </Link>{' '}
              <span className="text-stone-600">{s.failed.map((r) => RULES[r] ?? r).join('; ')}</span>
            </li>
          ))}
        </OverviewList>
        <OverviewList id="list-top-notes" title="Notes that changed most" empty="No note changed in this range.">
          {activity.topNotes.map((n) => (
            <li key={n.path} className="flex justify-between gap-3">
              <Link href={noteHref(n.path)} className="break-all text-blue-800 underline">
                {n.path}
              </Link>
              <span className="shrink-0 tabular-nums text-stone-600" data-testid="top-note-edits">
                {n.edits} {n.edits === 1 ? 'edit' : 'edits'}
              </span>
            </li>
          ))}
        </OverviewList>
        <OverviewList id="list-reverts" title="People correcting agents" empty="Nobody reverted an edit in this range.">
          {activity.reverts.list.map((r) => (
            <li key={r.sha}>
              <span className="font-medium">{r.actor}</span> reverted{' '}
              {r.path ? (
                <Link href={noteHref(r.path)} className="break-all text-blue-800 underline">
                  {r.path}
                </Link>
              ) : (
                r.sha.slice(0, 7)
              )}
              {r.reason ? <span className="text-stone-600"> · {r.reason}</span> : null}
            </li>
          ))}
        </OverviewList>
        <OverviewList id="list-molts" title="Skill molts" empty="No skill molted in this range." more={{ href: '/skills', label: 'All skills' }}>
          {activity.molts.list.map((m, i) => (
            <li key={`${m.skill}-${m.to}-${i}`}>
              <Link href={`/skills/${encodeURIComponent(m.skill)}`} className="text-blue-800 underline">
                {m.skill}
              </Link>{' '}
              <span className="text-stone-600">
                v{m.from} → v{m.to} by {m.actor}
                {m.reason ? ` · ${m.reason}` : ''}
              </span>
            </li>
          ))}
        </OverviewList>
        <OverviewList id="list-rejections" title="Inbox items rejected" empty="No inbox item was rejected in this range.">
          {inbox.rejections.map((r, i) => (
            <li key={`${r.path}-${i}`}>
              <span className="break-all">{r.path}</span> <span className="text-stone-600">· {r.reason}</span>
            </li>
          ))}
        </OverviewList>
      </div>

      <section aria-labelledby="vault-now" className="mt-8">
        <h2 id="vault-now" className="mb-3 text-lg font-semibold">
          The vault now
        </h2>
        <div className="grid max-w-xl grid-cols-2 gap-4">
          <OverviewFigure value={vault.pendingInbox} label="Pending inbox items" href="/inbox" testId="figure-inbox" />
          <OverviewFigure value={vault.notes} label="Notes" href="/search" testId="figure-notes" />
        </div>
        <div className="mt-4 max-w-xl">
          <h3 id="by-type" className="mb-2 font-semibold">
            Notes by type
          </h3>
          <table className="w-full text-sm" aria-labelledby="by-type">
            <tbody>
              {Object.entries(vault.notesByType).map(([type, count]) => (
                <tr key={type} className="border-b border-stone-200">
                  <th scope="row" className="py-1.5 text-left font-normal text-stone-700">
                    {TYPE_LABELS[type] ?? type}
                  </th>
                  <td className="py-1.5 text-right tabular-nums" data-testid={`type-${type}`}>
                    {count}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="mt-3 text-sm text-stone-700">
            {vault.unparseable > 0
              ? `${vault.unparseable} ${vault.unparseable === 1 ? 'note has' : 'notes have'} front matter Lucid cannot read. `
              : 'Problems with notes, links and front matter are listed on '}
            <Link href="/health" className="underline">
              {vault.unparseable > 0 ? 'See Health' : 'Health'}
            </Link>
            .
          </p>
        </div>
      </section>

      <RemotePanel initial={remote} />
    </div>
  );
}
