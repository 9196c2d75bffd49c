import type { SearchHit } from '../../search/search-index';
import { isStopword, textWords } from '../../search/query';
import type { CorpusNote, EvalCorpus, Strategy } from '../types';
import { poolSize, searchCorpus } from './keyword';
import { compareText } from './recent';

/**
 * Words and phrases of a question that say which type of note answers it (lowercased words, as
 * `textWords` reads them). A question may ask for several types ("who decided…").
 */
const TYPE_CUES: readonly { types: readonly string[]; cues: readonly string[] }[] = [
  { types: ['decision'], cues: ['decide', 'decided', 'decides', 'deciding', 'decision', 'decisions', 'why', 'chose', 'choose', 'chosen', 'choice'] },
  { types: ['person', 'project'], cues: ['who', 'whom', 'whose', 'owner', 'owners', 'owns', 'owned', 'person', 'people'] },
  { types: ['skill'], cues: ['skill', 'skills', 'procedure', 'procedures', 'how do i', 'how do we', 'how to', 'how should i'] },
  { types: ['session'], cues: ['session', 'sessions', 'last worked', 'worked on', 'yesterday'] },
];

/** What a question says about the front matter of the notes that answer it. */
export interface QuestionFields {
  /** Lucid types the question asks for, only those the corpus has notes of (sorted). */
  types: string[];
  /** Paths of the project notes the question names by title or alias (sorted). */
  projects: string[];
}

/** True when `phrase` (words) occurs in `words` as whole consecutive words. */
function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0 || phrase.length > words.length) return false;
  for (let i = 0; i + phrase.length <= words.length; i++) if (phrase.every((word, j) => words[i + j] === word)) return true;
  return false;
}

/** A name a question can use for a project: at least 3 characters, not made only of stopwords. */
function nameWords(name: string): string[] | null {
  const words = textWords(name);
  if (name.trim().length < 3 || words.every(isStopword)) return null;
  return words;
}

/**
 * Reads a question's front-matter cues: the types its words ask for (decided/decision/why →
 * decision; who/owner/person → person and project; skill/procedure/how do I → skill;
 * session/last worked/yesterday → session), kept only when the corpus has notes of that type, and
 * the projects it names by their note's title or one of its aliases (whole words, case-folded).
 */
export function readQuestionFields(question: string, corpus: EvalCorpus): QuestionFields {
  const words = textWords(question);
  const present = new Set(corpus.notes.map((note) => note.type));
  const types = new Set<string>();
  for (const { types: asked, cues } of TYPE_CUES) {
    if (cues.some((cue) => containsPhrase(words, textWords(cue)))) for (const type of asked) if (present.has(type)) types.add(type);
  }
  const projects = corpus.notes
    .filter((note) => note.type === 'project')
    .filter((note) =>
      [note.title, ...note.aliases].some((name) => {
        const phrase = nameWords(name);
        return phrase !== null && containsPhrase(words, phrase);
      }),
    )
    .map((note) => note.path);
  return { types: [...types].sort(compareText), projects: projects.sort(compareText) };
}

/** A decision that a later one replaced: status `superseded`, or a `superseded_by` link. */
export function isSuperseded(note: CorpusNote): boolean {
  if (note.type !== 'decision') return false;
  const { status, superseded_by: by } = note.frontmatter;
  const hasLink = (value: unknown): boolean => (Array.isArray(value) ? value.some(hasLink) : typeof value === 'string' && value.trim() !== '');
  return status === 'superseded' || hasLink(by);
}

/** The notes of the named projects: each project note, what it links to and what links to it. */
function projectNotes(corpus: EvalCorpus, projects: readonly string[]): Set<string> {
  const notes = new Set<string>();
  for (const path of projects) {
    const note = corpus.byPath.get(path);
    if (!note) continue;
    for (const p of [path, ...note.links, ...note.backlinks]) notes.add(p);
  }
  return notes;
}

/**
 * Orders search hits by the question's front-matter cues: notes of a named project first, then
 * within those tiers notes of the asked-for types, then current notes before superseded decisions,
 * then by search score and path. Without cues it is search's order with superseded decisions lower.
 */
export function orderByFields(corpus: EvalCorpus, hits: readonly Pick<SearchHit, 'path' | 'score'>[], fields: QuestionFields): string[] {
  const inProject = projectNotes(corpus, fields.projects);
  const types = new Set(fields.types);
  const best = new Map<string, number>();
  for (const hit of hits) best.set(hit.path, Math.max(hit.score, best.get(hit.path) ?? Number.NEGATIVE_INFINITY));
  const key = (path: string): number[] => {
    const note = corpus.byPath.get(path);
    return [inProject.has(path) ? 1 : 0, note && types.has(note.type ?? '') ? 1 : 0, note && isSuperseded(note) ? 0 : 1];
  };
  const keys = new Map([...best.keys()].map((path) => [path, key(path)]));
  return [...best.keys()].sort((a, b) => {
    const ka = keys.get(a) as number[];
    const kb = keys.get(b) as number[];
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return kb[i] - ka[i];
    return (best.get(b) as number) - (best.get(a) as number) || compareText(a, b);
  });
}

/**
 * Search with front-matter filters read from the question (see `readQuestionFields` and
 * `orderByFields`): the asked-for types and the named projects are searched on their own as well, so
 * a decision that plain search ranks below the pool still comes in.
 */
export const keywordFieldsStrategy: Strategy = {
  name: 'keyword-fields',
  description: 'Search ordered by front matter the question implies: its type words, a project it names, superseded decisions last.',
  rank: async (question, context) => {
    const limit = poolSize(context.k);
    const fields = readQuestionFields(question, context.corpus);
    const hits = await searchCorpus(question, context, limit);
    for (const type of fields.types) hits.push(...(await searchCorpus(question, context, limit, { type })));
    for (const project of fields.projects) hits.push(...(await searchCorpus(question, context, limit, { project })));
    return orderByFields(context.corpus, hits, fields);
  },
};
