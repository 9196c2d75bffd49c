import 'server-only';
import { isSessionId, listSessions, type SessionDetail, type SessionOutcomeView, type SessionPage, sessionDetail } from '@/lib/vault';
import { type ChangelogEntry, changelogEntry, dayBounds, originFilters, urlFilterReaders } from './data';
import { getVault } from './vault';

// The sessions list and one session's page: reads for app/sessions, beside data.ts.

/** How many sessions one page of the list shows. */
const SESSIONS_PAGE_SIZE = 25;

/** The sessions list's filters, as the URL carries them (validated by the caller). */
export interface SessionFilters {
  /** Agent slug. */
  agent?: string;
  /** Vault path of a project note. */
  project?: string;
  outcome?: SessionOutcomeView;
  /** YYYY-MM-DD (the server's time zone, as the overview's days), both ends inclusive: sessions started on those days. */
  since?: string;
  until?: string;
  /** The id after which the page starts (the Older link's cursor). */
  cursor?: string;
  /** Only the sessions that ran on this machine / at this person's vault. */
  machine?: string;
  person?: string;
}

/** One page of sessions, newest first, with the choices the filters offer. */
export async function fetchSessionsPage(filters: SessionFilters): Promise<SessionPage> {
  return listSessions(await getVault(), {
    agent: filters.agent,
    project: filters.project,
    outcome: filters.outcome,
    since: filters.since ? dayBounds(filters.since).since * 1000 : undefined,
    until: filters.until ? dayBounds(filters.until).until * 1000 : undefined,
    cursor: filters.cursor ?? null,
    machine: filters.machine,
    person: filters.person,
    limit: SESSIONS_PAGE_SIZE,
  });
}

/** The sessions list's filters from the URL; a value that is not well formed is left out. */
export function parseSessionFilters(params: Record<string, string | string[] | undefined>): SessionFilters {
  const { one, day } = urlFilterReaders(params);
  const agent = one('agent');
  const project = one('project');
  const outcome = one('outcome');
  const cursor = one('cursor');
  const since = day(one('since'));
  const until = day(one('until'));
  return {
    ...(agent && /^[a-z0-9-]{1,64}$/.test(agent) ? { agent } : {}),
    ...(project && project.length <= 1000 ? { project } : {}),
    ...(outcome && SESSION_OUTCOME_VIEWS.includes(outcome as SessionOutcomeView) ? { outcome: outcome as SessionOutcomeView } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
    ...(cursor && isSessionId(cursor) ? { cursor } : {}),
    ...originFilters(params),
  };
}

/** The outcomes the sessions filter offers. */
const SESSION_OUTCOME_VIEWS: readonly SessionOutcomeView[] = ['done', 'partial', 'abandoned', 'open'];

/** One session as its page shows it: its commits as changelog entries (each with its diff and Revert). */
export interface SessionView extends Omit<SessionDetail, 'commits'> {
  edits: ChangelogEntry[];
}

/** Session `id` for its page, or null when there is no such session. */
export async function fetchSession(id: string): Promise<SessionView | null> {
  const vault = await getVault();
  const detail = await sessionDetail(vault, id);
  if (!detail) return null;
  const { commits, ...rest } = detail;
  return { ...rest, edits: commits.map((c) => changelogEntry(vault.layout, c)) };
}
