import { getVault } from '@/lib/server/vault';

/** A note's commits, newest first (from the commit index, following renames). */
export async function NoteHistory({ path }: { path: string }) {
  const vault = await getVault();
  const history = await vault.history(path, 50);
  if (history.length === 0) return <p className="text-sm text-stone-500">Not committed yet: this note has no history in git.</p>;
  return (
    <ol className="space-y-2 text-sm" aria-label="History">
      {history.map((c) => (
        <li key={c.sha} className="border-l-2 border-stone-300 pl-3">
          <div className="text-stone-500">
            <time dateTime={new Date(c.time * 1000).toISOString()}>{new Date(c.time * 1000).toISOString().slice(0, 16).replace('T', ' ')}</time> · {c.actor ?? c.author}
            {c.op ? ` · ${c.op}` : ''}
          </div>
          <div>{c.reason ? c.reason.split('\n')[0] : c.subject}</div>
        </li>
      ))}
    </ol>
  );
}

/** Placeholder while the history loads. */
export function HistorySkeleton() {
  return <div className="h-24 animate-pulse rounded bg-stone-200" aria-label="Loading history" />;
}
