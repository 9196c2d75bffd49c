import { tokenizeQuery } from '../search/query';

/**
 * Words that say what an agent is about to do but not what about: "fix", "update", "look up",
 * "go ahead", "the notes". Two tasks that share only these are not about the same thing, and a
 * project named by one of them ("Go") needs more than the word to be meant.
 */
const GENERIC_WORDS: ReadonlySet<string> = new Set(
  `add again ahead all also anything back begin best better big bit can change check clean continue
  create current day do done down edit else ensure every file find finish first fix get give go going
  good help here how improve keep know last let like list look lot make many maybe more move much need
  new next note now old one open out over please project put quick quickly read really remove run see
  set should show small some start stop stuff sure take task thing think time today todo try two up
  update use want way week well work write yes`
    .split(/\s+/)
    .filter(Boolean)
    .map(stem),
);

/** A light stem so that "tests", "testing" and "tested" meet "test", and "fixes" and "notes" meet "fix" and "note". */
export function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 4 && /(?:[sxz]|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The stemmed terms of a text as search sees them (lowercase, stopwords out), one-letter words left out. */
export function termsOf(text: string): Set<string> {
  return new Set(
    tokenizeQuery(text)
      .filter((t) => t.length > 1)
      .map(stem),
  );
}

/**
 * The terms that say what a text is about: {@link termsOf} without the generic ones ("fix",
 * "update", "look", "up"). When every term is generic, all of them, so a task of generic words
 * still has terms.
 */
export function informativeTerms(text: string): Set<string> {
  const all = termsOf(text);
  const informative = [...all].filter((t) => !GENERIC_WORDS.has(t));
  return informative.length > 0 ? new Set(informative) : all;
}

/**
 * How much a task's terms and another text's share. `enough` says two tasks are about the same
 * thing: at least half of the smaller set, and at least two terms when both sets have two or more
 * (at most three are ever required). So "look up squats workout weight" and "log plant growth
 * weight" (one shared term of three) are unrelated; "Fix the flaky webhook tests" and "Fix the
 * flaky invoice test" (flaky and test) are related. `covers` says a note holds enough of the task:
 * half its terms, at most three.
 */
export function overlap(task: ReadonlySet<string>, other: ReadonlySet<string>): { shared: string[]; share: number; enough: boolean; covers: boolean } {
  const shared = [...task].filter((t) => other.has(t));
  const smaller = Math.min(task.size, other.size);
  const covers = task.size > 0 && shared.length >= Math.min(3, Math.ceil(task.size / 2));
  if (smaller === 0) return { shared, share: 0, enough: false, covers };
  const needed = Math.min(3, Math.max(Math.ceil(smaller / 2), Math.min(2, smaller)));
  return { shared, share: shared.length / smaller, enough: shared.length >= needed, covers };
}

/** The words of a text by their stem, as first written, to show people words rather than stems. */
export function wordsByStem(text: string): Map<string, string> {
  const words = new Map<string, string>();
  for (const term of tokenizeQuery(text)) if (!words.has(stem(term))) words.set(stem(term), term);
  return words;
}

/** One word of a text as written: its letters and digits, where it starts, and whether a sentence starts with it. */
export interface TextWord {
  text: string;
  lower: string;
  index: number;
  sentenceStart: boolean;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{Mn}\p{Mc}]*/gu;

/** The words of a text in order, each with its position and whether it opens a sentence. */
export function wordsOf(text: string): TextWord[] {
  const words: TextWord[] = [];
  const normal = text.normalize('NFC');
  let last = 0;
  for (const match of normal.matchAll(WORD)) {
    const index = match.index ?? 0;
    const between = normal.slice(Math.max(last, index - 20), index);
    const sentenceStart = words.length === 0 || /[.!?:;]\s*$/.test(between);
    words.push({ text: match[0], lower: match[0].toLowerCase(), index, sentenceStart });
    last = index + match[0].length;
  }
  return words;
}

/**
 * Whether a name is too common to mean a project on its own: a single word that is generic
 * ("Go", "Notes"), a stopword, or one or two characters long. Names of two or more words are
 * specific enough.
 */
export function isWeakName(name: string): boolean {
  const words = wordsOf(name);
  if (words.length !== 1) return words.length === 0;
  const word = words[0].lower;
  return word.length <= 2 || tokenizeQuery(word).length === 0 || GENERIC_WORDS.has(stem(word));
}
