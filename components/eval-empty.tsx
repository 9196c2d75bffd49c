/**
 * What the evaluation page says before there is anything to chart: with no question set, how to
 * make one (generated, or written by hand, with the line format); with sets but no run, that the
 * Run evaluation button makes the first.
 */
export function EvalEmpty({ hasSets, questionsFolder, vaultRoot }: { hasSets: boolean; questionsFolder: string; vaultRoot: string }) {
  if (hasSets) {
    return (
      <div role="status" className="max-w-2xl rounded-lg border border-dashed border-stone-300 bg-white p-5 text-sm text-stone-700">
        <p className="font-medium">No evaluation run yet.</p>
        <p className="mt-2">
          Press <strong>Run evaluation</strong> to measure how well each retrieval strategy finds the notes that answer your questions, from no memory at all to
          search with links. It writes one run note per question set, committed as one edit. From a terminal:
        </p>
        <pre className="mt-2 overflow-x-auto rounded bg-stone-100 px-3 py-2 font-mono text-xs">lucid eval run --vault {vaultRoot}</pre>
      </div>
    );
  }
  const line =
    '{"id": "q1", "question": "Which database holds the ledger?", "gold": ["decisions/use-postgres.md"], "answers": ["Postgres"], "kind": "hand", "split": "test"}';
  return (
    <div role="status" className="max-w-2xl rounded-lg border border-dashed border-stone-300 bg-white p-5 text-sm text-stone-700">
      <p className="font-medium">No question set yet.</p>
      <p className="mt-2">
        An evaluation asks questions whose answers are in your notes and checks which notes each strategy finds. Generate a set from your typed notes, headings
        and links:
      </p>
      <pre className="mt-2 overflow-x-auto rounded bg-stone-100 px-3 py-2 font-mono text-xs">lucid eval generate --vault {vaultRoot}</pre>
      <p className="mt-3">
        Or write one by hand: a file <code>{questionsFolder}/&lt;set&gt;.jsonl</code>, one question a line, with the notes that answer it (gold), words the
        answer contains, its kind (<code>hand</code>) and its split (<code>dev</code> or <code>test</code>):
      </p>
      <pre className="mt-2 overflow-x-auto rounded bg-stone-100 px-3 py-2 font-mono text-xs">{line}</pre>
      <p className="mt-3">Then come back here and press Run evaluation.</p>
    </div>
  );
}
