import type { Vault } from '../vault';
import type { EvalMetric, QuestionResult } from './types';

/** One eval-run note as the page and the CLI list it. */
export interface EvalRunRow {
  path: string;
  date: string;
  time: string | null;
  set: string;
  questions: number;
  k: number;
  commit: string;
  strategies: Record<string, Partial<Record<EvalMetric, number>>>;
  harness: 'lucid' | 'other';
  hasResults: boolean;
}

/** Every eval-run note under the runs folder, newest first; malformed ones are skipped. */
export async function listEvalRuns(vault: Vault): Promise<EvalRunRow[]> {
  void vault;
  throw new Error('not yet');
}

/** The per-question results of a run ([] when it has no results file). */
export async function readRunResults(vault: Vault, runPath: string): Promise<QuestionResult[]> {
  void vault;
  void runPath;
  throw new Error('not yet');
}
