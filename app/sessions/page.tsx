import { ComingSoon } from '@/components/coming-soon';

export default function SessionsPage() {
  return (
    <ComingSoon
      title="Sessions"
      will={[
        'Every agent session: agent, task, outcome, duration',
        'What each session searched, read, touched and sent to the inbox',
        'What the agents did this week',
      ]}
    />
  );
}
