import { ChangelogView } from '@/components/changelog-view';
import { PageHeader } from '@/components/page-header';
import { UncommittedPanel } from '@/components/uncommitted-panel';
import { changelogChoices, fetchChangelogPage, fetchUncommitted, parseChangelogFilters } from '@/lib/server/data';

export default async function ChangelogPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = parseChangelogFilters(await searchParams);
  const [page, uncommitted] = await Promise.all([fetchChangelogPage(filters), fetchUncommitted()]);
  // Only the filters that are set: the query key and the URL then agree however the page was reached.
  const input = Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined));
  return (
    <div>
      <PageHeader
        title="Changelog"
        description="Every edit to the vault, newest first: who made it, why, in which session, and its diff. Any edit can be reverted; a dry run comes first and nothing changes when something is in the way."
      />
      <UncommittedPanel initial={uncommitted} />
      <ChangelogView filters={input} initial={page} choices={changelogChoices()} />
    </div>
  );
}
