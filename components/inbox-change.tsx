'use client';

import type { ReactNode } from 'react';
import { DiffView } from '@/components/diff-view';
import { FrontmatterTable } from '@/components/frontmatter-table';
import { MarkdownView } from '@/components/markdown-view';
import { type InboxDetail, linkResolverOf } from '@/lib/queries/inbox';

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section aria-label={title} className="mb-5">
      <h3 className="mb-1 text-sm font-semibold">{title}</h3>
      {children}
    </section>
  );
}

function Text({ text }: { text: string }) {
  return <pre className="max-h-96 overflow-auto whitespace-pre-wrap break-words rounded border border-stone-200 bg-white p-3 text-xs">{text}</pre>;
}

/**
 * What accepting the item would do, by kind: the proposal against the note as it is now (a diff),
 * the new note rendered for a create, what would go for a delete, the masked text of a held
 * secret. An item whose note changed since is shown by InboxMerge instead.
 */
export function InboxChange({ detail }: { detail: InboxDetail }) {
  if (detail.problem) {
    return detail.proposal !== null ? (
      <Section title="What the inbox note holds">
        <Text text={detail.proposal} />
      </Section>
    ) : null;
  }
  const diff = <DiffView patch={detail.diff} empty="Accepting changes nothing in the note." />;
  if (detail.flag === 'possible-secret') {
    return (
      <>
        <p role="note" className="mb-4 rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          Held because it looked like a secret: what looked like one is masked below, and the explanation above says what was found. Accepting saves the masked
          text; never paste the secret back into a note.
        </p>
        <Section title="The masked text">
          <Text text={detail.proposal ?? ''} />
        </Section>
        <Section title="What accepting would change">{diff}</Section>
      </>
    );
  }
  if (detail.flag === 'conflict') {
    return <Section title="The agent's version against the note as it is now">{diff}</Section>;
  }
  if (detail.action === 'create') {
    const resolve = linkResolverOf(detail);
    return (
      <>
        {detail.preview ? (
          <Section title="The new note">
            <div className="rounded border border-stone-200 bg-white p-4">
              {detail.preview.frontmatter && Object.keys(detail.preview.frontmatter).length > 0 ? (
                <FrontmatterTable data={detail.preview.frontmatter} resolve={(t) => resolve(t, 'frontmatter', detail.target)} />
              ) : null}
              <MarkdownView markdown={detail.preview.body} notePath={detail.target} resolve={(target, kind, from) => resolve(target, kind, from)} />
            </div>
          </Section>
        ) : null}
        <Section title="As a diff">{diff}</Section>
      </>
    );
  }
  if (detail.action === 'delete') {
    return (
      <>
        <Section title="What would go">
          {detail.current === null ? <p className="text-sm text-stone-600">The note is already gone.</p> : <Text text={detail.current} />}
        </Section>
        <Section title="As a diff">{diff}</Section>
      </>
    );
  }
  return <Section title={detail.action === 'append' ? 'What accepting would add' : 'What accepting would change'}>{diff}</Section>;
}
