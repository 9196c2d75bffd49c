import 'server-only';
import {
  type ActivityOrigin,
  type ActivityRange,
  type ActivitySummary,
  dayOf,
  dayRange,
  isCalendarDay,
  isIsoWeek,
  isoWeekOf,
  isoWeekRange,
  shiftIsoWeek,
  summarizeActivity,
  renderWeekReport,
  summarizeVault,
  type VaultSummary,
} from '@/lib/vault';
import { originFilters } from './data';
import { getVault } from './vault';

// The overview's reads (a week or a span of days) and the weekly report, beside data.ts.

/** The longest span of days the overview sums up at once. */
const OVERVIEW_MAX_DAYS = 366;

/** The span the overview shows, as the URL names it and as the page labels it. */
export interface OverviewRangeView {
  /** The ISO week shown (`2026-W48`), or null for a span of days. */
  week: string | null;
  /** The first and the last day shown (`YYYY-MM-DD`, the vault's time zone, both included). */
  from: string;
  to: string;
  /** The week before and after the shown one (for a span of days: around its first day), and this week. */
  previous: string;
  next: string;
  current: string;
  /** Why the URL's range was not used (the page then shows this week), or null. */
  problem: string | null;
}

/** Everything the overview page shows. */
export interface OverviewView {
  range: OverviewRangeView;
  activity: ActivitySummary;
  vault: VaultSummary;
  /** Absolute path of the vault, for the MCP configuration command. */
  vaultRoot: string;
  /** The machine and person the range's activity is narrowed to (URL `machine`, `person`), and the values the filters offer. */
  origin: ActivityOrigin;
  origins: { machines: string[]; persons: string[] };
}

/** The overview's range from the URL: `?week=YYYY-Www`, or `?from=YYYY-MM-DD&to=YYYY-MM-DD`, else this week. */
function overviewRange(params: Record<string, string | string[] | undefined>, now: Date): { range: ActivityRange; view: OverviewRangeView } {
  const one = (key: string) => (typeof params[key] === 'string' ? (params[key] as string) : undefined);
  const current = isoWeekOf(now);
  const week = (w: string, problem: string | null) => {
    const range = isoWeekRange(w);
    return {
      range,
      view: { week: w, from: dayOf(range.since), to: dayOf(range.until - 1), previous: shiftIsoWeek(w, -1), next: shiftIsoWeek(w, 1), current, problem },
    };
  };
  const [from, to, w] = [one('from'), one('to'), one('week')];
  if (from !== undefined || to !== undefined) {
    if (!isCalendarDay(from) || !isCalendarDay(to)) return week(current, 'Give both days of a range as YYYY-MM-DD; showing this week instead.');
    const range = dayRange(from, to);
    const first = dayOf(range.since);
    const last = dayOf(range.until - 1);
    if (Date.parse(`${last}T00:00:00Z`) - Date.parse(`${first}T00:00:00Z`) >= OVERVIEW_MAX_DAYS * 86_400_000) {
      return week(current, `Pick at most ${OVERVIEW_MAX_DAYS} days; showing this week instead.`);
    }
    const around = isoWeekOf(new Date(range.since));
    return { range, view: { week: null, from: first, to: last, previous: shiftIsoWeek(around, -1), next: shiftIsoWeek(around, 1), current, problem: null } };
  }
  if (w !== undefined && !isIsoWeek(w))
    return week(current, `"${String(w).slice(0, 20)}" is not an ISO week (YYYY-Www, e.g. ${current}); showing this week instead.`);
  return week(w ?? current, null);
}

/** The overview page: the range's activity from the commit index and the vault's figures (its uncommitted work is asked by the browser). */
export async function fetchActivityOverview(params: Record<string, string | string[] | undefined>): Promise<OverviewView> {
  const vault = await getVault();
  const { range, view } = overviewRange(params, new Date());
  const origin = originFilters(params);
  const [activity, figures] = await Promise.all([summarizeActivity(vault, range, origin), summarizeVault(vault)]);
  return { range: view, activity, vault: figures, vaultRoot: vault.root, origin, origins: (await vault.commits()).origins() };
}

/** The report of an ISO week, as the overview's Copy button copies it and `lucid report` prints it (narrowed to a machine or person when given). */
export async function fetchReportText(week: string, origin: ActivityOrigin = {}): Promise<{ week: string; path: string; text: string }> {
  const report = await renderWeekReport(await getVault(), week, origin);
  return { week, path: report.path, text: report.body };
}
