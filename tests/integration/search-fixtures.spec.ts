import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { searchNotes } from '../../lib/vault/agents/read-ops';
import { measureSet, prepareFixture, questionSetFile } from '../../scripts/search-recall';
import { FIXTURE_VAULTS, haveFixtures } from '../support/fixtures';

/**
 * Issue 12 on real vaults (`lucid init`-ed copies, committed first as a person would): the default
 * search answers the hand-written paraphrased questions of tests/evals at least as well as plain BM25,
 * its hits come in score order, and Lucid's own files stay out of ordinary results.
 */

describe.skipIf(!haveFixtures)('search on real vaults', () => {
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });

  for (const fixture of FIXTURE_VAULTS) {
    it.skipIf(!questionSetFile(fixture))(
      `${fixture}: recall@5 of the default search is no worse than plain BM25, hits in score order`,
      async () => {
        const { vault, questions, cleanup } = await prepareFixture(fixture);
        cleanups.push(() => {
          vault.close();
          cleanup();
        });
        expect(questions.length).toBeGreaterThanOrEqual(20);
        for (const q of questions) {
          for (const gold of q.gold) expect(existsSync(path.join(vault.root, gold)), `${q.id}: ${gold}`).toBe(true);
        }
        // init wrote AGENTS.md and the changelog; ordinary results never show them, nor anything in the inbox.
        expect(existsSync(path.join(vault.root, vault.layout.agents))).toBe(true);
        const own = (p: string) => p === vault.layout.agents || p === vault.layout.changelog || p.startsWith(`${vault.layout.inbox}/`);
        for (const q of questions) {
          const hits = await vault.search(q.question, { limit: 50 });
          const scores = hits.map((h) => h.score);
          expect(scores, q.question).toEqual([...scores].sort((a, b) => b - a));
          expect(
            hits.filter((h) => own(h.path)).map((h) => h.path),
            q.question,
          ).toEqual([]);
          const forAgents = await searchNotes(vault, { query: q.question, limit: 20 });
          expect(forAgents.results.map((r) => r.path)).toEqual(hits.slice(0, 20).map((h) => h.path));
        }
        const protocol = await searchNotes(vault, { query: 'memory protocol agents', includeSystem: true, limit: 50 });
        expect(protocol.results.map((r) => r.path)).toContain(vault.layout.agents);

        const recall = await measureSet(vault, fixture, questions);
        console.log(
          `${fixture}: ${recall.questions} questions, default R@1 ${recall.byDefault.at1.toFixed(2)} R@5 ${recall.byDefault.at5.toFixed(2)}, plain BM25 R@1 ${recall.plainBm25.at1.toFixed(2)} R@5 ${recall.plainBm25.at5.toFixed(2)}`,
        );
        expect(recall.byDefault.at5).toBeGreaterThanOrEqual(recall.plainBm25.at5);
      },
      180_000,
    );
  }
});
