import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCorpus, type EvalCorpus, initVault, type StrategyContext, type Vault } from '../../lib/vault';
import { keywordStrategy } from '../../lib/vault/eval/strategies/keyword';
import { keywordAliasesStrategy } from '../../lib/vault/eval/strategies/keyword-aliases';
import { keywordPrfStrategy } from '../../lib/vault/eval/strategies/keyword-prf';
import { keywordThesaurusStrategy } from '../../lib/vault/eval/strategies/keyword-thesaurus';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/**
 * Each query expansion on a vault the test writes: a question worded unlike its gold note, which
 * the plain keyword search does not find at all, and the expansion does.
 */

const NOTES: Record<string, string> = {
  // keyword-aliases: the question asks by an alias; the decision names the title only.
  'entities/postgres.md': '---\naliases: [relational store]\n---\n# Postgres\n\nThe database server of the billing service.\n',
  'decisions/pick-db.md': '# Pick a DB\n\nWe chose Postgres over MySQL for its JSON support.\n',
  // keyword-thesaurus: the question says automobile and purchased, the note car and dealer.
  'notes/red-car.md': '# Red car\n\nThe red car came from the dealer in May.\n',
  // WordNet's synonyms of physician are doctor, doc, md, medico: the vault uses only the last.
  'notes/clinic.md': '# Clinic\n\nThe medico visits on Tuesdays.\n',
  // keyword-prf: the runbook matches the question; the gold shares the runbook's rare words only.
  'runbooks/cluster-upgrade.md':
    '# Cluster upgrade\n\nUpgrading the kubernetes cluster: drain the nodes, then a helm rollback if the canary fails. Helm charts live in infra.\n',
  'notes/helm-charts.md': '# Charts\n\nHelm charts hold the canary release and the helm rollback steps.\n',
  'notes/lunch.md': '# Lunch\n\nSoup on Fridays at the corner place.\n',
  'notes/garden.md': '# Garden\n\nTomatoes need water every evening in summer.\n',
  'notes/reading.md': '# Reading\n\nA novel about sailors and a long winter.\n',
};

let tv: TempVault;
let vault: Vault;
let corpus: EvalCorpus;
let context: StrategyContext;

beforeAll(async () => {
  tv = makeTempVault(NOTES);
  await initVault({ dir: tv.root, env: tv.env });
  vault = await tv.open();
  await vault.syncSearch();
  corpus = await buildCorpus(vault);
  context = { corpus, vault, k: 5 };
});

afterAll(() => {
  vault?.close();
  tv?.cleanup();
});

const top5 = async (strategy: typeof keywordStrategy, question: string) => (await strategy.rank(question, context)).slice(0, 5);

describe('keyword-aliases', () => {
  it('finds the note that uses the title when the question asks by an alias', async () => {
    const question = 'Which relational store did we choose?';
    expect(await top5(keywordStrategy, question)).not.toContain('decisions/pick-db.md');
    await keywordAliasesStrategy.prepare?.(context);
    const ranked = await top5(keywordAliasesStrategy, question);
    expect(ranked).toContain('decisions/pick-db.md');
    // The question's own hit keeps its place above what the expansion added.
    expect(ranked[0]).toBe('entities/postgres.md');
  });

  it('is the plain search when the question holds less than most of any name', async () => {
    // "store" is half of the alias "relational store": not enough to name Postgres.
    const question = 'Which store sells soup?';
    expect(await keywordAliasesStrategy.rank(question, context)).toEqual(await keywordStrategy.rank(question, context));
  });
});

describe('keyword-thesaurus', () => {
  it('names WordNet, so it is never judged on questions paraphrased with it', () => {
    expect(keywordThesaurusStrategy.thesaurus).toBe('wordnet');
  });

  it('finds a note that uses a synonym of the question’s word', async () => {
    const question = 'Which automobile was purchased?';
    expect(await top5(keywordStrategy, question)).not.toContain('notes/red-car.md');
    expect(await top5(keywordThesaurusStrategy, question)).toContain('notes/red-car.md');
  });

  it('adds the synonym the vault uses, not merely the commonest one', async () => {
    const question = 'Which day does the physician come?';
    expect(await top5(keywordStrategy, question)).not.toContain('notes/clinic.md');
    expect((await top5(keywordThesaurusStrategy, question))[0]).toBe('notes/clinic.md');
  });
});

describe('keyword-prf', () => {
  it('finds a note through the distinctive words of the top hits', async () => {
    const question = 'How do we upgrade kubernetes?';
    expect(await top5(keywordStrategy, question)).not.toContain('notes/helm-charts.md');
    await keywordPrfStrategy.prepare?.(context);
    const ranked = await top5(keywordPrfStrategy, question);
    expect(ranked[0]).toBe('runbooks/cluster-upgrade.md');
    expect(ranked).toContain('notes/helm-charts.md');
  });

  it('ranks the same way twice', async () => {
    const question = 'How do we upgrade kubernetes?';
    expect(await keywordPrfStrategy.rank(question, context)).toEqual(await keywordPrfStrategy.rank(question, context));
  });

  it('returns nothing for a question with no terms', async () => {
    expect(await keywordPrfStrategy.rank('what is it?', context)).toEqual([]);
  });
});
