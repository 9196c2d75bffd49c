import { VaultError } from '../errors';

/** A span of time: ms since the epoch, `since` included, `until` left out. */
export interface ActivityRange {
  since: number;
  until: number;
}

const DAY_MS = 86_400_000;
const WEEK_PATTERN = /^(\d{4})-W(\d{2})$/;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The vault's time zone: the one its notes' times are written in (ids.ts formats times in the
 * process's local zone), as an IANA name.
 */
export function localTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      });
    } catch {
      throw new VaultError('invalid_input', `"${timeZone}" is not a time zone this system knows; use an IANA name such as Europe/Berlin or UTC.`);
    }
    formatters.set(timeZone, f);
  }
  return f;
}

/** The wall-clock fields of an instant in a time zone. */
function wallClock(ms: number, timeZone: string): { y: number; m: number; d: number; h: number; mi: number; s: number } {
  const parts: Record<string, number> = {};
  for (const p of formatterFor(timeZone).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return { y: parts.year, m: parts.month, d: parts.day, h: parts.hour % 24, mi: parts.minute, s: parts.second };
}

/** How far the zone's wall clock is ahead of UTC at an instant, in ms. */
function offsetAt(ms: number, timeZone: string): number {
  const w = wallClock(ms, timeZone);
  return Date.UTC(w.y, w.m - 1, w.d, w.h, w.mi, w.s) - Math.floor(ms / 1000) * 1000;
}

/**
 * The first instant of a calendar day (given as the UTC midnight of that date) in a time zone: its
 * midnight, or, where a daylight-saving jump skips midnight, the moment the day begins after it.
 */
function startOfDay(civilUtcMidnight: number, timeZone: string): number {
  let t = civilUtcMidnight - offsetAt(civilUtcMidnight, timeZone);
  t = civilUtcMidnight - offsetAt(t, timeZone);
  // A skipped midnight lands on the day before: move to the jump (the day's first existing moment).
  if (dayKey(t, timeZone) !== dayKey(civilUtcMidnight, 'UTC')) {
    let lo = t;
    let hi = t + 3 * 3_600_000;
    while (hi - lo > 1) {
      const mid = lo + Math.floor((hi - lo) / 2);
      if (dayKey(mid, timeZone) === dayKey(civilUtcMidnight, 'UTC')) hi = mid;
      else lo = mid;
    }
    t = hi;
  }
  return t;
}

function dayKey(ms: number, timeZone: string): string {
  const w = wallClock(ms, timeZone);
  return `${w.y}-${String(w.m).padStart(2, '0')}-${String(w.d).padStart(2, '0')}`;
}

/** `YYYY-MM-DD`: the calendar day an instant falls on in a time zone (default: the vault's). */
export function dayOf(ms: number, timeZone: string = localTimeZone()): string {
  return dayKey(ms, timeZone);
}

/** The ISO week-year and week of a civil date given as its UTC midnight. */
function isoWeekOfCivil(civil: number): { year: number; week: number } {
  const date = new Date(civil);
  const weekday = (date.getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const thursday = civil + (3 - weekday) * DAY_MS; // the week's Thursday decides its year
  const year = new Date(thursday).getUTCFullYear();
  const week = Math.floor((thursday - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
  return { year, week };
}

/** The Monday (UTC midnight of the civil date) of ISO week 1 of `year`. */
function firstMonday(year: number): number {
  const jan4 = Date.UTC(year, 0, 4);
  return jan4 - ((new Date(jan4).getUTCDay() + 6) % 7) * DAY_MS;
}

/** How many ISO weeks (52 or 53) `year` has. */
export function isoWeeksInYear(year: number): number {
  return isoWeekOfCivil(Date.UTC(year, 11, 28)).week;
}

/** `2026-W48`: the ISO week an instant falls in, in a time zone (default: the vault's). */
export function isoWeekOf(date: Date, timeZone: string = localTimeZone()): string {
  const w = wallClock(date.getTime(), timeZone);
  const { year, week } = isoWeekOfCivil(Date.UTC(w.y, w.m - 1, w.d));
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/** Whether `value` is an ISO week `YYYY-Www` that exists (W53 only in the years that have one). */
export function isIsoWeek(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = WEEK_PATTERN.exec(value);
  if (!m) return false;
  const week = Number(m[2]);
  return week >= 1 && week <= isoWeeksInYear(Number(m[1]));
}

/**
 * The span of an ISO week (`2026-W48`): from Monday 00:00 to the next Monday 00:00 in a time zone
 * (default: the vault's), so a week with a daylight-saving change is 167 or 169 hours long.
 */
export function isoWeekRange(week: string, timeZone: string = localTimeZone()): ActivityRange {
  if (!isIsoWeek(week)) {
    throw new VaultError(
      'invalid_input',
      `"${week}" is not an ISO week: write it as YYYY-Www, e.g. 2026-W48 (weeks 01 to 52, or 53 in the years that have it).`,
      {
        field: 'week',
      },
    );
  }
  const [, year, num] = WEEK_PATTERN.exec(week) as RegExpExecArray;
  const monday = firstMonday(Number(year)) + (Number(num) - 1) * 7 * DAY_MS;
  return { since: startOfDay(monday, timeZone), until: startOfDay(monday + 7 * DAY_MS, timeZone) };
}

/** The ISO week `offset` weeks after `week` (negative: before), across year boundaries. */
export function shiftIsoWeek(week: string, offset: number): string {
  const { since } = isoWeekRange(week, 'UTC');
  const { year, week: w } = isoWeekOfCivil(since + offset * 7 * DAY_MS);
  return `${year}-W${String(w).padStart(2, '0')}`;
}

/** Whether `value` is a real calendar date `YYYY-MM-DD`. */
export function isCalendarDay(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = DAY_PATTERN.exec(value);
  if (!m) return false;
  const t = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return dayKey(t, 'UTC') === value;
}

/**
 * The span from the start of day `from` to the end of day `to` (both `YYYY-MM-DD`, both included) in
 * a time zone (default: the vault's); the days may come in either order.
 */
export function dayRange(from: string, to: string, timeZone: string = localTimeZone()): ActivityRange {
  for (const [field, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!isCalendarDay(value)) throw new VaultError('invalid_input', `"${value}" is not a date: write it as YYYY-MM-DD, e.g. 2026-11-30.`, { field });
  }
  const [a, b] = [Date.parse(`${from}T00:00:00Z`), Date.parse(`${to}T00:00:00Z`)].sort((x, y) => x - y);
  return { since: startOfDay(a, timeZone), until: startOfDay(b + DAY_MS, timeZone) };
}

/** The calendar days (`YYYY-MM-DD`) a range covers in a time zone (default: the vault's), oldest first. */
export function daysOf(range: ActivityRange, timeZone: string = localTimeZone()): string[] {
  const days: string[] = [];
  if (range.until <= range.since) return days;
  const first = dayKey(range.since, timeZone);
  const last = dayKey(range.until - 1, timeZone);
  for (let t = Date.parse(`${first}T00:00:00Z`); ; t += DAY_MS) {
    const day = dayKey(t, 'UTC');
    days.push(day);
    if (day >= last || days.length > 3700) break;
  }
  return days;
}
