import Link from 'next/link';
import type { ReactNode } from 'react';

/** A titled list of the overview (sessions, notes, reverts…), with what to say when it is empty and where to see all. */
export function OverviewList({
  id,
  title,
  empty,
  more,
  children,
}: {
  id: string;
  title: string;
  empty: string;
  more?: { href: string; label: string };
  children: ReactNode[];
}) {
  return (
    <section aria-labelledby={`${id}-title`} className="rounded-lg border border-stone-200 bg-white p-4" data-testid={id}>
      <h2 id={`${id}-title`} className="mb-2 text-lg font-semibold">
        {title}
      </h2>
      {children.length === 0 ? <p className="text-sm text-stone-600">{empty}</p> : <ul className="space-y-1.5 text-sm">{children}</ul>}
      {more ? (
        <Link href={more.href} className="mt-3 inline-block text-sm text-blue-800 underline">
          {more.label}
        </Link>
      ) : null}
    </section>
  );
}
