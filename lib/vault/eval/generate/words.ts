import { stem } from '../../agents/task-terms';
import { isStopword } from '../../search/query';
import { trimEndOf, WHITESPACE } from '../../text';

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{Mn}\p{Mc}'’-]*/gu;

/**
 * Words that say nothing about what a note is about, even when they are rare in a vault: they
 * would make a question vague ("about using, also and thing").
 */
const VAGUE = new Set(
  `also always another around back being best better came come could days does done each even ever
  every example first found gets given going good great here however know later like little made make
  many maybe much must need never next note notes often ones only other others over really same seem
  should since some still such sure take than that then there these thing things though thus today
  toward under used uses using happen happens happened mean means meant become becomes keep keeps kept said says seems looks tried goes went very want well what when where which while with within without would
  yes yet`.split(/\s+/),
);

/** The words of a text in order, as written. */
export function wordsIn(text: string): string[] {
  return [...text.normalize('NFC').matchAll(WORD)].map((m) => trimEndOf(m[0].replace(/['’]s$/i, ''), "'’-"));
}

/** In how many of `texts` each lowercase word occurs. */
export function documentFrequencies(texts: string[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const text of texts) {
    for (const word of new Set(wordsIn(text).map((w) => w.toLowerCase()))) df.set(word, (df.get(word) ?? 0) + 1);
  }
  return df;
}

/** A word worth asking about: three letters or more, mostly letters, not a stopword nor vague. */
export function isContentWord(word: string): boolean {
  const lower = word.toLowerCase();
  if (lower.length < 3 || !/^\p{L}/u.test(lower) || /\d{3,}/.test(lower)) return false;
  return !isStopword(lower) && !VAGUE.has(lower);
}

/** The stems of the words of some names (titles, aliases), to keep their words out of a question. */
export function stemsOf(names: string[]): Set<string> {
  const out = new Set<string>();
  for (const name of names) for (const word of wordsIn(name)) out.add(stem(word.toLowerCase()));
  return out;
}

/**
 * The `count` words of `text` that best say what it is about (frequent in it, rare in the vault),
 * lowercase, in the order they first occur; words whose stem is in `exclude` are left out.
 */
export function distinctiveTerms(text: string, frequency: { df: Map<string, number>; total: number }, exclude: Set<string>, count = 3): string[] {
  const tf = new Map<string, { n: number; first: number }>();
  const words = wordsIn(text);
  words.forEach((word, index) => {
    const lower = word.toLowerCase();
    if (!isContentWord(lower) || exclude.has(stem(lower))) return;
    const entry = tf.get(lower);
    if (entry) entry.n += 1;
    else tf.set(lower, { n: 1, first: index });
  });
  const seenStems = new Set<string>();
  const scored = [...tf.entries()]
    .map(([word, { n, first }]) => ({ word, first, score: (1 + Math.log(n)) * Math.log((frequency.total + 1) / ((frequency.df.get(word) ?? 0) + 0.5)) }))
    .sort((a, b) => b.score - a.score || a.first - b.first);
  const picked: typeof scored = [];
  for (const entry of scored) {
    if (picked.length === count) break;
    const s = stem(entry.word);
    if (seenStems.has(s)) continue;
    seenStems.add(s);
    picked.push(entry);
  }
  return picked.sort((a, b) => a.first - b.first).map((p) => p.word);
}

/** `a`, `a and b`, `a, b and c`. */
export function joinList(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** One line, whitespace collapsed, cut at a word boundary to at most `max` characters. */
export function clip(text: string, max = 160): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  const cut = line.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${trimEndOf(space > max / 2 ? cut.slice(0, space) : cut, `${WHITESPACE},;:—–-`)}…`;
}
