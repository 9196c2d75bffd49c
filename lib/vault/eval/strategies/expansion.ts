import { isStopword, textWords, tokenizeQuery } from '../../search/query';
import type { EvalCorpus, StrategyContext } from '../types';
import { keywordStrategy } from './keyword';

/**
 * Weight of the expanded query's ranking against the question's own when the two are fused: the
 * question's words count more than words a strategy added, so an expansion reorders the original
 * hits less than it adds new ones below them.
 */
const EXPANSION_WEIGHT = 0.5;
/** Reciprocal-rank fusion's damping: a small one, since only the first few ranks matter at k = 5. */
const RRF_DAMPING = 10;
/** The search reads at most this many terms of a query (tokenizeQuery's cap). */
const MAX_QUERY_TERMS = 32;

/**
 * The question searched as asked and with `added` words, the two rankings fused by weighted
 * reciprocal rank (the search has no per-term weights, so this is how the question's own words count
 * more than the added ones). With nothing added it is the plain search. `searched` is the plain
 * search's ranking when the caller has it already.
 */
export async function searchExpanded(question: string, added: string[], context: StrategyContext, searched?: string[]): Promise<string[]> {
  const original = searched ?? (await keywordStrategy.rank(question, context));
  const fresh = addedTerms(question, added);
  if (fresh.length === 0) return original;
  const expanded = await keywordStrategy.rank(`${question} ${fresh.join(' ')}`, context);
  return fuseRankings([
    { paths: original, weight: 1 },
    { paths: expanded, weight: EXPANSION_WEIGHT },
  ]);
}

/** The words of `added` the question does not hold already, in order, deduplicated, stopwords dropped. */
function addedTerms(question: string, added: string[]): string[] {
  const own = new Set(tokenizeQuery(question));
  const room = Math.max(0, MAX_QUERY_TERMS - own.size);
  const fresh: string[] = [];
  for (const term of tokenizeQuery(added.join(' ').slice(0, 10_000))) {
    if (fresh.length === room) break;
    if (!own.has(term)) fresh.push(term);
  }
  return fresh;
}

/** Weighted reciprocal-rank fusion: each list adds weight / (damping + rank); ties by path. */
function fuseRankings(lists: { paths: string[]; weight: number }[]): string[] {
  const scores = new Map<string, number>();
  for (const { paths, weight } of lists) {
    paths.forEach((path, i) => {
      scores.set(path, (scores.get(path) ?? 0) + weight / (RRF_DAMPING + i + 1));
    });
  }
  return [...scores.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([path]) => path);
}

/** The words of a corpus that can be query terms, and how many notes hold each. */
export interface CorpusTerms {
  /** Notes holding each word. */
  df: Map<string, number>;
  /** How many notes the corpus has. */
  notes: number;
  /** A note's word counts (made on first use, then kept). */
  counts(path: string): Map<string, number>;
  /** Whether a word (or its plural) is in some note. */
  has(word: string): boolean;
}

const termsByCorpus = new WeakMap<EvalCorpus, CorpusTerms>();

/** Whether a word can be a query term: not a stopword, not a bare number, two characters or more. */
function isTermWord(word: string): boolean {
  return word.length >= 2 && !isStopword(word) && !/^\p{N}+$/u.test(word);
}

function countWords(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of textWords(text)) {
    if (isTermWord(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return counts;
}

/** The corpus's words and their note counts, built once per corpus (one pass over its text). */
export function corpusTerms(corpus: EvalCorpus): CorpusTerms {
  const built = termsByCorpus.get(corpus);
  if (built) return built;
  const df = new Map<string, number>();
  for (const note of corpus.notes) {
    for (const word of countWords(note.text).keys()) df.set(word, (df.get(word) ?? 0) + 1);
  }
  const perNote = new Map<string, Map<string, number>>();
  const terms: CorpusTerms = {
    df,
    notes: corpus.notes.length,
    counts(path) {
      let counts = perNote.get(path);
      if (!counts) perNote.set(path, (counts = countWords(corpus.byPath.get(path)?.text ?? '')));
      return counts;
    },
    has: (word) => df.has(word) || df.has(`${word}s`),
  };
  termsByCorpus.set(corpus, terms);
  return terms;
}
