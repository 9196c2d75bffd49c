import Link from 'next/link';
import { PageHeader } from '@/components/page-header';
import { UncommittedNotice } from '@/components/uncommitted-notice';
import { fetchOverview, fetchUncommittedCount } from '@/lib/server/data';

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

export default async function OverviewPage() {
  const [summary, uncommitted] = await Promise.all([fetchOverview(), fetchUncommittedCount()]);
  const figures = [
    { label: 'Pending inbox items', value: summary.pendingInbox, href: '/inbox', testId: 'figure-inbox' },
    { label: 'Edits in the last 7 days', value: summary.editsLast7Days, href: '/changelog', testId: 'figure-edits' },
    { label: 'Sessions in the last 7 days', value: summary.sessionsLast7Days, href: '/sessions', testId: 'figure-sessions' },
    { label: 'Notes', value: summary.notes, href: '/search', testId: 'figure-notes' },
  ];
  return (
    <div>
      <PageHeader title="Overview" description="What is in this vault's memory and what changed this week. The full week view comes with the sessions page." />
      <UncommittedNotice count={uncommitted} />
      <section aria-label="This week" className="grid grid-cols-2 gap-4 lg:grid-cols-4">
        {figures.map((f) => (
          <Link key={f.label} href={f.href} className="rounded-lg border border-stone-200 bg-white p-4 hover:border-stone-400">
            <div className="text-3xl font-semibold tabular-nums" data-testid={f.testId}>
              {f.value}
            </div>
            <div className="mt-1 text-sm text-stone-600">{f.label}</div>
          </Link>
        ))}
      </section>
      <section aria-labelledby="by-type" className="mt-8 max-w-xl">
        <h2 id="by-type" className="mb-2 text-lg font-semibold">
          Notes by type
        </h2>
        <table className="w-full text-sm">
          <tbody>
            {Object.entries(summary.notesByType).map(([type, count]) => (
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
        {summary.unparseable > 0 ? (
          <p className="mt-3 text-sm text-amber-800">
            {summary.unparseable} {summary.unparseable === 1 ? 'note has' : 'notes have'} front matter Lucid cannot read.{' '}
            <Link href="/health" className="underline">
              See Health
            </Link>
            .
          </p>
        ) : null}
      </section>
    </div>
  );
}
