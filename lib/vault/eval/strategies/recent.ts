import type { CorpusNote, EvalCorpus, Strategy } from '../types';

/** Plain code-unit order, the same on every machine and locale: how strategies break ties by path. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Newest commit first, ties by path: a note's place never depends on the file's mtime. */
export function byCommitTime(notes: readonly CorpusNote[]): string[] {
  return [...notes].sort((a, b) => b.committedAt - a.committedAt || compareText(a.path, b.path)).map((note) => note.path);
}

const ordered = new WeakMap<EvalCorpus, string[]>();

/**
 * The notes last committed, newest first, whatever the question: what an agent that reads "the
 * latest notes" would see. Ordered by git commit time (`committedAt`), never by file mtime.
 */
export const recentStrategy: Strategy = {
  name: 'recent',
  description: 'The most recently committed notes, whatever the question.',
  rank: async (_question, { corpus }) => {
    let paths = ordered.get(corpus);
    if (!paths) {
      paths = byCommitTime(corpus.notes);
      ordered.set(corpus, paths);
    }
    return paths;
  },
};
