import { describe, expect, it } from 'vitest';
import { isVaultError } from '../../lib/vault/errors';
import { isStopword, textWords, tokenizeQuery } from '../../lib/vault/search/query';
import { grepRank } from '../../lib/vault/eval/strategies/grep';
import { defaultStrategies, STRATEGY_NAMES, strategyByName } from '../../lib/vault/eval/strategies/index';
import { isSuperseded, orderByFields, readQuestionFields } from '../../lib/vault/eval/strategies/keyword-fields';
import { rerankWithLinks } from '../../lib/vault/eval/strategies/keyword-links';
import { byCommitTime } from '../../lib/vault/eval/strategies/recent';
import { BASE_STRATEGIES, type CorpusNote, type EvalCorpus } from '../../lib/vault/eval/types';

/** A corpus of literal notes; backlinks are computed from the links. */
function corpusOf(notes: (Partial<CorpusNote> & { path: string })[]): EvalCorpus {
  const full: CorpusNote[] = notes.map((n) => ({
    title: n.path.replace(/^.*\//, '').replace(/\.md$/, ''),
    aliases: [],
    type: null,
    frontmatter: {},
    text: '',
    links: [],
    backlinks: [],
    committedAt: 0,
    ...n,
  }));
  for (const note of full) note.backlinks = full.filter((other) => other.links.includes(note.path)).map((other) => other.path);
  return { commit: 'c0ffee', notes: full, byPath: new Map(full.map((n) => [n.path, n])) };
}

describe('the strategy registry', () => {
  it('lists the base strategies in BASE_STRATEGIES order, with slug names', () => {
    expect(
      defaultStrategies()
        .map((s) => s.name)
        .slice(0, BASE_STRATEGIES.length),
    ).toEqual([...BASE_STRATEGIES]);
    expect(STRATEGY_NAMES.slice(0, BASE_STRATEGIES.length)).toEqual([...BASE_STRATEGIES]);
    for (const s of defaultStrategies()) {
      expect(s.name).toMatch(/^[a-z0-9-]+$/);
      expect(s.description.length).toBeGreaterThan(10);
    }
  });

  it("adds C's expansions after the base six, and embeddings only when given an endpoint", () => {
    const names = defaultStrategies().map((s) => s.name);
    expect(names.slice(BASE_STRATEGIES.length)).toEqual(['keyword-aliases', 'keyword-thesaurus', 'keyword-prf']);
    expect(names).not.toContain('embeddings');
    const endpoint = { url: 'http://127.0.0.1:9/v1', model: 'm' };
    expect(defaultStrategies({ embeddings: endpoint }).map((s) => s.name)).toEqual([...names, 'embeddings']);
    expect(strategyByName('embeddings', { embeddings: endpoint }).name).toBe('embeddings');
    expect(STRATEGY_NAMES).toEqual([...names, 'embeddings']);
    expect(() => strategyByName('embeddings')).toThrow(/embeddings endpoint you run.*\/v1/);
  });

  it('finds a strategy by name and refuses an unknown one with the names there are', () => {
    expect(strategyByName('keyword-links').name).toBe('keyword-links');
    let error: unknown;
    try {
      strategyByName('bm99');
    } catch (e) {
      error = e;
    }
    expect(isVaultError(error, 'invalid_input')).toBe(true);
    expect((error as Error).message).toContain('"bm99"');
    for (const name of BASE_STRATEGIES) expect((error as Error).message).toContain(name);
  });
});

describe('the words grep compares, as the search tokenizer reads them', () => {
  it('splits, lowercases and undoes contractions as tokenizeQuery does, keeping stopwords and repeats', () => {
    expect(textWords("Didn't Ada's state-of-the-art ART")).toEqual(['did', 'not', 'ada', 'state', 'of', 'the', 'art', 'art']);
    expect(tokenizeQuery("Didn't Ada's state-of-the-art ART")).toEqual(['ada', 'state', 'art']);
    expect(isStopword('the')).toBe(true);
    expect(isStopword('postgres')).toBe(false);
  });
});

describe('grep', () => {
  const corpus = corpusOf([
    { path: 'b.md', text: 'Postgres postgres POSTGRES everywhere.' },
    { path: 'a.md', text: 'We use Postgres for the queue.' },
    { path: 'c.md', text: 'The start of the art queue: postgresql.' },
    { path: 'd.md', title: 'Queue art', text: 'nothing else' },
    { path: 'e.md', text: 'unrelated words only' },
  ]);

  it('counts distinct question words each note holds, whole words, case-folded, ties by path', () => {
    // postgres: a, b (not "postgresql" in c); queue: a, c, d; art: c (not "start"), d (its title).
    expect(grepRank('Postgres queue art', corpus)).toEqual(['a.md', 'c.md', 'd.md', 'b.md']);
    // Repeats of a word count once: b holds one distinct term, like e's zero it does not rise.
    expect(grepRank('POSTGRES', corpus)).toEqual(['a.md', 'b.md']);
  });

  it('drops stopwords and ranks nothing for a question without terms', () => {
    expect(grepRank('the of and', corpus)).toEqual([]);
    expect(grepRank('', corpus)).toEqual([]);
    expect(grepRank('what is the art?', corpus)).toEqual(['c.md', 'd.md']);
  });
});

describe('recent', () => {
  it('orders by commit time, newest first, ties by path', () => {
    const corpus = corpusOf([
      { path: 'b.md', committedAt: 200 },
      { path: 'a.md', committedAt: 200 },
      { path: 'c.md', committedAt: 300 },
      { path: 'never.md', committedAt: 0 },
    ]);
    expect(byCommitTime(corpus.notes)).toEqual(['c.md', 'a.md', 'b.md', 'never.md']);
  });
});

describe('keyword-fields: what a question says about front matter', () => {
  const corpus = corpusOf([
    { path: 'projects/atlas.md', type: 'project', title: 'Atlas', aliases: ['the map service'] },
    { path: 'projects/a.md', type: 'project', title: 'A' },
    { path: 'projects/the.md', type: 'project', title: 'The One', aliases: ['it'] },
    { path: 'decisions/old.md', type: 'decision', frontmatter: { status: 'superseded' }, links: ['projects/atlas.md'] },
    { path: 'decisions/older.md', type: 'decision', frontmatter: { status: 'accepted', superseded_by: '[[decisions/new]]' }, links: ['decisions/new.md'] },
    { path: 'decisions/new.md', type: 'decision', frontmatter: { status: 'accepted', replaces: '[[old]]' }, links: ['projects/atlas.md', 'decisions/old.md'] },
    { path: 'decisions/other.md', type: 'decision', frontmatter: { status: 'accepted' } },
    { path: 'people/ada.md', type: 'person', links: ['projects/atlas.md'] },
    { path: 'sessions/s1.md', type: 'session', frontmatter: { ended: '2026-11-01T10:00:00Z' }, text: 'Atlas billing backfill.', committedAt: 3000 },
    { path: 'sessions/s2.md', type: 'session', frontmatter: { ended: '2026-11-10T10:00:00Z' }, text: 'Atlas billing.', committedAt: 1000 },
    { path: 'sessions/s3.md', type: 'session', frontmatter: { ended: '2026-11-20T10:00:00Z' }, text: 'Comet.', committedAt: 2000 },
    { path: 'notes/x.md' },
  ]);

  it('reads type words, keeping only types the vault has notes of', () => {
    expect(readQuestionFields('Why did we pick the queue?', corpus).types).toEqual(['decision']);
    expect(readQuestionFields('Who decided it?', corpus).types).toEqual(['decision', 'person', 'project']);
    expect(readQuestionFields('Which session last worked on it yesterday?', corpus).types).toEqual(['session']);
    // No skill notes in this vault: the cue asks for nothing.
    expect(readQuestionFields('How do I rotate keys?', corpus).types).toEqual([]);
    expect(readQuestionFields('Where is the queue?', corpus).types).toEqual([]);
    // Whole words: "whoever" and "decisiveness" are not cues.
    expect(readQuestionFields('whoever shows decisiveness', corpus).types).toEqual([]);
  });

  it('finds a project named by its title or an alias, whole words, case-folded; names too short or of stopwords only do not count', () => {
    expect(readQuestionFields('what did ATLAS choose', corpus).projects).toEqual(['projects/atlas.md']);
    expect(readQuestionFields('who runs the Map Service?', corpus).projects).toEqual(['projects/atlas.md']);
    expect(readQuestionFields('atlases and maps', corpus).projects).toEqual([]);
    expect(readQuestionFields('is it a thing', corpus).projects).toEqual([]);
    expect(readQuestionFields('the one ring', corpus).projects).toEqual(['projects/the.md']);
  });

  it('knows when a question asks for the newest match, and its topic without the cue words', () => {
    expect(readQuestionFields('Which session last worked on atlas billing?', corpus)).toEqual({
      types: ['session'],
      projects: ['projects/atlas.md'],
      recent: true,
      topic: 'which atlas billing',
    });
    expect(readQuestionFields('What lasts longest?', corpus).recent).toBe(false);
  });

  it('knows a superseded decision by its status or its superseded_by link', () => {
    expect(isSuperseded(corpus.byPath.get('decisions/old.md') as CorpusNote)).toBe(true);
    expect(isSuperseded(corpus.byPath.get('decisions/older.md') as CorpusNote)).toBe(true);
    expect(isSuperseded(corpus.byPath.get('decisions/new.md') as CorpusNote)).toBe(false);
    expect(isSuperseded({ ...(corpus.byPath.get('notes/x.md') as CorpusNote), frontmatter: { status: 'superseded' } })).toBe(false);
  });

  const hits = [
    { path: 'notes/x.md', score: 9 },
    { path: 'decisions/old.md', score: 8 },
    { path: 'people/ada.md', score: 7 },
    { path: 'decisions/older.md', score: 6 },
    { path: 'decisions/new.md', score: 5 },
    { path: 'decisions/other.md', score: 4 },
    { path: 'notes/x.md', score: 1 },
  ];
  const fields = (types: string[], projects: string[] = []) => ({ types, projects, recent: false, topic: '' });

  it('moves a superseded decision just below the current one that replaced it (its superseded_by, or their replaces)', () => {
    // old is replaced by new (new's `replaces`, a short link); older names new as its `superseded_by`.
    expect(orderByFields(corpus, hits, fields([]))).toEqual([
      'notes/x.md',
      'people/ada.md',
      'decisions/new.md',
      'decisions/older.md',
      'decisions/old.md',
      'decisions/other.md',
    ]);
  });

  it('orders the asked-for types first, then within them the named project, then score', () => {
    expect(orderByFields(corpus, hits, fields(['decision']))).toEqual([
      'decisions/new.md',
      'decisions/older.md',
      'decisions/old.md',
      'decisions/other.md',
      'notes/x.md',
      'people/ada.md',
    ]);
    // ada is a person of atlas; old and new are atlas's; x, older and other are neither.
    expect(orderByFields(corpus, hits, fields(['person'], ['projects/atlas.md']))).toEqual([
      'people/ada.md',
      'decisions/new.md',
      'decisions/old.md',
      'notes/x.md',
      'decisions/older.md',
      'decisions/other.md',
    ]);
  });

  it('puts the newest of the notes holding most of the topic first when the question asks for the last one, by date field', () => {
    const sessionHits = [
      { path: 'sessions/s1.md', score: 9 },
      { path: 'sessions/s3.md', score: 8 },
      { path: 'notes/x.md', score: 7 },
      { path: 'sessions/s2.md', score: 3 },
    ];
    const asked = readQuestionFields('Which session last worked on atlas billing?', corpus);
    // s2 ended after s1 (its commit is older: the date field counts); s3 is newest but about something else.
    expect(orderByFields(corpus, sessionHits, asked)).toEqual(['sessions/s2.md', 'sessions/s1.md', 'sessions/s3.md', 'notes/x.md']);
    expect(orderByFields(corpus, sessionHits, { ...asked, recent: false })).toEqual(['sessions/s1.md', 'sessions/s3.md', 'sessions/s2.md', 'notes/x.md']);
  });
});

describe('keyword-links: one hop, lent by what the linked pair covers together', () => {
  const corpus = corpusOf([
    { path: 'people/zora.md', text: 'Zora Fenwick, engineer.' },
    { path: 'projects/lynx.md', text: 'Owner: Zora Fenwick.', links: ['people/zora.md'] },
    { path: 'decisions/lynx-db.md', text: 'We picked a database for storage.', links: ['projects/lynx.md'] },
    { path: 'decisions/lynx-echo.md', text: 'Zora Fenwick wrote about database storage.', links: ['projects/lynx.md'] },
    { path: 'decisions/lynx-none.md', text: 'Release train every Tuesday.', links: ['projects/lynx.md'] },
    { path: 'decisions/other-db.md', text: 'Database storage storage storage.' },
  ]);
  const question = 'Which database storage did Zora Fenwick pick?';
  const hits = [
    { path: 'people/zora.md', score: 10 },
    { path: 'projects/lynx.md', score: 8 },
    { path: 'decisions/other-db.md', score: 4 },
    { path: 'decisions/lynx-echo.md', score: 3 },
    { path: 'decisions/lynx-db.md', score: 2 },
  ];

  it("lends a neighbour its parent's score for the part of the question the pair covers beyond either alone", () => {
    const ranked = rerankWithLinks(question, corpus, hits);
    const byPath = new Map(ranked.map((s) => [s.path, s]));
    const db = byPath.get('decisions/lynx-db.md');
    expect(db?.via).toBe('projects/lynx.md');
    // database, storage and pick are the pair's beyond the project's zora and fenwick, which outweigh them:
    // the gain is the share of zora + fenwick (equal idf, df 3 of 6: 2 × ln 2 of 4 × ln 2 + ln(1 + 5.5/1.5)).
    const share = (2 * Math.log(2)) / (4 * Math.log(2) + Math.log(1 + 5.5 / 1.5));
    expect(db?.lent).toBeCloseTo(8 * share, 6);
    expect(ranked.map((s) => s.path).indexOf('decisions/lynx-db.md')).toBeLessThan(ranked.map((s) => s.path).indexOf('decisions/other-db.md'));
    // It already holds the parent's words (search found it on its own): nothing lent.
    expect(byPath.get('decisions/lynx-echo.md')?.lent).toBe(0);
    // It holds nothing of the question: nothing lent, and it does not come in.
    expect(byPath.has('decisions/lynx-none.md')).toBe(false);
    // A note no parent links to keeps its own score.
    expect(byPath.get('decisions/other-db.md')).toMatchObject({ own: 4, lent: 0, via: null });
  });

  it('keeps search order with no links at all', () => {
    const flat = corpusOf(corpus.notes.map((n) => ({ ...n, links: [], backlinks: [] })));
    expect(rerankWithLinks(question, flat, hits).map((s) => s.path)).toEqual(hits.map((h) => h.path));
  });
});
