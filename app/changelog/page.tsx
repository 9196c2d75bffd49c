import { ComingSoon } from '@/components/coming-soon';

export default function ChangelogPage() {
  return (
    <ComingSoon
      title="Changelog"
      will={[
        'Every edit, newest first: who, what, why, and the session it came from',
        'Filters by actor, operation and note',
        'One-click revert of any edit, with a dry run that says what is in the way',
      ]}
    />
  );
}
