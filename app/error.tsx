'use client';

/** Unexpected failures (a bug, or an unreadable vault): say so and offer a retry. */
export default function ErrorPage({ error, retry }: { error: Error & { digest?: string }; retry: () => void }) {
  return (
    <div role="alert" className="max-w-xl">
      <h1 className="text-2xl font-semibold">Something went wrong</h1>
      <p className="mt-2 text-sm text-stone-600">
        Lucid could not show this page. The server log has the details{error.digest ? ` (reference ${error.digest})` : ''}.
      </p>
      <button type="button" onClick={() => retry()} className="mt-4 rounded-md bg-stone-900 px-3 py-1.5 text-sm text-white">
        Try again
      </button>
    </div>
  );
}
