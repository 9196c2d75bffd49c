import { aliasesOf } from '../agents/read-note';
import { systemPrefixes, type VaultLayout } from '../notes/layout';
import { headCommit } from '../git/repo';
import { isExternalTarget } from '../notes/links';
import type { Vault } from '../vault';
import type { CorpusNote, EvalCorpus, EvalQuestion } from './types';

/**
 * The path prefixes search leaves out by default (the changelog, inbox, evaluations and AGENTS.md),
 * and the evaluation folders wherever lucid.json puts them, so a run never retrieves its own notes.
 */
export function corpusExclusions(layout: VaultLayout): string[] {
  return [...systemPrefixes(layout), layout.agents, `${layout.evalQuestions}/`, `${layout.evalRuns}/`];
}

/**
 * The notes a run retrieves from: what search returns by default (see {@link corpusExclusions}),
 * readable as text, sorted by path, each with its resolved links and backlinks within the corpus
 * (from `vault.linkGraph()`) and the time of the last commit that touched it (from the commit
 * index; 0 when never committed). `commit` is HEAD ('' in a repository with no commit). The texts
 * are the files on disk, which are HEAD's unless someone has uncommitted changes.
 */
export async function buildCorpus(vault: Vault): Promise<EvalCorpus> {
  const excluded = corpusExclusions(vault.layout);
  const graph = await vault.linkGraph();
  const kept = graph.notes
    .filter((note) => note.text !== null && !excluded.some((prefix) => note.path.startsWith(prefix)))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const paths = new Set(kept.map((note) => note.path));
  const commits = await vault.commits();
  const notes: CorpusNote[] = kept.map((note) => {
    const links = new Set<string>();
    for (const link of note.links) {
      if (link.target === '' || isExternalTarget(link.target)) continue;
      const to = graph.resolver.resolve(link.target, note.path, link.kind);
      if (to && to !== note.path && paths.has(to)) links.add(to);
    }
    const backlinks = new Set((graph.backlinks.get(note.path) ?? []).map((b) => b.from).filter((from) => paths.has(from)));
    return {
      path: note.path,
      title: note.title,
      aliases: aliasesOf(note),
      type: note.lucidType,
      frontmatter: { ...note.frontmatter },
      text: note.text ?? '',
      links: [...links].sort(),
      backlinks: [...backlinks].sort(),
      committedAt: commits.historyOf(note.path, 1)[0]?.time ?? 0,
    };
  });
  return { commit: (await headCommit(vault.repo)) ?? '', notes, byPath: new Map(notes.map((n) => [n.path, n])) };
}

/** A path as compared when a gold path does not match exactly: NFC, lowercased. */
const looseKey = (path: string) => path.normalize('NFC').toLowerCase();

const looseIndexes = new WeakMap<EvalCorpus, Map<string, string | null>>();

/** The corpus's paths by {@link looseKey}; null where two notes share one (no guess is made then). */
function looseIndex(corpus: EvalCorpus): Map<string, string | null> {
  let index = looseIndexes.get(corpus);
  if (!index) {
    index = new Map();
    for (const note of corpus.notes) {
      const key = looseKey(note.path);
      index.set(key, index.has(key) ? null : note.path);
    }
    looseIndexes.set(corpus, index);
  }
  return index;
}

/**
 * The questions with each gold path as the corpus spells it: a hand-written set may name
 * `Decisions/Use-Postgres.md` for `decisions/use-postgres.md`, another Unicode form, or leave out
 * `.md`; such a path is matched when exactly one note fits. A path no note fits is kept as written
 * (it scores as a miss and the run says which questions name one).
 */
export function resolveGold(questions: readonly EvalQuestion[], corpus: EvalCorpus): EvalQuestion[] {
  // Built only when some gold path is not spelled as the corpus spells it: resolving a set already
  // resolved (the runner and growth both pass theirs on to evaluateSet) costs one lookup a path.
  let index: ReturnType<typeof looseIndex> | null = null;
  const resolve = (path: string): string => {
    if (corpus.byPath.has(path)) return path;
    index ??= looseIndex(corpus);
    const key = looseKey(path);
    return index.get(key) ?? (key.endsWith('.md') ? null : index.get(`${key}.md`)) ?? path;
  };
  return questions.map((q) => (q.gold.every((g) => corpus.byPath.has(g)) ? q : { ...q, gold: [...new Set(q.gold.map(resolve))] }));
}
