/** How a question in plain words becomes an FTS5 query: words as SQLite's tokenizer sees them, stopwords out. */

/**
 * Words that carry no meaning in a question. Content words that read like stopwords in a technical
 * memory (`up`, `down`, `out`, `over`, `done`, `get`, `new`, `us`, `won`) are deliberately kept.
 */
const STOPWORDS: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any anything are as at be because been
  before being below between both but by can could d did do does doing during each either else ever
  every few for from further had has have having he her here hers herself him himself his how i if
  in into is it its itself just let ll m me might more most must my myself neither no nor not of on
  once only or other our ours ourselves own please re s same shall she should so some something such
  t tell than that the their theirs them themselves then there these they this those through to too
  until ve very was we were what whatever when where whether which while who whom whose why will
  with would yet you your yours yourself yourselves`
    .split(/\s+/)
    .filter(Boolean),
);

/** English contractions, so that `didn't` is `did` + `not` and `don't` never becomes the name Don. */
const CONTRACTIONS: readonly [RegExp, string][] = [
  [/\b(?:won|can|shan)['’]t(?![\p{L}\p{N}])/gu, ' not '],
  [/n['’]t(?![\p{L}\p{N}])/gu, ' not '],
  [/(?<=[\p{L}\p{N}])['’](?:s|re|ve|ll|d|m)(?![\p{L}\p{N}])/gu, ' '],
];

/** A word as SQLite's unicode61 tokenizer sees one: letters and digits, with combining marks after them. */
const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{Mn}\p{Mc}]*/gu;
/** Emoji presentation selectors, which would otherwise glue themselves to a digit (keycaps: 1️⃣). */
const VARIATION_SELECTORS = /[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
const MAX_TERMS = 32;

/**
 * Tokenize a question as people and agents write it: lowercased words, stopwords dropped, punctuation
 * ignored. Words split where SQLite's tokenizer splits them (`state-of-the-art` is `state`, `art`),
 * English contractions are undone (`didn't` is `did not`, `Ada's` is `ada`), duplicates are dropped,
 * order is kept, and at most 32 terms are returned.
 * Emoji and symbols are ignored; words in any script are kept (a run of CJK characters is one word).
 */
export function tokenizeQuery(query: string): string[] {
  return scanQuery(query).terms;
}

/** How a question's terms become FTS5 phrases. */
export interface MatchOptions {
  /**
   * Make the last term a prefix when the question ends inside that word (as-you-type search in the
   * dashboard: `postgres migr` becomes `"postgres" OR "migr"*`). Default false: whole words only.
   */
  prefix?: boolean;
}

/**
 * One FTS5 phrase per term of the question, quoted so that nothing the user typed acts as an
 * operator; with `prefix`, the last one is a prefix phrase while the question ends inside it.
 */
export function termPhrases(query: string, options: MatchOptions = {}): string[] {
  const { terms, typing } = scanQuery(query);
  const last = options.prefix === true && typing ? terms.length - 1 : -1;
  return terms.map((term, i) => (i === last ? `"${term}"*` : `"${term}"`));
}

/**
 * The FTS5 MATCH expression for a question: its term phrases (see `termPhrases`) OR'd. Null when
 * the question has no terms.
 */
export function buildMatchExpression(query: string, options: MatchOptions = {}): string | null {
  const phrases = termPhrases(query, options);
  return phrases.length === 0 ? null : phrases.join(' OR ');
}

/** The terms of a question, and whether it ends inside its last term (no space or punctuation after it). */
function scanQuery(query: string): { terms: string[]; typing: boolean } {
  const text = foldText(query);
  const terms: string[] = [];
  const seen = new Set<string>();
  let lastWord: RegExpMatchArray | undefined;
  for (const match of text.matchAll(WORD)) {
    lastWord = match;
    const term = match[0];
    if (terms.length === MAX_TERMS || STOPWORDS.has(term) || seen.has(term)) continue;
    seen.add(term);
    terms.push(term);
  }
  const typing = lastWord !== undefined && lastWord.index! + lastWord[0].length === text.length && terms[terms.length - 1] === lastWord[0];
  return { terms, typing };
}

/** Text as the tokenizer reads it: NFC, lowercased, emoji selectors dropped, English contractions undone. */
function foldText(value: string): string {
  let text = typeof value === 'string' ? value.normalize('NFC').toLowerCase().replace(VARIATION_SELECTORS, '') : '';
  for (const [pattern, replacement] of CONTRACTIONS) text = text.replace(pattern, replacement);
  return text;
}

/**
 * Every word of a text as `tokenizeQuery` reads a question (lowercased, split where SQLite's tokenizer
 * splits, contractions undone), in order, stopwords and repeats kept, no limit: what a question's
 * terms are compared with, whole word for whole word, outside the index.
 */
export function textWords(text: string): string[] {
  return Array.from(foldText(text).matchAll(WORD), (match) => match[0]);
}

/**
 * Every word of a text where the tokenizer splits words, with where it is in `text` (`at`, `length`)
 * and the word as `tokenizeQuery` would spell it (NFC, lowercased): for finding a question's terms in
 * a passage without moving its offsets. Lazy: a huge note is never held as a list of its words.
 */
export function* wordSpans(text: string): Generator<{ word: string; at: number; length: number }> {
  for (const match of text.matchAll(WORD)) yield { word: match[0].normalize('NFC').toLowerCase(), at: match.index, length: match[0].length };
}

/** True when `word` (lowercased) is one of the words `tokenizeQuery` drops. */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}
