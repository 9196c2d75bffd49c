const KEYS: [string, string][] = [
  ['j', 'next'],
  ['k', 'previous'],
  ['a', 'accept'],
  ['e', 'edit'],
  ['r', 'reject'],
  ['Esc', 'cancel'],
];

/** The inbox's keyboard shortcuts, always in sight (they never fire while typing in a field). */
export function InboxKeysHint() {
  return (
    <p role="note" aria-label="Keyboard shortcuts" className="flex flex-wrap gap-x-3 gap-y-1 text-xs text-stone-500">
      {KEYS.map(([key, what]) => (
        <span key={key}>
          <kbd className="rounded border border-stone-300 bg-white px-1 font-mono text-stone-700">{key}</kbd> {what}
        </span>
      ))}
    </p>
  );
}
