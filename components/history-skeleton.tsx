/** Placeholder while a note's history or backlinks load. */
export function HistorySkeleton() {
  return <div role="status" className="h-24 animate-pulse rounded bg-stone-200" aria-label="Loading history" />;
}
