import type { EvalCorpus, Strategy } from '../types';
import { termCoverage } from './coverage';
import { poolSize, searchCorpus } from './keyword';
import { compareText } from './recent';

/** How many of the best hits lend their score to the notes they link to and that link to them. */
export const LINK_PARENTS = 5;
/**
 * A neighbour's score is its parent's score × LINK_WEIGHT × the (rarity-weighted) share of the
 * question the neighbour holds and its parent does not, added to its own search score.
 */
export const LINK_WEIGHT = 1;

/** One candidate of the re-ranking: a search hit, a neighbour of one, or both. */
export interface LinkedScore {
  path: string;
  /** Its own search score (0 when search did not find it). */
  own: number;
  /** What the best parent lends it (0 when none lends anything). */
  lent: number;
  /** The parent that lent it, when one did. */
  via: string | null;
}

/** The notes one hop from `path`: what it links to and what links to it, in the corpus, itself left out. */
export function neighbours(corpus: EvalCorpus, path: string): string[] {
  const note = corpus.byPath.get(path);
  if (!note) return [];
  return [...new Set([...note.links, ...note.backlinks])].filter((p) => p !== path && corpus.byPath.has(p));
}

/**
 * Re-ranks search hits with one hop of links and backlinks: each of the top `parents` hits lends
 * each neighbour its score × LINK_WEIGHT × the share of the question the neighbour holds that the
 * parent does not (a neighbour that adds nothing to what the parent covers gets nothing). A note's
 * final score is its own plus the most any parent lends it; ties keep search order, then path.
 * So a decision that answers the rest of a question whose first words found its project's note
 * rises above decisions that only share the question's common words.
 */
export function rerankWithLinks(question: string, corpus: EvalCorpus, hits: { path: string; score: number }[], parents = LINK_PARENTS): LinkedScore[] {
  const scores = new Map<string, LinkedScore>();
  const order = new Map<string, number>();
  for (const hit of hits) {
    if (scores.has(hit.path)) continue;
    order.set(hit.path, order.size);
    scores.set(hit.path, { path: hit.path, own: hit.score, lent: 0, via: null });
  }
  const coverage = termCoverage(question, corpus);
  for (const parent of hits.slice(0, parents)) {
    const covered = coverage.held(parent.path);
    for (const path of neighbours(corpus, parent.path)) {
      const novel = [...coverage.held(path)].filter((i) => !covered.has(i)).reduce((sum, i) => sum + coverage.terms[i].weight, 0);
      if (novel <= 0) continue;
      const lent = parent.score * LINK_WEIGHT * novel;
      const entry = scores.get(path) ?? { path, own: 0, lent: 0, via: null };
      if (lent > entry.lent) Object.assign(entry, { lent, via: parent.path });
      scores.set(path, entry);
    }
  }
  const rank = (path: string) => order.get(path) ?? Number.MAX_SAFE_INTEGER;
  return [...scores.values()].sort((a, b) => b.own + b.lent - (a.own + a.lent) || rank(a.path) - rank(b.path) || compareText(a.path, b.path));
}

/** Search, then one hop along wikilinks and backlinks of the best hits, re-ranked (see `rerankWithLinks`). */
export const keywordLinksStrategy: Strategy = {
  name: 'keyword-links',
  description: 'Search, then one hop of links and backlinks of the top hits, re-ranked by what each neighbour adds.',
  rank: async (question, context) => {
    const hits = await searchCorpus(question, context, poolSize(context.k));
    return rerankWithLinks(question, context.corpus, hits, Math.max(LINK_PARENTS, context.k)).map((s) => s.path);
  },
};
