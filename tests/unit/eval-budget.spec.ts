import { describe, expect, it } from 'vitest';
import { BUDGET_TOKENS, type CorpusNote, type EvalCorpus, cutToBudget } from '../../lib/vault';

function note(path: string, title: string, text: string): CorpusNote {
  return { path, title, aliases: [], type: null, frontmatter: {}, text, links: [], backlinks: [], committedAt: 0 };
}

function corpusOf(notes: CorpusNote[]): EvalCorpus {
  return { commit: 'abc', notes, byPath: new Map(notes.map((n) => [n.path, n])) };
}

const filler = (words: number, word = 'lorem') => Array.from({ length: words }, () => word).join(' ');

describe('cutToBudget', () => {
  const big = Array.from({ length: 30 }, (_, i) => note(`n${String(i).padStart(2, '0')}.md`, `Note ${i}`, `${filler(3000)}\n`));
  const corpus = corpusOf(big);
  const ranked = big.map((n) => n.path);

  it('never returns more than k notes nor more than the budget', () => {
    for (const k of [1, 3, 5, 7, 10, 20]) {
      const out = cutToBudget(ranked, 'lorem ipsum', corpus, k);
      expect(out.length).toBe(k);
      const total = out.reduce((sum, r) => sum + r.tokens, 0);
      expect(total).toBeLessThanOrEqual(BUDGET_TOKENS);
      for (const r of out) expect(r.tokens).toBe(Math.ceil(r.passage.length / 4));
    }
    const small = cutToBudget(ranked, 'lorem', corpus, 4, 101);
    expect(small.reduce((sum, r) => sum + r.tokens, 0)).toBeLessThanOrEqual(101);
  });

  it('keeps the first k distinct paths that exist in the corpus, in rank order', () => {
    const out = cutToBudget(['missing.md', 'n02.md', 'n02.md', 'n01.md', 'n05.md'], 'x', corpus, 2);
    expect(out.map((r) => r.path)).toEqual(['n02.md', 'n01.md']);
    expect(cutToBudget([], 'x', corpus, 5)).toEqual([]);
    expect(cutToBudget(ranked, 'x', corpus, 0)).toEqual([]);
  });

  it('gives a passage the title line and the window holding most question terms', () => {
    const text = `${filler(400)}\nThe database we picked is Postgres, for its JSON support.\n${filler(400)}\n`;
    const out = cutToBudget(['db.md'], 'which database did we pick, postgres?', corpusOf([note('db.md', 'Database', text)]), 10);
    expect(out[0].passage.startsWith('# Database\n')).toBe(true);
    expect(out[0].passage).toContain('The database we picked is Postgres');
    expect(out[0].passage.length).toBeLessThanOrEqual((BUDGET_TOKENS / 10) * 4);
  });

  it('finds the question terms in a note written in decomposed Unicode (as macOS file names and some editors save it)', () => {
    const text = `${filler(400)}\nThe Cafe\u0301 is on Main Street.\n${filler(400)}\n`;
    const out = cutToBudget(['c.md'], 'Where is the Caf\u00e9?', corpusOf([note('c.md', 'Places', text)]), 10);
    expect(out[0].passage).toContain('The Cafe\u0301 is on Main Street.');
  });

  it('finds the window in a huge note (indexed once), question after question', () => {
    const text = `${filler(40_000)}\nThe ledger moved to Postgres in May.\n${filler(400)}\nLedger notes end here.\n`;
    const corpus = corpusOf([note('huge.md', 'Huge', text)]);
    const first = cutToBudget(['huge.md'], 'When did the ledger move to postgres?', corpus, 5);
    expect(first[0].passage).toContain('The ledger moved to Postgres in May.');
    // The second time reads the note's word index: the same passage.
    expect(cutToBudget(['huge.md'], 'When did the ledger move to postgres?', corpus, 5)).toEqual(first);
    expect(cutToBudget(['huge.md'], 'Where do the ledger notes end?', corpus, 5)[0].passage).toContain('Ledger notes end here.');
  });

  it('keeps a short note whole', () => {
    const out = cutToBudget(['a.md'], 'anything', corpusOf([note('a.md', 'A', 'short text\n')]), 5);
    expect(out).toEqual([{ path: 'a.md', passage: '# A\nshort text\n', tokens: 4 }]);
  });

  it('is deterministic', () => {
    expect(cutToBudget(ranked, 'lorem', corpus, 5)).toEqual(cutToBudget(ranked, 'lorem', corpus, 5));
  });
});
