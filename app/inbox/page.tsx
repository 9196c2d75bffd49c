import { ComingSoon } from '@/components/coming-soon';

export default function InboxPage() {
  return (
    <ComingSoon
      title="Inbox"
      will={[
        'Proposals agents were unsure about, oldest first, with their reason and confidence',
        'Accept, edit or reject each one (keyboard: j/k to move, a to accept, r to reject)',
        'A three-way merge when the note changed since the proposal',
      ]}
    />
  );
}
