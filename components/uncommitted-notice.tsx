import Link from 'next/link';

/** A line that says the vault has changes nobody committed, linking to where they can be seen and committed. */
export function UncommittedNotice({ count }: { count: number }) {
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
