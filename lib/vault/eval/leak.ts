import { tokenizeQuery } from '../search/query';
import type { CorpusNote } from './types';

/** Shorter names cannot be avoided in a question ("A", "Q3"), so they never count as a leak. */
const MIN_LEAK_CHARS = 3;

/**
 * Text folded for matching whole words: NFKD with the combining marks removed (`Café` is `cafe`),
 * lowercased, everything that is not a letter or a digit turned into one space, trimmed.
 */
export function foldText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** True when the folded `needle` occurs in the folded `haystack` as whole words. */
export function containsWords(haystack: string, needle: string): boolean {
  const words = foldText(needle);
  return words !== '' && ` ${foldText(haystack)} `.includes(` ${words} `);
}

/** A title, alias or answer that a question could avoid: long enough, and not made only of stopwords. */
function counts(name: string): boolean {
  const folded = foldText(name);
  return folded.replace(/ /g, '').length >= MIN_LEAK_CHARS && tokenizeQuery(folded).length > 0;
}

/**
 * Why a question gives its answer away, or null: it contains one of its gold notes' titles
 * (`contains the title "…"`), an alias (`contains the alias "…"`) or a gold answer
 * (`contains the answer "…"`). Matching is on whole words of folded text (case, diacritics and
 * punctuation folded: "Postgres" leaks in "use postgres?", "art" does not leak in "start").
 * Names shorter than 3 characters or made only of stopwords never count.
 */
export function leakOf(question: string, gold: CorpusNote[] | { title: string; aliases: string[] }[], answers: string[]): string | null {
  const folded = ` ${foldText(question)} `;
  const inQuestion = (name: string) => counts(name) && folded.includes(` ${foldText(name)} `);
  for (const note of gold) {
    if (inQuestion(note.title)) return `contains the title "${note.title}"`;
    for (const alias of note.aliases) if (inQuestion(alias)) return `contains the alias "${alias}"`;
  }
  for (const answer of answers) if (inQuestion(answer)) return `contains the answer "${answer}"`;
  return null;
}
