// Recall of search on the fixture vaults' hand-written question sets (tests/evals/<vault>.jsonl, in
// VAULT-FORMAT's evaluation format): the default search against plain BM25 (FTS5 with the Porter
// tokenizer, the question's terms OR'd, no boosts), on `lucid init`-ed copies committed as a person would.
// Run: node --import tsx scripts/search-recall.ts [--misses]
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { systemPrefixes } from '../lib/vault/notes/layout';
import { type EvalQuestion, initVault, openVault, readQuestionSet, type Vault } from '../lib/vault/index';
import { tokenizeQuery } from '../lib/vault/search/query';
import { copyFixture, FIXTURE_VAULTS, haveFixtures, testGitEnv, commitAsOwner } from '../tests/support/fixtures';

/** Recall at 1 and 5 of one strategy, averaged over questions (a question's recall: the share of its gold notes found). */
export interface Recall {
  at1: number;
  at5: number;
}

/** What one set measured on one vault. */
export interface SetRecall {
  set: string;
  questions: number;
  byDefault: Recall;
  plainBm25: Recall;
  /** Median milliseconds of one default search (the index already up to date). */
  medianMs: number;
  /** Questions whose gold the default search did not put in its first five, with what it returned. */
  misses: { id: string; question: string; gold: string[]; got: string[] }[];
}

const EVALS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../tests/evals');
const K = 5;

/** The question set kept in this repository for a fixture vault, or null when it has none. */
export function questionSetFile(fixture: string): string | null {
  const file = path.join(EVALS_DIR, `${fixture}.jsonl`);
  return existsSync(file) ? file : null;
}

/**
 * A fixture vault as its owner keeps it (one commit of everything, by "Owner"), then `lucid init`-ed
 * and opened, with the question set copied into its evals/questions/ folder and read
 * with the library's question-set reader (a malformed line is an error naming its file and line).
 */
export async function prepareFixture(fixture: string): Promise<{ vault: Vault; questions: EvalQuestion[]; cleanup: () => void }> {
  const setFile = questionSetFile(fixture);
  if (!setFile) throw new Error(`No question set for ${fixture} in ${EVALS_DIR}.`);
  const env = testGitEnv();
  const { root, cleanup } = copyFixture(fixture);
  commitAsOwner(root, env);
  await initVault({ dir: root, env });
  const vault = await openVault({ root, env });
  const target = path.join(root, vault.layout.evalQuestions, `${fixture}.jsonl`);
  mkdirSync(path.dirname(target), { recursive: true });
  copyFileSync(setFile, target);
  return { vault, questions: await readQuestionSet(vault, fixture), cleanup };
}

/**
 * Plain BM25 over the same notes ordinary search returns (Lucid's own files left out): one FTS5
 * column of title and file text, the Porter tokenizer, the question's terms OR'd, bm25() unweighted.
 */
async function plainBm25(vault: Vault): Promise<{ search(question: string): string[]; close(): void }> {
  const excluded = [...systemPrefixes(vault.layout), vault.layout.agents];
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, text, tokenize = 'porter unicode61 remove_diacritics 2')");
  const insert = db.prepare('INSERT INTO docs (path, text) VALUES (?, ?)');
  for (const note of await vault.listNotes()) {
    if (excluded.some((prefix) => note.path.startsWith(prefix))) continue;
    insert.run(note.path, `${note.title}\n${note.text ?? ''}`);
  }
  const query = db.prepare(`SELECT path FROM docs WHERE docs MATCH ? ORDER BY bm25(docs), path LIMIT ${K}`);
  return {
    search: (question) => {
      const terms = tokenizeQuery(question);
      if (terms.length === 0) return [];
      return (query.all(terms.map((t) => `"${t}"`).join(' OR ')) as { path: string }[]).map((r) => r.path);
    },
    close: () => db.close(),
  };
}

function recallAt(gold: string[], got: string[], k: number): number {
  const top = new Set(got.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

/** Recall@1 and @5 of the default search and of plain BM25 on one question set. */
export async function measureSet(vault: Vault, set: string, questions: EvalQuestion[]): Promise<SetRecall> {
  const bm25 = await plainBm25(vault);
  const sums = { d1: 0, d5: 0, b1: 0, b5: 0 };
  const misses: SetRecall['misses'] = [];
  const times: number[] = [];
  await vault.syncSearch();
  try {
    for (const q of questions) {
      const started = performance.now();
      const got = (await vault.search(q.question, { limit: K })).map((hit) => hit.path);
      times.push(performance.now() - started);
      const plain = bm25.search(q.question);
      sums.d1 += recallAt(q.gold, got, 1);
      sums.d5 += recallAt(q.gold, got, K);
      sums.b1 += recallAt(q.gold, plain, 1);
      sums.b5 += recallAt(q.gold, plain, K);
      if (recallAt(q.gold, got, K) < 1) misses.push({ id: q.id, question: q.question, gold: q.gold, got });
    }
  } finally {
    bm25.close();
  }
  const n = questions.length || 1;
  return {
    set,
    questions: questions.length,
    byDefault: { at1: sums.d1 / n, at5: sums.d5 / n },
    plainBm25: { at1: sums.b1 / n, at5: sums.b5 / n },
    medianMs: times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0,
    misses,
  };
}

/** Measures every fixture vault that has a question set. */
export async function measureFixtures(): Promise<SetRecall[]> {
  const results: SetRecall[] = [];
  for (const fixture of FIXTURE_VAULTS) {
    if (!questionSetFile(fixture)) continue;
    const { vault, questions, cleanup } = await prepareFixture(fixture);
    try {
      results.push(await measureSet(vault, fixture, questions));
      for (const split of ['dev', 'test'] as const) {
        results.push(
          await measureSet(
            vault,
            `${fixture} (${split})`,
            questions.filter((q) => q.split === split),
          ),
        );
      }
    } finally {
      vault.close();
      cleanup();
    }
  }
  return results;
}

function table(results: SetRecall[]): string {
  const f = (x: number) => x.toFixed(2);
  const lines = [
    '| question set | questions | default R@1 | default R@5 | plain BM25 R@1 | plain BM25 R@5 | default search, median ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.set} | ${r.questions} | ${f(r.byDefault.at1)} | ${f(r.byDefault.at5)} | ${f(r.plainBm25.at1)} | ${f(r.plainBm25.at5)} | ${r.medianMs.toFixed(1)} |`,
    ),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  if (!haveFixtures) {
    console.error('The fixture vaults are not here (../shared/fixtures/vaults): nothing to measure.');
    process.exitCode = 1;
    return;
  }
  const results = await measureFixtures();
  console.log(table(results));
  if (process.argv.includes('--misses')) {
    for (const r of results.filter((x) => !x.set.includes('('))) {
      for (const m of r.misses) console.log(`\n${r.set} ${m.id}: ${m.question}\n  gold ${m.gold.join(', ')}\n  got  ${m.got.join(' | ') || '(nothing)'}`);
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
