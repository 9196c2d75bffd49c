import type { EvalCorpus, Strategy } from '../types';
import { termCoverage } from './coverage';
import { poolSize, searchCorpus } from './keyword';
import { compareText } from './recent';

/** How many of the best hits lend their score to the notes they link to and that link to them. */
const LINK_PARENTS = 10;
/** What a parent lends: its score × LINK_WEIGHT × what the pair covers that neither covers alone. */
const LINK_WEIGHT = 1;

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
function neighbours(corpus: EvalCorpus, path: string): string[] {
  const note = corpus.byPath.get(path);
  if (!note) return [];
  return [...new Set([...note.links, ...note.backlinks])].filter((p) => p !== path && corpus.byPath.has(p));
}

/**
 * Re-ranks search hits with one hop of links and backlinks. Each of the top `parents` hits lends
 * each of its neighbours its own score × `weight` × the gain of the pair: the (rarity-weighted) share
 * of the question the neighbour holds that the parent does not, but no more than the share the
 * parent holds that the neighbour does not (the pair's coverage beyond the better of the two). So a
 * neighbour that adds nothing gets nothing, and so does one that already holds the parent's words
 * (search found it on its own); a decision that answers the rest of a question whose rare words
 * (a person's name) found its project's note rises above decisions that only share the common words.
 * A note's score is its search score plus the most any parent lends it; ties keep search order, then path.
 */
export function rerankWithLinks(
  question: string,
  corpus: EvalCorpus,
  hits: readonly { path: string; score: number }[],
  { parents = LINK_PARENTS, weight = LINK_WEIGHT }: { parents?: number; weight?: number } = {},
): LinkedScore[] {
  const scores = new Map<string, LinkedScore>();
  const order = new Map<string, number>();
  for (const hit of hits) {
    if (scores.has(hit.path)) continue;
    order.set(hit.path, order.size);
    scores.set(hit.path, { path: hit.path, own: hit.score, lent: 0, via: null });
  }
  const coverage = termCoverage(question, corpus);
  const weightOf = (indexes: number[]) => indexes.reduce((sum, i) => sum + coverage.terms[i].weight, 0);
  for (const parent of hits.slice(0, parents)) {
    const covered = coverage.held(parent.path);
    for (const path of neighbours(corpus, parent.path)) {
      const held = coverage.held(path);
      const gain = Math.min(weightOf([...held].filter((i) => !covered.has(i))), weightOf([...covered].filter((i) => !held.has(i))));
      if (gain <= 0) continue;
      const lent = parent.score * weight * gain;
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
  description: 'Search, then one hop of links and backlinks of the top hits, re-ranked by what each linked pair covers together.',
  rank: async (question, context) => {
    const hits = await searchCorpus(question, context, poolSize(context.k));
    return rerankWithLinks(question, context.corpus, hits, { parents: Math.max(LINK_PARENTS, context.k) }).map((s) => s.path);
  },
};
