import { DreamView } from '@/components/dream-view';
import { PageHeader } from '@/components/page-header';
import { fetchDreamReview } from '@/lib/server/data-dream';

// Only ever compared with the ids of the runs and changes that exist: never passed to git.
function one(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v && v.length <= 64 ? v : undefined;
}

export default async function DreamPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const initial = await fetchDreamReview(one(params.run));
  return (
    <div>
      <PageHeader
        title="Dream"
        description="What the dream pass proposes for your skills, each change with its diff. Land a change and it becomes one commit in your name on your current branch; dismiss it and nothing changes. Once every change is decided, the run's branch goes."
      />
      <DreamView initial={initial} initialRun={initial.run?.runId ?? null} initialChange={one(params.change) ?? null} />
    </div>
  );
}
