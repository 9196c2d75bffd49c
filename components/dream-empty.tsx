import Link from 'next/link';

/** What the dream page says when there is no run: what a run is, and the command that makes one. */
export function DreamEmpty() {
  return (
    <div role="status" className="max-w-2xl rounded-lg border border-dashed border-stone-300 bg-white p-5 text-sm text-stone-700">
      <p className="font-medium">No dream runs to review.</p>
      <p className="mt-2">
        The dream pass looks through your skills for duplicates, skills no session used for a long time, and fields that do not match their history. To see what
        it finds, without changing anything:
      </p>
      <pre className="mt-2 rounded bg-stone-100 px-3 py-2 font-mono text-xs">lucid dream --vault DIR</pre>
      <p className="mt-3">To have it propose its changes for review here:</p>
      <pre className="mt-2 rounded bg-stone-100 px-3 py-2 font-mono text-xs">lucid dream --apply --vault DIR</pre>
      <p className="mt-3">
        It writes them on a branch <code>dream/&lt;run id&gt;</code>, never on your own branch. Nothing changes in the vault until you land a change here (or
        with <code>lucid dream land</code>). Meanwhile, see every skill on the{' '}
        <Link href="/skills" className="text-blue-800 underline">
          Skills
        </Link>{' '}
        page.
      </p>
    </div>
  );
}
