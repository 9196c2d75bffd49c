import Link from 'next/link';
import { noteHref } from '@/lib/markdown/hrefs';

/** The notes that link here; the page starts the read and this part streams in when it is done. */
export async function BacklinksList({ backlinks }: { backlinks: Promise<{ from: string; count: number }[]> }) {
  const list = await backlinks;
  if (list.length === 0) return <p className="text-sm text-stone-500">No note links here yet.</p>;
  return (
    <ul className="space-y-1 text-sm" aria-label="Backlinks">
      {list.map(({ from, count }) => (
        <li key={from}>
          <Link href={noteHref(from)} className="text-blue-800 underline">
            {from.replace(/\.md$/i, '')}
          </Link>
          {count > 1 ? <span className="text-stone-500"> ({count} links)</span> : null}
        </li>
      ))}
    </ul>
  );
}
