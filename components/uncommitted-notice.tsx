'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { uncommittedOptions } from '@/lib/queries/changelog';

/**
 * A line that says the vault has changes nobody committed, linking to where they can be seen and
 * committed. The browser asks once the page has drawn: finding them is a `git status` of the whole
 * vault, and the overview's cost should follow the range it shows, not the vault's size.
 */
export function UncommittedNotice() {
  // Asked once per visit: the changelog's panel is where they are watched.
  const query = useQuery({ ...uncommittedOptions(), refetchInterval: false });
  const count = query.data?.files.length ?? 0;
  // While asking, after a failure (the changelog's panel says why), or with nothing uncommitted: no line.
  if (count === 0) return null;
  return (
    <p role="status" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
      {count === 1 ? 'One file has' : `${count} files have`} changes nobody committed.{' '}
      <Link href="/changelog#uncommitted" className="underline">
        See them and commit them as yours
      </Link>
      .
    </p>
  );
}
