'use client';

import Link from 'next/link';
import { MarkdownView } from '@/components/markdown-view';
import { noteHref } from '@/lib/markdown/hrefs';
import { type InboxDetail, linkResolverOf } from '@/lib/queries/inbox';

const VERB: Record<string, string> = { create: 'Create', update: 'Update', append: 'Append to', delete: 'Delete' };

/** The selected item: what it proposes, who proposed it and why, in the proposer's words. */
export function InboxItemHeader({ detail }: { detail: InboxDetail }) {
  const resolve = linkResolverOf(detail);
  return (
    <header className="mb-4">
      <h2 className="text-lg font-semibold tracking-tight">
        {detail.problem ? (
          <>
            Unreadable item <code className="break-all">{detail.path}</code>
          </>
        ) : (
          <>
            {VERB[detail.action] ?? detail.action}{' '}
            {detail.action === 'create' || detail.current === null ? (
              <code className="break-all">{detail.target}</code>
            ) : (
              <Link href={noteHref(detail.target)} className="break-all text-blue-800 underline">
                {detail.target}
              </Link>
            )}
          </>
        )}
      </h2>
      <dl className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-sm text-stone-600">
        {detail.proposedBy ? (
          <div>
            <dt className="inline">Proposed by </dt>
            <dd className="inline font-medium text-stone-800">{detail.proposedBy}</dd>
          </div>
        ) : null}
        {detail.session ? (
          <div>
            <dt className="inline">Session </dt>
            <dd className="inline">
              <Link href={`/sessions/${encodeURIComponent(detail.session)}`} className="text-blue-800 underline">
                {detail.session}
              </Link>
            </dd>
          </div>
        ) : null}
        {detail.created ? (
          <div>
            <dt className="inline">Proposed </dt>
            <dd className="inline">
              <time dateTime={detail.created}>{detail.created.replace('T', ' ')}</time>
            </dd>
          </div>
        ) : null}
        {detail.confidence !== null ? (
          <div>
            <dt className="inline">Confidence </dt>
            <dd className="inline tabular-nums">{detail.confidence.toFixed(2)}</dd>
          </div>
        ) : null}
        {detail.flag ? (
          <div>
            <dt className="inline">Flag </dt>
            <dd className="inline font-medium text-red-900">{detail.flag}</dd>
          </div>
        ) : null}
      </dl>
      {detail.reason ? (
        <p className="mt-2 text-sm">
          <span className="text-stone-600">Reason: </span>
          {detail.reason}
        </p>
      ) : null}
      {detail.problem ? (
        <div role="alert" aria-label="Problem" className="mt-3 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          {detail.problem}
        </div>
      ) : null}
      {detail.explanation.trim() ? (
        <section aria-label="Explanation" className="mt-3 rounded border border-stone-200 bg-stone-50 p-3 text-sm">
          <MarkdownView markdown={detail.explanation} notePath={detail.path} resolve={(target, kind, from) => resolve(target, kind, from)} />
        </section>
      ) : null}
    </header>
  );
}
