import { PageHeader } from '@/components/page-header';
import { SessionList } from '@/components/session-list';
import { fetchSessionsPage, parseSessionFilters } from '@/lib/server/data-sessions';

export default async function SessionsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const filters = parseSessionFilters(await searchParams);
  const page = await fetchSessionsPage(filters);
  return (
    <div>
      <PageHeader
        title="Sessions"
        description="Every agent session, newest first: what it was for, what it changed, how it ended, and whether it followed the memory protocol. Open sessions update live."
      />
      <SessionList filters={filters} initial={page} connectCommand="lucid mcp --print-config claude-code" />
    </div>
  );
}
