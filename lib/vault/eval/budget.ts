import { tokenizeQuery, wordSpans } from '../search/query';
import { BUDGET_TOKENS, CHARS_PER_TOKEN, type CorpusNote, type EvalCorpus, type RetrievedNote } from './types';

/** Tokens of a text at CHARS_PER_TOKEN characters a token, rounded up. */
function countTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** `text` cut to at most `max` UTF-16 units, never in the middle of a surrogate pair. */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max);
  const code = text.charCodeAt(end - 1);
  if (end > 0 && code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

type Hit = { word: string; at: number; length: number };

/** Above this many characters a note's words are indexed once, not read again for every question. */
const INDEX_FROM_CHARS = 64 * 1024;
/** The words of long notes, by word: kept as long as the corpus's note is. */
const wordIndexes = new WeakMap<CorpusNote, Map<string, Hit[]>>();

/** Where the question's terms are in the note's text, in text order. */
function hitsOf(note: CorpusNote, terms: ReadonlySet<string>): Hit[] {
  if (note.text.length < INDEX_FROM_CHARS) {
    const hits: Hit[] = [];
    for (const span of wordSpans(note.text)) if (terms.has(span.word)) hits.push(span);
    return hits;
  }
  let index = wordIndexes.get(note);
  if (!index) {
    index = new Map();
    for (const span of wordSpans(note.text)) {
      const list = index.get(span.word);
      if (list) list.push(span);
      else index.set(span.word, [span]);
    }
    wordIndexes.set(note, index);
  }
  return [...terms].flatMap((term) => index.get(term) ?? []).sort((x, y) => x.at - y.at);
}

/**
 * Where, in a note's text, a window of `size` characters holds the most distinct question terms (then the
 * most occurrences), the earliest such window winning; windows start at a term's line start, or at
 * the term itself when its line starts too far back, so a passage reads from the beginning of a line.
 */
function bestWindowStart(note: CorpusNote, terms: ReadonlySet<string>, size: number): number {
  const { text } = note;
  if (terms.size === 0 || text.length <= size) return 0;
  const hits = hitsOf(note, terms);
  if (hits.length === 0) return 0;
  let best = 0;
  let bestDistinct = -1;
  let bestCount = -1;
  const starts = new Set<number>([0]);
  // Hits come in text order, so line starts are found walking forward once.
  let lineStart = 0;
  let nextBreak = text.indexOf('\n');
  for (const hit of hits) {
    while (nextBreak !== -1 && nextBreak < hit.at) {
      lineStart = nextBreak + 1;
      nextBreak = text.indexOf('\n', lineStart);
    }
    starts.add(hit.at - lineStart <= size / 4 ? lineStart : hit.at);
  }
  // Two pointers over the hits: [lo, hi) are the hits inside the window starting at `start`.
  const inside = new Map<string, number>();
  let lo = 0;
  let hi = 0;
  for (const start of [...starts].sort((a, b) => a - b)) {
    while (hi < hits.length && hits[hi].at + hits[hi].length <= start + size) {
      inside.set(hits[hi].word, (inside.get(hits[hi].word) ?? 0) + 1);
      hi += 1;
    }
    while (lo < hi && hits[lo].at < start) {
      const left = (inside.get(hits[lo].word) ?? 1) - 1;
      if (left === 0) inside.delete(hits[lo].word);
      else inside.set(hits[lo].word, left);
      lo += 1;
    }
    const count = hi - lo;
    if (inside.size > bestDistinct || (inside.size === bestDistinct && count > bestCount)) {
      best = start;
      bestDistinct = inside.size;
      bestCount = count;
    }
  }
  return best;
}

/**
 * The k and budget cut every strategy goes through: the first k distinct ranked paths that are in
 * the corpus, each given an equal share of the budget (budgetTokens / k tokens); a note's passage is
 * its title line and the window of its text holding the most question terms, within its share.
 * Never more than k notes nor more than `budgetTokens` tokens in total. Deterministic.
 */
export function cutToBudget(ranked: string[], question: string, corpus: EvalCorpus, k: number, budgetTokens: number = BUDGET_TOKENS): RetrievedNote[] {
  const limit = Math.max(0, Math.floor(k));
  if (limit === 0) return [];
  const shareChars = Math.floor(Math.max(0, budgetTokens) / limit) * CHARS_PER_TOKEN;
  const terms = new Set(tokenizeQuery(question));
  const out: RetrievedNote[] = [];
  const taken = new Set<string>();
  for (const path of ranked) {
    if (out.length === limit) break;
    const note = corpus.byPath.get(path);
    if (!note || taken.has(path)) continue;
    taken.add(path);
    const titleLine = cutAt(`# ${note.title}\n`, shareChars);
    const room = shareChars - titleLine.length;
    const start = room > 0 ? bestWindowStart(note, terms, room) : 0;
    const passage = titleLine + (room > 0 ? cutAt(note.text.slice(start), room) : '');
    out.push({ path, passage, tokens: countTokens(passage) });
  }
  return out;
}
