import type { CommitRecord } from '@/lib/vault';

/** A note's commits, newest first; the page starts the read and this part streams in when it is done. */
export async function NoteHistory({ history }: { history: Promise<CommitRecord[]> }) {
  const commits = await history;
  if (commits.length === 0) return <p className="text-sm text-stone-500">Not committed yet: this note has no history in git.</p>;
  return (
    <ol className="space-y-2 text-sm" aria-label="History">
      {commits.map((c) => (
        <li key={c.sha} className="border-l-2 border-stone-300 pl-3">
          <div className="text-stone-500">
            <time dateTime={new Date(c.time * 1000).toISOString()}>{new Date(c.time * 1000).toISOString().slice(0, 16).replace('T', ' ')}</time> ·{' '}
            {c.actor ?? c.author}
            {c.op ? ` · ${c.op}` : ''}
          </div>
          <div>{c.reason ? c.reason.split('\n')[0] : c.subject}</div>
        </li>
      ))}
    </ol>
  );
}
