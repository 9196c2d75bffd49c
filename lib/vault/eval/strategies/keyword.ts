import type { SearchHit } from '../../search/search-index';
import type { Strategy, StrategyContext } from '../types';

/** How many hits a keyword strategy asks search for: at least 20, so re-rankers have room. */
export function poolSize(k: number): number {
  return Math.max(k, 20);
}

/** The product's default search (BM25) for a question, only notes the corpus holds, best first. */
export async function searchCorpus(
  question: string,
  context: StrategyContext,
  limit: number,
  options: { type?: string; project?: string } = {},
): Promise<SearchHit[]> {
  const hits = await context.vault.search(question, { limit, ...options });
  return hits.filter((hit) => context.corpus.byPath.has(hit.path));
}

/** The product's default search, `vault.search` (BM25 with its boosts), as agents and the dashboard get it. */
export const keywordStrategy: Strategy = {
  name: 'keyword',
  description: 'The default search: BM25 over titles, aliases, headings, fields and text.',
  rank: async (question, context) => (await context.vault.search(question, { limit: poolSize(context.k) })).map((hit) => hit.path),
};
