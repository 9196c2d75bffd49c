import type { Vault } from '../vault';
import type { EvalCorpus } from './types';

/** The notes search returns, with their links, backlinks and last commit time, at HEAD. */
export async function buildCorpus(vault: Vault): Promise<EvalCorpus> {
  void vault;
  throw new Error('not yet');
}
