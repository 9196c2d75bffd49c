import { textWords, tokenizeQuery } from '../../search/query';
import type { CorpusNote, EvalCorpus, Strategy } from '../types';
import { compareText } from './recent';

const wordSets = new WeakMap<EvalCorpus, Map<string, ReadonlySet<string>>>();

/** A note's distinct words (its title and whole text), lowercased as the question's terms are. */
function wordsOf(corpus: EvalCorpus, note: CorpusNote): ReadonlySet<string> {
  let byPath = wordSets.get(corpus);
  if (!byPath) {
    byPath = new Map();
    wordSets.set(corpus, byPath);
  }
  let words = byPath.get(note.path);
  if (!words) {
    words = new Set(textWords(`${note.title}\n${note.text}`));
    byPath.set(note.path, words);
  }
  return words;
}

/**
 * VAULT-FORMAT's `grep`: notes ranked by how many distinct non-stopword terms of the question they
 * contain (whole words, case-folded, the search's tokenizer and stopwords; no stemming), ties by
 * path; notes with none of them are left out, and a question with no terms ranks nothing.
 */
export function grepRank(question: string, corpus: EvalCorpus): string[] {
  const terms = tokenizeQuery(question);
  if (terms.length === 0) return [];
  const scored: { path: string; count: number }[] = [];
  for (const note of corpus.notes) {
    const words = wordsOf(corpus, note);
    const count = terms.reduce((n, term) => n + (words.has(term) ? 1 : 0), 0);
    if (count > 0) scored.push({ path: note.path, count });
  }
  return scored.sort((a, b) => b.count - a.count || compareText(a.path, b.path)).map((s) => s.path);
}

/** Literal word matching, as `grep -w` over the vault would do it. */
export const grepStrategy: Strategy = {
  name: 'grep',
  description: 'Notes ranked by how many distinct question words they contain (whole words, no stemming).',
  rank: async (question, { corpus }) => grepRank(question, corpus),
};
