import { afterAll, describe, expect, it } from 'vitest';
import { buildCorpus, generateQuestions, initVault, leakOf, openVault, parseQuestionSet, serializeQuestionSet } from '../../lib/vault/index';
import { copyFixture, FIXTURE_VAULTS, haveFixtures, testGitEnv } from '../support/fixtures';

const env = { ...testGitEnv(), LUCID_USER: 'tester' };

describe.skipIf(!haveFixtures)('eval generate on the real vaults in ../shared/fixtures', () => {
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });

  for (const name of FIXTURE_VAULTS) {
    it(`${name}: generates without error, every gold note exists and no question gives its answer away`, { timeout: 240_000 }, async () => {
      const { root, cleanup } = copyFixture(name);
      cleanups.push(cleanup);
      await initVault({ dir: root, env, fallbackUser: 'tester' });
      const vault = await openVault({ root, env, fallbackUser: 'tester' });
      try {
        const generated = await generateQuestions(vault);
        const { questions } = generated;
        const corpus = await buildCorpus(vault);
        for (const q of questions) {
          const gold = q.gold.map((p) => corpus.byPath.get(p));
          expect(gold.every(Boolean), `${q.id}: ${q.gold.join(', ')}`).toBe(true);
          expect(
            leakOf(
              q.question,
              gold.filter((n) => n !== undefined),
              q.answers,
            ),
            q.question,
          ).toBeNull();
          expect(q.question.length).toBeGreaterThan(10);
        }
        expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
        expect(questions.length).toBeLessThanOrEqual(200);
        // The set reads back as written (an empty set too: it serializes to nothing and reads as none).
        expect(parseQuestionSet(serializeQuestionSet(questions), name)).toEqual(questions);
        const counts = Object.entries(generated.byTemplate)
          .filter(([, n]) => n > 0)
          .map(([t, n]) => `${n} ${t}`);
        console.info(
          `eval generate ${name}: ${questions.length} questions (${counts.join(', ') || 'none'}), ` +
            `${questions.filter((q) => q.paraphrased_with).length} reworded, ${generated.refused.length} refused, ` +
            `${generated.capped} over the caps, ${generated.unparsed.length} notes read without their front matter, ` +
            `${generated.skipped.length} notes skipped (not text)`,
        );
      } finally {
        vault.close();
      }
    });
  }
});
