import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="max-w-xl">
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p className="mt-2 text-sm text-stone-600">
        There is nothing at this address. Go back to the{' '}
        <Link href="/" className="text-blue-800 underline">
          overview
        </Link>
        .
      </p>
    </div>
  );
}
