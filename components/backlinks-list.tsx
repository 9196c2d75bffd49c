import Link from 'next/link';
import { noteHref } from '@/lib/markdown/hrefs';
import { getVault } from '@/lib/server/vault';

/** The notes that link here (computed, never stored). */
export async function BacklinksList({ path }: { path: string }) {
  const vault = await getVault();
  const backlinks = await vault.backlinks(path);
  if (backlinks.length === 0) return <p className="text-sm text-stone-500">No note links here yet.</p>;
  const byNote = new Map<string, number>();
  for (const b of backlinks) byNote.set(b.from, (byNote.get(b.from) ?? 0) + 1);
  return (
    <ul className="space-y-1 text-sm" aria-label="Backlinks">
      {[...byNote].map(([from, count]) => (
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
