// A snippet for a long body, cut in JavaScript. FTS5's snippet() scores every window around every
// match, which grows with the square of the matches: on a 3 MB note whose words recur on every line,
// one search took minutes. Below LONG_BODY_CHARS search keeps snippet() (stems and all); above it,
// this: the first whole-word match of a question term (a word that begins with the term less a plain ending, for stems), with the
// words around it.

/** Bodies longer than this (in characters) get `longBodySnippet` instead of FTS5's snippet(). */
export const LONG_BODY_CHARS = 64 * 1024;

const isWordChar = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}]/u.test(ch);

/**
 * About `tokens` words of `body` around the first place a word starts with one of `terms`
 * (lower-case), each such word wrapped in `\u0002`/`\u0003` as FTS5's snippet() marks matches, with
 * `…` where text was cut; the body's first words when no term occurs. Linear in the body's length.
 */
export function longBodySnippet(body: string, terms: string[], tokens: number): string {
  const lower = body.toLowerCase();
  const wanted = terms.map(stemKey).filter((t) => t !== '');
  let first = -1;
  for (const term of wanted) {
    let at = lower.indexOf(term);
    while (at !== -1 && isWordChar(lower[at - 1])) at = lower.indexOf(term, at + 1);
    if (at !== -1 && (first === -1 || at < first)) first = at;
  }
  const words = wordsAround(body, first === -1 ? 0 : first, tokens);
  const marked = words.text
    .split(/(\s+)/)
    .map((part) => (wanted.some((t) => part.toLowerCase().startsWith(t)) ? `\u0002${part}\u0003` : part))
    .join('');
  return `${words.cutStart ? '…' : ''}${marked}${words.cutEnd ? '…' : ''}`;
}

/** A term without a plain English ending, so `tasks` finds `task` as the index's stemmer would. */
function stemKey(term: string): string {
  const lower = term.toLowerCase();
  for (const ending of ['ing', 'ed', 'es', 's']) {
    if (lower.endsWith(ending) && lower.length - ending.length >= 3) return lower.slice(0, -ending.length);
  }
  return lower;
}

/** The text of about `tokens` words starting up to a third of them before `at` (the rest after it). */
function wordsAround(body: string, at: number, tokens: number): { text: string; cutStart: boolean; cutEnd: boolean } {
  let start = at;
  let before = 0;
  while (before < Math.floor(tokens / 3) && start > 0) {
    start -= 1;
    while (start > 0 && /\s/.test(body[start])) start -= 1;
    while (start > 0 && !/\s/.test(body[start - 1])) start -= 1;
    before += 1;
  }
  let end = at;
  for (let after = 0; after < tokens - before && end < body.length; after += 1) {
    while (end < body.length && /\s/.test(body[end])) end += 1;
    while (end < body.length && !/\s/.test(body[end])) end += 1;
  }
  return { text: body.slice(start, end), cutStart: start > 0, cutEnd: end < body.length };
}
