import { tokenizeQuery } from '../../search/query';
import type { EvalCorpus, Strategy } from '../types';
import { searchExpanded } from './expansion';

/** Notes whose names lend their other names to a question, at most. */
const MAX_NAMED_NOTES = 3;
/**
 * The rarity-weighted share of a name's words the question must hold, more than, for the name to
 * count: most of it, so one shared word of a two-word name does not make the question name it.
 */
const MIN_NAME_SHARE = 0.5;

interface Names {
  /** Every title and alias of a note, by note path. */
  byPath: Map<string, string[]>;
  /** The notes whose names hold a word, by word. */
  byTerm: Map<string, Set<string>>;
  /** Per name (a note's path and the name's index): its words. */
  terms: Map<string, string[][]>;
  /** How many notes have a name holding a word. */
  df: Map<string, number>;
  notes: number;
}

function namesOf(corpus: EvalCorpus): Names {
  const names: Names = { byPath: new Map(), byTerm: new Map(), terms: new Map(), df: new Map(), notes: corpus.notes.length };
  for (const note of corpus.notes) {
    const all = [...new Set([note.title, ...note.aliases].filter((name) => name.trim() !== ''))];
    const terms = all.map((name) => tokenizeQuery(name));
    names.byPath.set(note.path, all);
    names.terms.set(note.path, terms);
    for (const term of new Set(terms.flat())) {
      let paths = names.byTerm.get(term);
      if (!paths) names.byTerm.set(term, (paths = new Set()));
      paths.add(note.path);
      names.df.set(term, (names.df.get(term) ?? 0) + 1);
    }
  }
  return names;
}

/**
 * The notes a question names by a title or an alias: those with a name whose words the question
 * mostly holds, rare words weighing more, best first.
 */
function namedNotes(questionTerms: string[], names: Names): string[] {
  const asked = new Set(questionTerms);
  const idf = (term: string) => Math.log(1 + names.notes / (names.df.get(term) ?? 1));
  const candidates = new Set(questionTerms.flatMap((term) => [...(names.byTerm.get(term) ?? [])]));
  const scored: { path: string; share: number; weight: number }[] = [];
  for (const path of candidates) {
    let best = { share: 0, weight: 0 };
    for (const terms of names.terms.get(path) ?? []) {
      const total = terms.reduce((sum, term) => sum + idf(term), 0);
      const held = terms.filter((term) => asked.has(term)).reduce((sum, term) => sum + idf(term), 0);
      const share = total === 0 ? 0 : held / total;
      if (share > best.share || (share === best.share && held > best.weight)) best = { share, weight: held };
    }
    if (best.share > MIN_NAME_SHARE) scored.push({ path, ...best });
  }
  scored.sort((a, b) => b.share - a.share || b.weight - a.weight || (a.path < b.path ? -1 : 1));
  return scored.slice(0, MAX_NAMED_NOTES).map((entry) => entry.path);
}

/**
 * `keyword-aliases`: BM25 with the question expanded by the other names (title and aliases) of the
 * notes it names, so a question asking by an alias also finds the notes that use the title, and
 * the other way round. The question's own words count more (see `searchExpanded`).
 */
function aliasesStrategy(): Strategy {
  const built = new WeakMap<EvalCorpus, Names>();
  const namesFor = (corpus: EvalCorpus) => {
    let names = built.get(corpus);
    if (!names) built.set(corpus, (names = namesOf(corpus)));
    return names;
  };
  return {
    name: 'keyword-aliases',
    description: 'BM25 with the question expanded by the titles and aliases of the notes it names by a title or an alias.',
    async prepare(context) {
      namesFor(context.corpus);
    },
    async rank(question, context) {
      const names = namesFor(context.corpus);
      const added = namedNotes(tokenizeQuery(question), names).flatMap((path) => names.byPath.get(path) ?? []);
      return searchExpanded(question, added, context);
    },
  };
}

/** `keyword-aliases` (see {@link aliasesStrategy}). */
export const keywordAliasesStrategy: Strategy = aliasesStrategy();
