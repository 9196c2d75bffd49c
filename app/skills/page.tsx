import { ComingSoon } from '@/components/coming-soon';

export default function SkillsPage() {
  return (
    <ComingSoon
      title="Skills"
      will={[
        'The procedures agents keep for themselves, with their version and when they were last used',
        'Every version of a skill, and the diff between any two',
        'Restoring an earlier version (as a new molt)',
      ]}
    />
  );
}
