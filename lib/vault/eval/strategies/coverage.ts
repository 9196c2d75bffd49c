import Database from 'better-sqlite3';
import { tokenizeQuery } from '../../search/query';
import { FTS_TOKENIZE } from '../../search/search-index';
import type { EvalCorpus } from '../types';

/**
 * Which of a question's terms each note of a corpus holds, matched as search matches them (the
 * index's tokenizer and stemmer: `deciding` holds `decided`), each term weighted by its rarity.
 */
export interface TermCoverage {
  /** The question's terms (`tokenizeQuery`), with their weights summing to 1 (all 0 when none occurs). */
  terms: { term: string; weight: number }[];
  /** The terms (indexes into `terms`) a note holds, in its title, aliases or text. */
  held(path: string): ReadonlySet<number>;
  /** The weighted share of the question's terms a note holds, 0..1. */
  share(path: string): number;
}

interface CoverageIndex {
  db: Database.Database;
  total: number;
  paths: string[];
  postings: Map<string, ReadonlySet<string>>;
}

/** A few corpora at once (a growth run measures several); the oldest is closed when a fifth comes. */
const MAX_OPEN = 4;
const open: { corpus: EvalCorpus; index: CoverageIndex }[] = [];

function indexFor(corpus: EvalCorpus): CoverageIndex {
  const found = open.find((entry) => entry.corpus === corpus);
  if (found) return found.index;
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE docs USING fts5(text, tokenize = '${FTS_TOKENIZE}')`);
  const insert = db.prepare('INSERT INTO docs (rowid, text) VALUES (?, ?)');
  const paths: string[] = [];
  db.transaction(() => {
    for (const note of corpus.notes) {
      paths.push(note.path);
      insert.run(paths.length, `${note.title}\n${note.aliases.join('\n')}\n${note.text}`);
    }
  })();
  const index: CoverageIndex = { db, total: paths.length, paths, postings: new Map() };
  open.push({ corpus, index });
  if (open.length > MAX_OPEN) open.shift()?.index.db.close();
  return index;
}

/** The notes holding a term (stemmed as the index stems it), cached per corpus. */
function notesWith(index: CoverageIndex, term: string): ReadonlySet<string> {
  let notes = index.postings.get(term);
  if (!notes) {
    const rows = index.db.prepare('SELECT rowid AS id FROM docs WHERE docs MATCH ?').all(`"${term.replaceAll('"', '""')}"`) as { id: number }[];
    notes = new Set(rows.map((row) => index.paths[row.id - 1]));
    index.postings.set(term, notes);
  }
  return notes;
}

/**
 * The question's terms and which notes of the corpus hold them, weighted as search weighs them
 * (BM25's idf: a rare word counts more). Built over the corpus once, then per question in microseconds.
 */
export function termCoverage(question: string, corpus: EvalCorpus): TermCoverage {
  const index = indexFor(corpus);
  const found = tokenizeQuery(question).map((term) => ({ term, notes: notesWith(index, term) }));
  const idf = found.map(({ notes }) => (notes.size === 0 ? 0 : Math.log(1 + (index.total - notes.size + 0.5) / (notes.size + 0.5))));
  const sum = idf.reduce((a, b) => a + b, 0);
  const terms = found.map(({ term }, i) => ({ term, weight: sum === 0 ? 0 : idf[i] / sum }));
  const held = (path: string): ReadonlySet<number> => new Set(found.flatMap(({ notes }, i) => (notes.has(path) ? [i] : [])));
  return {
    terms,
    held,
    share: (path) => [...held(path)].reduce((total, i) => total + terms[i].weight, 0),
  };
}
