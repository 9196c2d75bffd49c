import type { Vault } from '../vault';
import type { EvalQuestion } from './types';

/** Parses a question set (`evals/questions/<set>.jsonl`); a bad line is a VaultError naming `source:line`. */
export function parseQuestionSet(text: string, source: string): EvalQuestion[] {
  void text;
  void source;
  throw new Error('not yet');
}

/** One JSON object a line, keys in VAULT-FORMAT's order, ending with a line break. */
export function serializeQuestionSet(questions: EvalQuestion[]): string {
  void questions;
  throw new Error('not yet');
}

/** The names of the vault's question sets (file names without `.jsonl`), sorted. */
export async function listQuestionSets(vault: Vault): Promise<string[]> {
  void vault;
  throw new Error('not yet');
}

/** Reads and parses one question set of the vault. */
export async function readQuestionSet(vault: Vault, set: string): Promise<EvalQuestion[]> {
  void vault;
  void set;
  throw new Error('not yet');
}

/** The split a question belongs to, half and half by a hash of its id (and `seed`). */
export function splitFor(id: string, seed?: string): 'dev' | 'test' {
  void id;
  void seed;
  throw new Error('not yet');
}
