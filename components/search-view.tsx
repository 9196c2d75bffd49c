'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useRef, useState } from 'react';
import { noteHref } from '@/lib/markdown/hrefs';
import { splitMarks } from '@/lib/markdown/snippet-marks';
import { searchQueryOptions } from '@/lib/queries/search';

/** A snippet whose matches are marked « and » by the search index, shown with <mark>. */
function Snippet({ text }: { text: string }) {
  const parts = splitMarks(text);
  return <>{parts.map((part, i) => (part.startsWith('«') && part.endsWith('»') ? <mark key={i}>{part.slice(1, -1)}</mark> : <span key={i}>{part}</span>))}</>;
}

const TYPES = ['person', 'project', 'decision', 'session', 'skill', 'inbox', 'report', 'eval-run'];

/** Results as you type, with filters by type and folder; the query lives in the URL. */
export function SearchView({ folders }: { folders: string[] }) {
  const params = useSearchParams();
  const router = useRouter();
  const [input, setInput] = useState(params.get('q') ?? '');
  const [query, setQuery] = useState(input);
  const [type, setType] = useState(params.get('type') ?? '');
  const [folder, setFolder] = useState(params.get('folder') ?? '');
  const box = useRef<HTMLInputElement>(null);

  useEffect(() => {
    box.current?.focus();
  }, []);
  useEffect(() => {
    const timer = setTimeout(() => setQuery(input), 120);
    return () => clearTimeout(timer);
  }, [input]);
  useEffect(() => {
    const next = new URLSearchParams();
    if (query) next.set('q', query);
    if (type) next.set('type', type);
    if (folder) next.set('folder', folder);
    router.replace(`/search${next.size ? `?${next}` : ''}`, { scroll: false });
  }, [query, type, folder, router]);

  const results = useQuery(searchQueryOptions(query, type, folder));
  return (
    <div className="max-w-3xl">
      {/* biome-ignore lint/a11y/useSemanticElements: a <search> wrapper would drop the form's submit handling; role="search" on the form is the ARIA pattern */}
      <form role="search" className="flex flex-wrap gap-2" onSubmit={(e) => e.preventDefault()}>
        <label className="sr-only" htmlFor="search-input">
          Search the vault
        </label>
        <input
          id="search-input"
          ref={box}
          type="search"
          value={input}
          onChange={(e) => setInput(e.target.value)}
          placeholder="Ask in plain words, e.g. why did we pick postgres"
          className="min-w-64 flex-1 rounded-md border border-stone-300 bg-white px-3 py-2 text-sm"
        />
        <label className="flex items-center gap-1 text-sm">
          Type
          <select value={type} onChange={(e) => setType(e.target.value)} className="rounded-md border border-stone-300 bg-white px-2 py-2">
            <option value="">Any</option>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-1 text-sm">
          Folder
          <select value={folder} onChange={(e) => setFolder(e.target.value)} className="max-w-56 rounded-md border border-stone-300 bg-white px-2 py-2">
            <option value="">Anywhere</option>
            {folders.map((f) => (
              <option key={f} value={f}>
                {f}
              </option>
            ))}
          </select>
        </label>
      </form>
      <div aria-live="polite" className="mt-4">
        {!query.trim() ? (
          <p className="text-sm text-stone-500">
            Type a question or a few words. Titles, aliases, headings and tags count most; the changelog and inbox are left out.
          </p>
        ) : results.isError ? (
          <p role="alert" className="text-sm text-red-800">
            Search failed: {(results.error as Error).message}
          </p>
        ) : results.isPending ? (
          <p className="text-sm text-stone-500">Searching…</p>
        ) : results.data.length === 0 ? (
          <p className="text-sm text-stone-600">
            No notes match “{query}”. Try other words{type || folder ? ', or remove a filter' : ''}.
          </p>
        ) : (
          <ol aria-label="Search results" className="space-y-3">
            {results.data.map((hit) => (
              <li key={hit.path} className="rounded-md border border-stone-200 bg-white p-3">
                <Link href={noteHref(hit.path)} className="font-medium text-blue-800 underline">
                  {hit.title}
                </Link>
                <span className="ml-2 text-xs text-stone-500">
                  {hit.path}
                  {hit.type ? ` · ${hit.type}` : ''}
                </span>
                <p className="mt-1 text-sm text-stone-700">
                  <Snippet text={hit.snippet} />
                </p>
              </li>
            ))}
          </ol>
        )}
      </div>
    </div>
  );
}
