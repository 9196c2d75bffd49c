import Link from 'next/link';
import { PageHeader } from '@/components/page-header';
import { noteHref } from '@/lib/markdown/hrefs';
import { fetchHealthReport } from '@/lib/server/data';

export default async function HealthPage() {
  const report = await fetchHealthReport();
  const byNote = new Map<string, { field: string; message: string }[]>();
  for (const v of report.violations) byNote.set(v.path, [...(byNote.get(v.path) ?? []), v]);
  const brokenByNote = new Map<string, { line: number; link: string }[]>();
  for (const b of report.brokenLinks) brokenByNote.set(b.path, [...(brokenByNote.get(b.path) ?? []), b]);
  const total = report.violations.length + report.unparseable.length + report.brokenLinks.length;
  return (
    <div>
      <PageHeader
        title="Health"
        description={`Everything Lucid found wrong in ${report.notes} notes: notes that break their type's rules, front matter that cannot be read, and links that lead nowhere. The same list as \`lucid lint\`.`}
      />
      {total === 0 ? (
        <p role="status" className="rounded-lg border border-emerald-200 bg-emerald-50 p-4 text-sm text-emerald-900">
          No problems: every typed note follows its rules, every front matter parses and every link resolves.
        </p>
      ) : null}
      <section aria-labelledby="unparseable" className="mb-8">
        <h2 id="unparseable" className="mb-2 text-lg font-semibold">
          Unreadable notes <span className="text-stone-500">({report.unparseable.length})</span>
        </h2>
        {report.unparseable.length === 0 ? <p className="text-sm text-stone-500">None.</p> : null}
        <ul className="space-y-1 text-sm">
          {report.unparseable.map((u) => (
            <li key={u.path}>
              <Link href={noteHref(u.path)} className="font-medium text-blue-800 underline">
                {u.path}
              </Link>
              <span className="text-stone-700"> — {u.message}</span>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="violations" className="mb-8">
        <h2 id="violations" className="mb-2 text-lg font-semibold">
          Schema violations <span className="text-stone-500">({report.violations.length})</span>
        </h2>
        {byNote.size === 0 ? <p className="text-sm text-stone-500">None.</p> : null}
        <ul className="space-y-2 text-sm">
          {[...byNote].map(([path, list]) => (
            <li key={path}>
              <Link href={noteHref(path)} className="font-medium text-blue-800 underline">
                {path}
              </Link>
              <ul className="ml-4 list-disc pl-4 text-stone-700">
                {list.map((v, i) => (
                  <li key={i}>
                    <code className="rounded bg-stone-100 px-1">{v.field}</code> {v.message}
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      </section>
      <section aria-labelledby="broken" className="mb-8">
        <h2 id="broken" className="mb-2 text-lg font-semibold">
          Broken links <span className="text-stone-500">({report.brokenLinks.length})</span>
        </h2>
        {brokenByNote.size === 0 ? <p className="text-sm text-stone-500">None.</p> : null}
        <ul className="space-y-2 text-sm">
          {[...brokenByNote].map(([path, list]) => (
            <li key={path}>
              <Link href={noteHref(path)} className="font-medium text-blue-800 underline">
                {path}
              </Link>
              <ul className="ml-4 list-disc pl-4 text-stone-700">
                {list.map((b, i) => (
                  <li key={i}>
                    line {b.line || 'front matter'}: <code className="rounded bg-stone-100 px-1">{b.link}</code>
                  </li>
                ))}
              </ul>
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
