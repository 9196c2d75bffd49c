import { afterEach, describe, expect, it } from 'vitest';
import { buildCorpus, initVault, listEvalRuns, runEvaluation, type Strategy } from '../../lib/vault';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/** The corpus and the run on a vault whose lucid.json moves the evaluation folders. */

let tv: TempVault;
afterEach(() => tv?.cleanup());

const searchStrategy: Strategy = {
  name: 'search',
  description: 'the vault search',
  rank: async (question, { vault }) => (await vault.search(question, { limit: 20 })).map((h) => h.path),
};

describe('buildCorpus and runEvaluation with moved evaluation folders', () => {
  it('leaves the moved folders out of the corpus, reads a single alias, and writes the run where lucid.json says', async () => {
    tv = makeTempVault({
      'lucid.json': '{"version": 1, "paths": {"evalQuestions": "Lab/questions", "evalRuns": "Lab/runs"}}\n',
      'notes/database.md': '---\nalias: Pg\n---\n# Database\n\nThe team picked Postgres for the ledger.\n',
      'notes/misc.md': '# Misc\n\nNothing much.\n',
      'Lab/questions/team.jsonl':
        '{"id":"q1","question":"Which store keeps the ledger?","gold":["notes/database.md"],"answers":["Postgres"],"kind":"hand","split":"test"}\n',
    });
    await initVault({ dir: tv.root, env: tv.env });
    expect(tv.git(['status', '--porcelain'])).toBe('');
    const vault = await tv.open();
    try {
      const corpus = await buildCorpus(vault);
      expect(corpus.notes.map((n) => n.path)).toEqual(['notes/database.md', 'notes/misc.md']);
      expect(corpus.byPath.get('notes/database.md')?.aliases).toEqual(['Pg']);
      const run = await runEvaluation(vault, { strategies: [searchStrategy], now: new Date(2026, 10, 20, 9, 5) });
      expect(run.runs[0].notePath).toBe('Lab/runs/2026-11-20-0905-team.md');
      expect(run.runs[0].summary.search.recall_at_5?.mean).toBe(1);
      expect(tv.read(run.runs[0].notePath)).toContain('\n1 question (0 dev, 1 test), at most 5 notes');
      expect(tv.read('changelog.md')).toContain('recall evaluation of team (1 question): 1 strategy, k 5');
      expect(tv.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n').sort()).toEqual(
        ['changelog.md', 'Lab/runs/2026-11-20-0905-team.md', 'Lab/runs/2026-11-20-0905-team.results.jsonl'].sort(),
      );
      expect((await listEvalRuns(vault)).map((r) => r.path)).toEqual(['Lab/runs/2026-11-20-0905-team.md']);
      // The run's own files never become part of the next run's corpus.
      expect((await buildCorpus(vault)).notes.map((n) => n.path)).toEqual(['notes/database.md', 'notes/misc.md']);
    } finally {
      vault.close();
    }
  });
});
