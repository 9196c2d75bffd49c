import { linkTarget } from '../../notes/note-formats';
import { isStopword, textWords } from '../../search/query';
import type { SearchHit } from '../../search/search-index';
import type { CorpusNote, EvalCorpus, Strategy } from '../types';
import { termCoverage } from './coverage';
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
/** Words asking for the newest of the notes that match. */
const RECENCY_CUES: readonly string[] = ['last', 'latest', 'lately', 'recent', 'recently', 'newest', 'yesterday'];
/** Front-matter fields that date a note, the most telling first (a session's end, a decision's date). */
const DATE_FIELDS: readonly string[] = ['ended', 'started', 'date', 'updated', 'created'];

/** What a question says about the front matter of the notes that answer it. */
export interface QuestionFields {
  /** Lucid types the question asks for, only those the corpus has notes of (sorted). */
  types: string[];
  /** Paths of the project notes the question names by title or alias (sorted). */
  projects: string[];
  /** True when it asks for the newest match ("last", "latest", "yesterday"). */
  recent: boolean;
  /** The question without its cue words: what the notes must be about. */
  topic: string;
}

/** Where `phrase` (words) starts in `words` as whole consecutive words, every place. */
function phraseAt(words: readonly string[], phrase: readonly string[]): number[] {
  const at: number[] = [];
  if (phrase.length === 0) return at;
  for (let i = 0; i + phrase.length <= words.length; i++) if (phrase.every((word, j) => words[i + j] === word)) at.push(i);
  return at;
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
 * session/last worked/yesterday → session), kept only when the corpus has notes of that type; the
 * projects it names by their note's title or one of its aliases (whole words, case-folded); whether
 * it asks for the newest match; and its topic, the words left when the cues are taken out.
 */
export function readQuestionFields(question: string, corpus: EvalCorpus): QuestionFields {
  const words = textWords(question);
  const cueWords = new Set<number>();
  const mark = (phrase: string[]) => {
    const at = phraseAt(words, phrase);
    for (const i of at) for (let j = 0; j < phrase.length; j++) cueWords.add(i + j);
    return at.length > 0;
  };
  const present = new Set(corpus.notes.map((note) => note.type));
  const types = new Set<string>();
  for (const { types: asked, cues } of TYPE_CUES) {
    const found = cues.map((cue) => mark(textWords(cue))).some(Boolean);
    if (found) for (const type of asked) if (present.has(type)) types.add(type);
  }
  const recent = RECENCY_CUES.map((cue) => mark([cue])).some(Boolean);
  const projects = corpus.notes
    .filter((note) => note.type === 'project')
    .filter((note) =>
      [note.title, ...note.aliases].some((name) => {
        const phrase = nameWords(name);
        return phrase !== null && phraseAt(words, phrase).length > 0;
      }),
    )
    .map((note) => note.path);
  return {
    types: [...types].sort(compareText),
    projects: projects.sort(compareText),
    recent,
    topic: words.filter((_, i) => !cueWords.has(i)).join(' '),
  };
}

/** A decision that a later one replaced: status `superseded`, or a `superseded_by` link. */
export function isSuperseded(note: CorpusNote): boolean {
  if (note.type !== 'decision') return false;
  const { status, superseded_by: by } = note.frontmatter;
  return status === 'superseded' || linksOf(by).length > 0;
}

/** The link targets of a front-matter value (one link or a list of them), `.md` added. */
function linksOf(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values.map(linkTarget).filter((target): target is string => target !== null);
}

/** True when a link target names `path` (its full path, or its file name as Obsidian resolves short links). */
function names(target: string, path: string): boolean {
  return path === target || path.endsWith(`/${target}`);
}

/** The current decisions that replaced a superseded one: its `superseded_by`, and those whose `replaces` names it. */
function replacementsOf(corpus: EvalCorpus, note: CorpusNote): string[] {
  const by = linksOf(note.frontmatter.superseded_by);
  const out = note.links.filter((path) => by.some((target) => names(target, path)));
  for (const path of note.backlinks) {
    const other = corpus.byPath.get(path);
    if (other?.type === 'decision' && linksOf(other.frontmatter.replaces).some((target) => names(target, note.path))) out.push(path);
  }
  return out.filter((path) => {
    const other = corpus.byPath.get(path);
    return other !== undefined && !isSuperseded(other);
  });
}

/** When a note happened, in ms: its first date field that parses, else its last commit. */
function timeOf(note: CorpusNote): number {
  for (const field of DATE_FIELDS) {
    const value = note.frontmatter[field];
    const time = value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : Number.NaN;
    if (Number.isFinite(time)) return time;
  }
  return note.committedAt * 1000;
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
 * Orders search hits by the question's front-matter cues: notes of the asked-for types first, within
 * them (and within the rest) notes of a named project first, then by search score and path. When
 * the question asks for the newest match, the notes of the first group that hold most of its topic
 * come first, newest first (by their date fields, else their last commit). Last, a superseded
 * decision moves to just below the current decision that replaced it, when that one ranks lower.
 */
export function orderByFields(corpus: EvalCorpus, hits: readonly Pick<SearchHit, 'path' | 'score'>[], fields: QuestionFields): string[] {
  const inProject = projectNotes(corpus, fields.projects);
  const types = new Set(fields.types);
  const best = new Map<string, number>();
  for (const hit of hits) best.set(hit.path, Math.max(hit.score, best.get(hit.path) ?? Number.NEGATIVE_INFINITY));
  const tier = (path: string) => (types.has(corpus.byPath.get(path)?.type ?? '') ? 2 : 0) + (inProject.has(path) ? 1 : 0);
  let order = [...best.keys()].sort((a, b) => tier(b) - tier(a) || (best.get(b) as number) - (best.get(a) as number) || compareText(a, b));
  if (fields.recent && order.length > 0) order = newestFirst(corpus, order, tier, fields.topic);
  return supersededBelow(corpus, order);
}

/** The notes of the first tier holding the most of the topic, newest first, ahead of the rest (kept in order). */
function newestFirst(corpus: EvalCorpus, order: string[], tier: (path: string) => number, topic: string): string[] {
  const top = order.filter((path) => tier(path) === tier(order[0]));
  const coverage = termCoverage(topic, corpus);
  const most = Math.max(...top.map((path) => coverage.share(path)));
  if (most <= 0) return order;
  const time = (path: string) => timeOf(corpus.byPath.get(path) as CorpusNote);
  const newest = top.filter((path) => coverage.share(path) >= most - 1e-9).sort((a, b) => time(b) - time(a) || compareText(a, b));
  const chosen = new Set(newest);
  return [...newest, ...order.filter((path) => !chosen.has(path))];
}

/** Each superseded decision moved to just below the lowest-ranked current decision that replaced it, if that one ranks lower. */
function supersededBelow(corpus: EvalCorpus, order: string[]): string[] {
  const out = [...order];
  for (const path of order) {
    const note = corpus.byPath.get(path);
    if (!note || !isSuperseded(note)) continue;
    const after = Math.max(-1, ...replacementsOf(corpus, note).map((r) => out.indexOf(r)));
    const at = out.indexOf(path);
    if (after > at) out.splice(after, 0, ...out.splice(at, 1));
  }
  return out;
}

/**
 * Search with front-matter filters read from the question (see `readQuestionFields` and
 * `orderByFields`): the asked-for types and the named projects are searched on their own as well, so
 * a decision that plain search ranks below the pool still comes in.
 */
export const keywordFieldsStrategy: Strategy = {
  name: 'keyword-fields',
  description:
    'Search ordered by the front matter a question implies: its type words, a project it names, the newest when it asks for the last; superseded decisions below their replacements.',
  rank: async (question, context) => {
    const limit = poolSize(context.k);
    const fields = readQuestionFields(question, context.corpus);
    const hits = await searchCorpus(question, context, limit);
    for (const type of fields.types) hits.push(...(await searchCorpus(question, context, limit, { type })));
    for (const project of fields.projects) hits.push(...(await searchCorpus(question, context, limit, { project })));
    return orderByFields(context.corpus, hits, fields);
  },
};
