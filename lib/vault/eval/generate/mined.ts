import { stem } from '../../agents/task-terms';
import { isExternalTarget, type ParsedLink } from '../../notes/links';
import { foldText } from '../leak';
import type { Candidate } from './candidate';
import { cleanHeading, headingQuestions, isCodeHeading, plainer, unique } from './phrasing';
import type { Thesaurus } from '../thesaurus';
import type { GenerateSource, SourceNote } from './source';
import { trimEndOf, WHITESPACE } from '../../text';
import { dropSpaceBeforePunctuation, plainText } from '../plain-text';
import { clip, isContentWord, stemsOf, wordsIn } from './words';

/** A heading that several notes share ("Context", "Links") is a template's, and names no one note. */
const SHARED_HEADING_NOTES = 3;
/** A heading of one word needs that word to be this rare (in notes) to mean one place. */
const RARE_WORD_NOTES = 3;
/** A heading of one word is generic when the word heads sections in this many notes or more ("Setup", "Examples"). */
const GENERIC_HEADING_NOTES = 2;
/** A heading whose words are at least this share of its note's title words restates the title. */
const RESTATES_TITLE = 0.5;

/** True when the thesaurus knows a word (has synonyms for it): an everyday word, not a name or a term. */
function isEverydayWord(thesaurus: Thesaurus, word: string): boolean {
  try {
    return thesaurus.synonyms(word).length > 0;
  } catch {
    return false;
  }
}

/** In how many notes' headings each word stem occurs. */
function headingWordNotes(notes: SourceNote[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const note of notes) {
    const stems = new Set(note.headings().flatMap((h) => wordsIn(cleanHeading(h.text)).map((w) => stem(w.toLowerCase()))));
    for (const s of stems) out.set(s, (out.get(s) ?? 0) + 1);
  }
  return out;
}

/**
 * Questions from headings, in their question form ("Installing the plugin" → "How do I install
 * the plugin?"). Gold: the note holding the heading. Left out: headings several notes share,
 * headings that say too little (one word common in the vault, or heading sections of other notes
 * too, as "Setup" or "Examples" do), code, numbers and punctuation more than words, and long ones
 * (sentences). With a thesaurus, a heading of one everyday word (one the thesaurus has synonyms
 * for, as "Setup" or "Purpose") is left out too: only a name or a term ("XOR") says where to look.
 * A heading that restates its note's title is asked only in words that do not give the title
 * away, never reworded with a thesaurus (its synonyms would ask about something else).
 */
export function headingCandidates(source: GenerateSource, notes: SourceNote[], thesaurus: Thesaurus | null = null): Candidate[] {
  const shared = new Map<string, number>();
  for (const note of notes) {
    for (const key of new Set(note.headings().map((h) => foldText(cleanHeading(h.text))))) shared.set(key, (shared.get(key) ?? 0) + 1);
  }
  // Over every note of the source (typed ones too): a word heading sections anywhere is generic.
  const headingWords = headingWordNotes(source.notes);
  const out: Candidate[] = [];
  for (const note of notes) {
    const seen = new Set<string>();
    for (const heading of note.headings()) {
      const text = cleanHeading(heading.text);
      const key = foldText(text);
      if (key === '' || seen.has(key)) continue;
      seen.add(key);
      if ((shared.get(key) ?? 0) >= SHARED_HEADING_NOTES || isCodeHeading(heading.text)) continue;
      const words = wordsIn(text);
      const content = words.filter(isContentWord);
      if (words.length > 12 || content.length === 0) continue;
      if (content.length === 1) {
        const word = content[0].toLowerCase();
        if ((source.df.get(word) ?? 0) > RARE_WORD_NOTES || (headingWords.get(stem(word)) ?? 0) >= GENERIC_HEADING_NOTES) continue;
        if (thesaurus && isEverydayWord(thesaurus, word)) continue;
      }
      const phrasings = headingQuestions(heading.text);
      if (phrasings.length === 0) continue;
      const titleStems = stemsOf([note.title, ...note.aliases]);
      const restates = content.filter((w) => titleStems.has(stem(w.toLowerCase()))).length >= RESTATES_TITLE * content.length;
      out.push({ template: 'heading', kind: 'mined', phrasings, gold: [note.path], answers: [], ...(restates ? { reword: false } : {}) });
    }
  }
  return out;
}

/** Where the sentence holding `[start, end)` begins and ends within its line of `body`. */
function sentenceAround(body: string, start: number, end: number): { from: number; to: number } {
  const lineStart = body.lastIndexOf('\n', start - 1) + 1;
  let lineEnd = body.indexOf('\n', end);
  if (lineEnd < 0) lineEnd = body.length;
  let from = lineStart;
  const before = body.slice(lineStart, start);
  const stop = Math.max(before.lastIndexOf('. '), before.lastIndexOf('! '), before.lastIndexOf('? '));
  if (stop >= 0) from = lineStart + stop + 2;
  const after = body.slice(end, lineEnd);
  const next = after.search(/[.!?](?:\s|$)/);
  const to = next >= 0 ? end + next + 1 : lineEnd;
  return { from, to };
}

/**
 * Questions from the text around links: the sentence holding `[[X]]`, with the link taken out,
 * becomes "What does this refer to: …?", whose gold is X. Embeds, links to the note itself, to
 * files that are not notes of the source, links in tables and sentences of fewer than three
 * content words are left out.
 */
export function linkContextCandidates(source: GenerateSource, notes: SourceNote[]): Candidate[] {
  const out: Candidate[] = [];
  for (const note of notes) {
    for (const located of placedLinks(note)) {
      const { link } = located;
      if (link.embed || link.target === '' || isExternalTarget(link.target)) continue;
      const target = source.resolve(link.target, note.path);
      if (!target || target.path === note.path) continue;
      const { from, to } = sentenceAround(note.body, located.start, located.end);
      const raw = note.body.slice(from, to);
      if (/^\s*\|/.test(raw) || raw.includes('```')) continue;
      const context = clip(
        trimEndOf(
          dropSpaceBeforePunctuation(
            plainText(`${note.body.slice(from, located.start)} … ${note.body.slice(located.end, to)}`).replace(/^[\s>*+#-]+(?:\[.\]\s+)?/, ''),
          ),
          `${WHITESPACE},;:.!?—–-`,
        ),
        200,
      );
      const content = wordsIn(context.replace('…', ' ')).filter(isContentWord);
      if (content.length < 3) continue;
      out.push({
        template: 'link-context',
        kind: 'mined',
        phrasings: unique([plainer(`What does this refer to: ${context}?`), `What does this refer to: ${context}?`, `Which note fits the gap in: ${context}?`]),
        gold: [target.path],
        answers: [],
      });
    }
  }
  return out;
}

/**
 * The body links of a note with where each is written, from the links the reader already parsed
 * (their line and raw text), so the body is not parsed again.
 */
function placedLinks(note: SourceNote): { start: number; end: number; link: ParsedLink }[] {
  const lineStarts = [0];
  for (let i = note.body.indexOf('\n'); i >= 0; i = note.body.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const out: { start: number; end: number; link: ParsedLink }[] = [];
  const searchFrom = new Map<number, number>();
  for (const link of note.note.links) {
    if (link.kind === 'frontmatter' || link.line < 1 || link.line > lineStarts.length) continue;
    const lineStart = lineStarts[link.line - 1];
    const lineEnd = link.line < lineStarts.length ? lineStarts[link.line] - 1 : note.body.length;
    const at = note.body.indexOf(link.raw, searchFrom.get(link.line) ?? lineStart);
    if (at < 0 || at + link.raw.length > lineEnd) continue;
    searchFrom.set(link.line, at + link.raw.length);
    out.push({ start: at, end: at + link.raw.length, link });
  }
  return out;
}

/** Mined questions from the notes that are none of Lucid's types (the thesaurus judges one-word headings). */
export function minedCandidates(source: GenerateSource, thesaurus: Thesaurus | null = null): Candidate[] {
  const untyped = source.notes.filter((n) => n.type === null);
  return [...headingCandidates(source, untyped, thesaurus), ...linkContextCandidates(source, untyped)];
}
