import type { Strategy } from '../types';
import { type CorpusTerms, corpusTerms, searchExpanded } from './expansion';
import { keywordStrategy } from './keyword';

/** Top hits read for feedback. */
const FEEDBACK_NOTES = 3;
/** Words added to the question. */
const FEEDBACK_TERMS = 8;

/**
 * The most distinctive words of the feedback notes: tf-idf (log tf), summed over the notes, so a
 * word several of them share weighs more. A word only one note of the vault holds is left out: it
 * would only raise a note that already ranks first.
 */
function feedbackTerms(paths: string[], terms: CorpusTerms): string[] {
  const weights = new Map<string, number>();
  for (const path of paths) {
    for (const [word, count] of terms.counts(path)) {
      const df = terms.df.get(word) ?? 0;
      if (df < 2) continue;
      const weight = (1 + Math.log(count)) * Math.log(terms.notes / df);
      weights.set(word, (weights.get(word) ?? 0) + weight);
    }
  }
  return [...weights.entries()]
    .filter(([, weight]) => weight > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, FEEDBACK_TERMS)
    .map(([word]) => word);
}

/**
 * `keyword-prf`: pseudo-relevance feedback. The question is searched, the most distinctive words
 * (tf-idf over the corpus) of its top three hits are added, and the question is searched again; the
 * question's own words count more (see `searchExpanded`).
 */
function prfStrategy(): Strategy {
  return {
    name: 'keyword-prf',
    description:
      "BM25, then again with the most distinctive words of the top three hits added (pseudo-relevance feedback), the question's own words counting more.",
    async prepare(context) {
      corpusTerms(context.corpus);
    },
    async rank(question, context) {
      const first = await keywordStrategy.rank(question, context);
      const added = feedbackTerms(first.filter((path) => context.corpus.byPath.has(path)).slice(0, FEEDBACK_NOTES), corpusTerms(context.corpus));
      return searchExpanded(question, added, context, first);
    },
  };
}

/** `keyword-prf` (see {@link prfStrategy}). */
export const keywordPrfStrategy: Strategy = prfStrategy();
