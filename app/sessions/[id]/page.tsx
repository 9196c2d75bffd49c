import { notFound } from 'next/navigation';
import { SessionDetailView } from '@/components/session-detail';
import { fetchSession } from '@/lib/server/data-sessions';

export default async function SessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id: raw } = await params;
  let id = raw;
  try {
    id = decodeURIComponent(raw);
  } catch {
    notFound();
  }
  const view = await fetchSession(id);
  if (!view) notFound();
  return <SessionDetailView id={id} initial={view} />;
}
