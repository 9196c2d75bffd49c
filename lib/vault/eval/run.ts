import type { Vault } from '../vault';
import type { EvalCorpus, EvalProgress, EvalQuestion, QuestionResult, Strategy, StrategySummary } from './types';

/** What a run measures and who it is written as. */
export interface EvalRunOptions {
  sets?: string[];
  k?: number;
  strategies?: Strategy[];
  onProgress?: (p: EvalProgress) => void;
  actor?: string;
  now?: Date;
}

/** One set's run: where it was written and what it measured. */
export interface SetRun {
  set: string;
  notePath: string;
  resultsPath: string;
  questions: number;
  summary: Record<string, StrategySummary>;
  results: QuestionResult[];
}

/** Runs every strategy on the vault's question sets and commits the run notes and results as one edit. */
export async function runEvaluation(vault: Vault, options: EvalRunOptions = {}): Promise<{ commit: string | null; runs: SetRun[] }> {
  void vault;
  void options;
  throw new Error('not yet');
}

/** Scores every strategy on one set's questions; writes nothing. */
export async function evaluateSet(
  vault: Vault,
  corpus: EvalCorpus,
  questions: EvalQuestion[],
  options: { k: number; strategies: Strategy[]; onProgress?: (p: EvalProgress) => void; set: string },
): Promise<{ results: QuestionResult[]; summary: Record<string, StrategySummary> }> {
  void vault;
  void corpus;
  void questions;
  void options;
  throw new Error('not yet');
}
