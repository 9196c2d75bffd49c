import { InboxView } from '@/components/inbox-view';
import { PageHeader } from '@/components/page-header';
import { fetchInboxList } from '@/lib/server/data';
import type { InboxItem } from '@/lib/vault';

const ACTIONS: InboxItem['action'][] = ['create', 'update', 'append', 'delete'];
const isAction = (value: string | undefined): value is InboxItem['action'] => ACTIONS.includes(value as InboxItem['action']);

function one(value: string | string[] | undefined, max: number): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v && v.length <= max ? v : undefined;
}

export default async function InboxPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const action = one(params.action, 20);
  const filter = { agent: one(params.agent, 200), flag: one(params.flag, 100), action: isAction(action) ? action : undefined };
  const initial = await fetchInboxList(filter);
  return (
    <div>
      <PageHeader
        title="Inbox"
        description="What agents were unsure of, oldest first. Nothing here reaches a note until you accept it; each accept, edit or reject is one commit in your name."
      />
      <InboxView initial={initial} initialFilter={filter} initialItem={one(params.item, 300) ?? null} />
    </div>
  );
}
