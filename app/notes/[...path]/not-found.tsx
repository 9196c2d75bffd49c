import Link from 'next/link';

export default function NoteNotFound() {
  return (
    <div className="max-w-xl">
      <h1 className="text-2xl font-semibold">No such note</h1>
      <p className="mt-2 text-sm text-stone-600">
        There is no note at this path in the vault. It may have been renamed or deleted; its history is still in git.
      </p>
      <p className="mt-4 text-sm">
        <Link href="/search" className="text-blue-800 underline">
          Search the vault
        </Link>{' '}
        or go back to the{' '}
        <Link href="/" className="text-blue-800 underline">
          overview
        </Link>
        .
      </p>
    </div>
  );
}
