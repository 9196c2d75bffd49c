'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { DiffView } from '@/components/diff-view';
import { commitUncommittedAction } from '@/lib/actions/changelog';
import { changelogKeys, uncommittedOptions } from '@/lib/queries/changelog';

/**
 * The vault's changes nobody committed (a person editing in Obsidian), each with its diff, and a
 * commit of the chosen files as that person's edit. Nothing here discards a change. The browser
 * asks for them after the page has drawn: finding them is a `git status` of the whole vault,
 * which would otherwise hold back the changelog on every request (issue 18).
 */
export function UncommittedPanel() {
  const client = useQueryClient();
  const query = useQuery(uncommittedOptions());
  // Ticked: the files listed when the panel first showed; one that appears later waits to be ticked, so nothing unseen is committed.
  const [picked, setPicked] = useState<Set<string> | null>(null);
  if (picked === null && query.data) setPicked(new Set(query.data.files.map((f) => f.path)));
  const [open, setOpen] = useState<Set<string>>(() => new Set());
  const [reason, setReason] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const reasonId = useId();
  const person = query.data?.person ?? '';
  const files = query.data?.files ?? [];
  const ticked = picked ?? new Set<string>();
  const chosen = files.filter((f) => ticked.has(f.path)).map((f) => f.path);
  const shown = files.length > 0 || done !== null;
  const section = useRef<HTMLElement>(null);
  // A link to /changelog#uncommitted arrives before the panel does: scroll to it once it shows.
  useEffect(() => {
    if (shown && window.location.hash === '#uncommitted') section.current?.scrollIntoView();
  }, [shown]);

  const commit = useMutation({
    mutationFn: async () => commitUncommittedAction({ paths: chosen, reason: reason.trim() || undefined }),
    onSuccess: async (result) => {
      if (!result.ok) return;
      setDone(
        result.data ? `Committed as ${person}: edit ${result.data.editId} (${result.data.commit.slice(0, 7)}).` : 'Those files have no changes any more.',
      );
      setReason('');
      await client.invalidateQueries({ queryKey: changelogKeys.all });
    },
  });
  const failed = commit.data && !commit.data.ok ? commit.data.message : null;

  const flip = (set: Set<string>, path: string) => {
    const next = new Set(set);
    if (next.has(path)) next.delete(path);
    else next.add(path);
    return next;
  };

  if (query.isError) {
    return (
      <p role="alert" className="mb-6 max-w-5xl rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
        Lucid could not check the vault for uncommitted work ({query.error.message}); it tries again in a few seconds.
      </p>
    );
  }
  // Still asking (isPending), or nothing uncommitted: the panel shows only when there is work to see.
  if (!shown) return null;
  return (
    <section ref={section} id="uncommitted" aria-labelledby="uncommitted-title" className="mb-6 max-w-5xl rounded-md border border-amber-300 bg-amber-50 p-4">
      <h2 id="uncommitted-title" className="text-lg font-semibold">
        Uncommitted work
      </h2>
      <div role="status" aria-live="polite" className="text-sm text-emerald-800">
        {done}
      </div>
      {files.length > 0 ? (
        <>
          <p className="mt-1 text-sm text-stone-700">
            {files.length === 1 ? 'One file has' : `${files.length} files have`} changes nobody committed, made outside Lucid (in Obsidian, an editor, a
            script). Lucid never discards them; commit them here as your own edit ({person}), or leave them: the next Lucid write to one of these files commits
            your version first.
          </p>
          <ul aria-label="Uncommitted files" className="mt-3 space-y-2">
            {files.map((f, i) => (
              <li key={f.path} className="rounded border border-amber-200 bg-white p-2">
                <div className="flex flex-wrap items-center gap-2 text-sm">
                  <input id={`${reasonId}-${i}`} type="checkbox" checked={ticked.has(f.path)} onChange={() => setPicked(flip(ticked, f.path))} />
                  <label htmlFor={`${reasonId}-${i}`} className="break-all font-mono text-xs">
                    {f.path}
                  </label>
                  <span className="rounded bg-stone-100 px-1.5 text-xs text-stone-700">{f.status}</span>
                  <button
                    type="button"
                    aria-expanded={open.has(f.path)}
                    onClick={() => setOpen((s) => flip(s, f.path))}
                    className="rounded bg-stone-200 px-2 py-0.5 text-xs hover:bg-stone-300"
                  >
                    {open.has(f.path) ? 'Hide diff' : 'Show diff'}
                  </button>
                </div>
                {open.has(f.path) ? (
                  <div className="mt-2">
                    {f.tooBig ? (
                      <p className="text-sm text-stone-600">This change is too big to show here; look at it with git.</p>
                    ) : (
                      <DiffView patch={f.diff} empty="No change in the text (only the file mode or an empty file)." />
                    )}
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
          <div className="mt-3 flex flex-wrap items-end gap-2">
            <div>
              <label htmlFor={reasonId} className="block text-xs text-stone-600">
                Reason (optional)
              </label>
              <input
                id={reasonId}
                value={reason}
                maxLength={500}
                onChange={(e) => setReason(e.target.value)}
                className="mt-0.5 w-80 rounded-md border border-stone-300 bg-white px-2 py-1.5 text-sm"
              />
            </div>
            <button
              type="button"
              disabled={chosen.length === 0 || commit.isPending}
              onClick={() => {
                setDone(null);
                commit.mutate();
              }}
              className="rounded bg-stone-900 px-3 py-1.5 text-sm text-white hover:bg-stone-700 disabled:opacity-50"
            >
              {commit.isPending ? 'Committing…' : `Commit ${chosen.length === 1 ? 'this file' : `${chosen.length} files`} as ${person}`}
            </button>
          </div>
          {failed ? (
            <p role="alert" className="mt-2 text-sm text-red-800">
              {failed}
            </p>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
