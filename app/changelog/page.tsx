import { ChangelogView } from '@/components/changelog-view';
import { PageHeader } from '@/components/page-header';
import { UncommittedPanel } from '@/components/uncommitted-panel';
import { changelogChoices, fetchChangelogPage, parseChangelogFilters } from '@/lib/server/data';

export default async function ChangelogPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = parseChangelogFilters(await searchParams);
  const page = await fetchChangelogPage(filters);
  return (
    <div>
      <PageHeader
        title="Changelog"
        description="Every edit to the vault, newest first: who made it, why, in which session, and its diff. Any edit can be reverted; a dry run comes first and nothing changes when something is in the way."
      />
      <UncommittedPanel />
      <ChangelogView filters={filters} initial={page} choices={changelogChoices()} />
    </div>
  );
}
