import { PageHeader } from '@/components/page-header';
import { SkillTable } from '@/components/skill-table';
import { fetchSkills } from '@/lib/server/data-skills';

export default async function SkillsPage() {
  const list = await fetchSkills();
  return (
    <div>
      <PageHeader
        title="Skills"
        description="The procedures agents keep for themselves: when each was last used by a session, how often it molted, and which ones no session has used for a while. Open one for its versions, their diffs and a restore."
      />
      <SkillTable list={list} />
    </div>
  );
}
