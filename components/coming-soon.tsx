/** What a section will show once it is built: never invented data. */
export function ComingSoon({ title, will }: { title: string; will: string[] }) {
  return (
    <div className="max-w-2xl">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      <div role="status" className="mt-4 rounded-lg border border-dashed border-stone-300 bg-white p-5 text-sm text-stone-700">
        <p className="font-medium">This page is not built yet. It will show:</p>
        <ul className="mt-2 list-disc space-y-1 pl-5">
          {will.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
        <p className="mt-3 text-stone-500">Until then, everything it will show is in the vault itself and in its git history.</p>
      </div>
    </div>
  );
}
