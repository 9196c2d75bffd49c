import Link from 'next/link';

const FIELD = 'rounded-md border border-stone-300 bg-white px-2 py-1.5 text-sm';
const BUTTON = 'rounded-md border border-stone-300 bg-white px-2.5 py-1.5 text-sm hover:border-stone-500';

/**
 * Which span the overview shows: the week before or after, this week, or any days; every choice is
 * a plain URL (`?week=` or `?from=&to=`), so a view can be linked and works without JavaScript.
 */
export function OverviewRangePicker({
  week,
  from,
  to,
  previous,
  next,
  current,
  keep = {},
}: {
  /** Filters the range links keep (the machine and person). */
  keep?: { machine?: string; person?: string };
  week: string | null;
  from: string;
  to: string;
  previous: string;
  next: string;
  current: string;
}) {
  const kept = Object.entries(keep).filter((e): e is [string, string] => Boolean(e[1]));
  const at = (week?: string) => {
    const params = new URLSearchParams([...(week ? [['week', week] as [string, string]] : []), ...kept]);
    return params.size ? `/?${params}` : '/';
  };
  return (
    <nav aria-label="Range" className="mb-6 flex flex-wrap items-end gap-3">
      <div className="flex items-center gap-1.5">
        <Link href={at(previous)} className={BUTTON} rel="prev">
          ← {previous}
        </Link>
        <span className="px-1 text-sm font-medium tabular-nums" data-testid="range-label" aria-current="page">
          {week ?? `${from} – ${to}`}
        </span>
        <Link href={at(next)} className={BUTTON} rel="next">
          {next} →
        </Link>
        {week !== current ? (
          <Link href={at()} className={BUTTON}>
            This week
          </Link>
        ) : null}
      </div>
      <form action="/" method="get" className="flex flex-wrap items-end gap-2" aria-label="Pick days">
        <label className="flex flex-col gap-0.5 text-xs text-stone-600">
          From
          <input name="from" type="date" required defaultValue={from} className={FIELD} />
        </label>
        <label className="flex flex-col gap-0.5 text-xs text-stone-600">
          To
          <input name="to" type="date" required defaultValue={to} className={FIELD} />
        </label>
        {kept.map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <button type="submit" className={BUTTON}>
          Show these days
        </button>
      </form>
    </nav>
  );
}
