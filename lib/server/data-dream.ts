import 'server-only';
import { type DreamChangeView, type DreamRunView, dreamChangePatch, listDreamRuns } from '@/lib/vault';
import { getVault } from './vault';

// The dream review page's reads, beside data.ts.

/** Longest patch of a dream change the page draws; a longer one says "too big" instead. */
const DREAM_MAX_PATCH = 512 * 1024;

/** A dream run as the review's list shows it (its changes left out). */
export type DreamRunSummary = Omit<DreamRunView, 'changes'>;

/** One change with its patch (empty and `tooBig` past DREAM_MAX_PATCH). */
export type DreamChangeData = DreamChangeView & { patch: string; tooBig: boolean };

/** What the dream page shows: every run, and the chosen one (else the newest) with its changes' patches. */
export interface DreamReviewData {
  runs: DreamRunSummary[];
  run: (DreamRunSummary & { changes: DreamChangeData[] }) | null;
}

/** The dream review: the runs (each pending change checked against the vault now) and one run in full. */
export async function fetchDreamReview(runId?: string): Promise<DreamReviewData> {
  const vault = await getVault();
  const runs = await listDreamRuns(vault);
  const chosen = runs.find((r) => r.runId === runId) ?? runs[0];
  const summaries = runs.map(({ changes: _, ...summary }) => summary);
  if (!chosen) return { runs: summaries, run: null };
  const changes: DreamChangeData[] = [];
  for (const change of chosen.changes) {
    const { patch, truncated } = await dreamChangePatch(vault, change, DREAM_MAX_PATCH);
    changes.push({ ...change, patch: truncated ? '' : patch, tooBig: truncated });
  }
  const { changes: _, ...summary } = chosen;
  return { runs: summaries, run: { ...summary, changes } };
}
