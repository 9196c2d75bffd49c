import Link from 'next/link';
import { noteHref } from '@/lib/markdown/hrefs';

function Value({ value, resolve }: { value: unknown; resolve: (target: string) => string | null }) {
  if (Array.isArray(value)) {
    return (
      <ul className="flex flex-wrap gap-1">
        {value.map((v, i) => (
          <li key={i} className="rounded bg-stone-100 px-1.5">
            <Value value={v} resolve={resolve} />
          </li>
        ))}
      </ul>
    );
  }
  if (value !== null && typeof value === 'object') return <code className="text-xs">{JSON.stringify(value)}</code>;
  const text = value === null || value === undefined ? '' : String(value);
  const link = /^\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]$/.exec(text);
  if (link) {
    const target = resolve(link[1]);
    return target ? (
      <Link href={noteHref(target)} className="text-blue-800 underline">
        {link[2] || link[1]}
      </Link>
    ) : (
      <span className="text-red-800" title={`No note named ${link[1]}`}>
        {text}
      </span>
    );
  }
  return <span>{text}</span>;
}

/** A note's properties as a table; links in values lead to their notes. */
export function FrontmatterTable({ data, resolve }: { data: Record<string, unknown>; resolve: (target: string) => string | null }) {
  const entries = Object.entries(data);
  if (entries.length === 0) return null;
  return (
    <table aria-label="Properties" className="mb-6 w-full max-w-3xl text-sm">
      <tbody>
        {entries.map(([key, value]) => (
          <tr key={key} className="border-b border-stone-200 align-top">
            <th scope="row" className="w-40 py-1 pr-4 text-left font-medium text-stone-600">
              {key}
            </th>
            <td className="py-1 break-words">
              <Value value={value} resolve={resolve} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
