import Link from 'next/link';
import { notFound } from 'next/navigation';
import { Suspense } from 'react';
import { BacklinksList } from '@/components/backlinks-list';
import { FrontmatterTable } from '@/components/frontmatter-table';
import { MarkdownView } from '@/components/markdown-view';
import { HistorySkeleton } from '@/components/history-skeleton';
import { NoteHistory } from '@/components/note-history';
import { obsidianHref } from '@/lib/markdown/hrefs';
import { fetchBacklinks, fetchNote, fetchNoteHistory, RENDER_LIMIT } from '@/lib/server/data';

export default async function NotePage({ params }: { params: Promise<{ path: string[] }> }) {
  const { path: segments } = await params;
  const view = await fetchNote(segments);
  if (!view) notFound();
  const { note, vaultName, resolve, embeds } = view;
  const tooLarge = note.body.length > RENDER_LIMIT;
  return (
    <article>
      <header className="mb-4">
        <p className="text-xs text-stone-500">{note.path}</p>
        <div className="flex items-start justify-between gap-4">
          <h1 className="text-2xl font-semibold tracking-tight" data-testid="note-title">
            {note.title}
          </h1>
          <a href={obsidianHref(vaultName, note.path)} className="shrink-0 rounded border border-stone-300 px-2 py-1 text-sm hover:bg-stone-100">
            Open in Obsidian
          </a>
        </div>
        {note.type ? <p className="text-sm text-stone-600">type: {note.type}</p> : null}
      </header>
      {note.problem ? (
        <div role="alert" aria-label="Unreadable" className="mb-4 rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900">
          <strong>Lucid cannot read this note&apos;s {note.problem === 'invalid_frontmatter' ? 'front matter' : 'content'}:</strong> {note.problemMessage}{' '}
          Agents will not change it until a person fixes it.
        </div>
      ) : null}
      {note.violations.length > 0 ? (
        <div role="alert" aria-label="Violations" className="mb-4 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          <strong>This {note.type} note breaks its rules:</strong>
          <ul className="mt-1 list-disc pl-5">
            {note.violations.map((v, i) => (
              <li key={i}>
                <code>{v.field}</code>: {v.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <FrontmatterTable data={note.frontmatter} resolve={(t) => (t === '' ? note.path : resolve(t, note.path, 'frontmatter'))} />
      {note.text === null ? (
        <p className="text-sm text-stone-600">This file is not text Lucid can show ({note.problemMessage}).</p>
      ) : note.problem === 'invalid_frontmatter' || tooLarge ? (
        <pre className="max-h-[70vh] overflow-auto whitespace-pre-wrap rounded bg-white p-4 text-sm">
          {tooLarge ? `${note.text.slice(0, RENDER_LIMIT)}\n\n… (the rest of this ${Math.round(note.size / 1024)} KiB note is not shown)` : note.text}
        </pre>
      ) : (
        <div className="max-w-3xl">
          <MarkdownView
            markdown={note.body}
            notePath={note.path}
            resolve={(target, kind, from) => resolve(target, from, kind)}
            embed={(p: string) => embeds.get(p) ?? null}
          />
        </div>
      )}
      <div className="mt-10 grid max-w-4xl gap-8 md:grid-cols-2">
        <section aria-labelledby="backlinks-title">
          <h2 id="backlinks-title" className="mb-2 text-lg font-semibold">
            Backlinks
          </h2>
          <Suspense key={`b-${note.path}`} fallback={<HistorySkeleton />}>
            <BacklinksList backlinks={fetchBacklinks(note.path)} />
          </Suspense>
        </section>
        <section aria-labelledby="history-title">
          <h2 id="history-title" className="mb-2 text-lg font-semibold">
            History
          </h2>
          <Suspense key={`h-${note.path}`} fallback={<HistorySkeleton />}>
            <NoteHistory history={fetchNoteHistory(note.path)} />
          </Suspense>
        </section>
      </div>
      <p className="mt-8 text-sm">
        <Link href="/search" className="text-blue-800 underline">
          Search the vault
        </Link>
      </p>
    </article>
  );
}
