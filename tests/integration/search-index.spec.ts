import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../../lib/vault/errors';
import { SEARCH_SCHEMA_VERSION, SearchIndex, type FileStamp } from '../../lib/vault/search/search-index';
import type { IndexableNote } from '../../lib/vault/search/index-parse';

let dir: string;
let dbPath: string;
let index: SearchIndex;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-search-'));
  dbPath = path.join(dir, '.lucid', 'search.db');
  index = SearchIndex.open(dbPath);
});

afterEach(() => {
  index.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function note(notePath: string, fields: Partial<Omit<IndexableNote, 'path' | 'hash'>> = {}): IndexableNote {
  const base = {
    title: path.posix.basename(notePath, '.md'),
    type: null,
    project: null,
    aliases: [],
    tags: [],
    headings: [],
    fields: '',
    body: '',
    ...fields,
  };
  const hash = createHash('sha256').update(JSON.stringify(base)).digest('hex');
  return { path: notePath, hash, ...base };
}

function stampOf(n: IndexableNote, mtimeMs = 1_000): FileStamp {
  return { path: n.path, mtimeMs, size: n.body.length };
}

/** Indexes the notes with `sync`, as a fresh vault listing would. */
function indexNotes(...notes: IndexableNote[]): void {
  const byPath = new Map(notes.map((n) => [n.path, n]));
  index.sync(
    notes.map((n) => stampOf(n)),
    (p) => byPath.get(p) ?? null,
  );
}

function paths(query: string, options?: Parameters<SearchIndex['search']>[1]): string[] {
  return index.search(query, options).map((hit) => hit.path);
}

function rawDb(): Database.Database {
  return new Database(dbPath);
}

describe('SearchIndex ranking', () => {
  it('ranks a title match above a body match', () => {
    indexNotes(
      note('notes/mentions.md', { body: 'We talked about postgres once, among other things.' }),
      note('decisions/postgres.md', { title: 'Postgres', body: 'The primary database.' }),
    );
    const hits = index.search('postgres');
    expect(hits.map((h) => h.path)).toEqual(['decisions/postgres.md', 'notes/mentions.md']);
    expect(hits[0].score).toBeGreaterThan(hits[1].score);
  });

  it('ranks aliases, headings and tags above a mention in the body', () => {
    // As notes are indexed: a heading and an inline tag are in the body too, so they count twice.
    indexNotes(
      note('a.md', { body: 'We might move the event bus to kafka later on.' }),
      note('b.md', { aliases: ['Kafka'], body: 'Event bus.' }),
      note('c.md', { headings: ['Kafka rollout'], body: '# Kafka rollout\n\nPlan.' }),
      note('d.md', { tags: ['kafka'], body: 'Notes. #kafka' }),
    );
    const ranked = paths('kafka');
    expect(ranked).toHaveLength(4);
    expect(ranked[ranked.length - 1]).toBe('a.md');
  });

  it('finds words by their stem', () => {
    indexNotes(
      note('decisions/use-postgres.md', { body: 'We decided on Postgres after the load test.' }),
      note('decisions/list.md', { body: 'All decisions of the quarter.' }),
      note('other.md', { body: 'Nothing relevant here.' }),
    );
    expect(paths('When were we deciding about the database?')).toEqual(['decisions/use-postgres.md']);
    expect(paths('decision log')).toEqual(['decisions/list.md']);
  });

  it('finds words that are only in the body', () => {
    indexNotes(
      note('projects/atlas.md', { title: 'Atlas', body: 'The rollout uses a blue-green deployment on Fridays.' }),
      note('projects/zephyr.md', { title: 'Zephyr', body: 'A small experiment.' }),
    );
    expect(paths('How do we deploy with blue green?')).toEqual(['projects/atlas.md']);
  });

  it('finds front-matter fields', () => {
    indexNotes(note('people/ada.md', { fields: 'Ada Lovelace staff engineer ada@example.com' }));
    expect(paths('who is the staff engineer')).toEqual(['people/ada.md']);
  });

  it('ranks notes that match more of the question higher', () => {
    indexNotes(note('one.md', { body: 'postgres' }), note('both.md', { body: 'postgres replication' }));
    expect(paths('postgres replication setup')).toEqual(['both.md', 'one.md']);
  });

  it('matches the last word as a prefix while it is being typed, only when asked to', () => {
    indexNotes(note('decisions/use-postgres.md', { body: 'Postgres replication.' }));
    expect(paths('postgres repl', { prefix: true })).toEqual(['decisions/use-postgres.md']);
    expect(paths('repl', { prefix: true })).toEqual(['decisions/use-postgres.md']);
    expect(paths('repl ', { prefix: true })).toEqual([]);
    expect(paths('repl')).toEqual([]);
  });

  it('never matches "reps" to "repo" without the prefix option', () => {
    indexNotes(note('projects/tooling.md', { body: 'The repo lives on the build server.' }));
    expect(paths('reps')).toEqual([]);
    expect(paths('reps', { prefix: false })).toEqual([]);
    expect(paths('repo')).toEqual(['projects/tooling.md']);
    expect(paths('reps', { prefix: true })).toEqual(['projects/tooling.md']);
  });

  it('returns hits in descending score order', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `word${i % 41}`).join(' ');
    indexNotes(
      note('a.md', { body: 'zeppelin zeppelin zeppelin zeppelin' }),
      note('b.md', { body: `The zeppelin budget was approved after a review of the hangar costs. ${filler(80)}` }),
      note('c.md', { body: 'budget notes' }),
      note('d.md', { title: 'Hangar', body: `${filler(40)} costs` }),
      note('e.md', { type: 'session', body: 'zeppelin budget hangar costs review' }),
      note('f.md', { aliases: ['Airship budget'], body: filler(10) }),
      note('g.md', { headings: ['Zeppelin review'], tags: ['budget'], body: filler(200) }),
    );
    for (const question of ['zeppelin budget', 'hangar costs review', 'airship budget zeppelin', 'budget', 'review of the zeppelin hangar budget costs']) {
      const scores = index.search(question, { limit: 200 }).map((hit) => hit.score);
      expect(scores.length, question).toBeGreaterThan(1);
      expect(scores, question).toEqual([...scores].sort((x, y) => y - x));
    }
  });

  it('ranks a title match above a long note that mentions the words', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `topic${i % 53}`).join(' ');
    indexNotes(
      note('notes/deploy-checklist.md', { title: 'Deploy checklist', body: 'Build, tag, ship, then watch the error rate for an hour.' }),
      note('notes/meeting.md', {
        title: 'Weekly meeting',
        body: `${filler(150)} we went over the deploy checklist ${filler(150)} the deploy went fine and the checklist was updated`,
      }),
      ...Array.from({ length: 10 }, (_, i) => note(`notes/other-${i}.md`, { body: filler(30 + i) })),
    );
    expect(paths('what is on the deploy checklist?')).toEqual(['notes/deploy-checklist.md', 'notes/meeting.md']);
    expect(paths('deploy checklist')).toEqual(['notes/deploy-checklist.md', 'notes/meeting.md']);
  });

  it('ranks a title or alias match above a note of the same length that mentions the words twice', () => {
    const filler = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i % 53}`).join(' ');
    indexNotes(
      note('notes/deploy-checklist.md', { title: 'Deploy checklist', body: filler(300, 'step') }),
      note('notes/meeting.md', { title: 'Weekly meeting', body: `${filler(150, 'topic')} deploy checklist ${filler(148, 'topic')} deploy checklist` }),
      note('notes/runbook.md', { title: 'Runbook', aliases: ['Rollback plan'], body: filler(300, 'step') }),
      note('notes/retro.md', { title: 'Retro', body: `${filler(150, 'topic')} rollback plan ${filler(148, 'topic')} rollback plan` }),
      ...Array.from({ length: 10 }, (_, i) => note(`notes/other-${i}.md`, { body: filler(300, 'other') })),
    );
    expect(paths('deploy checklist')).toEqual(['notes/deploy-checklist.md', 'notes/meeting.md']);
    expect(paths('the rollback plan')).toEqual(['notes/runbook.md', 'notes/retro.md']);
  });

  it('ranks an alias match like a title match', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `topic${i % 53}`).join(' ');
    indexNotes(
      note('people/ada.md', { title: 'Ada Lovelace', aliases: ['countess of computing'], body: 'Wrote the first program, for the analytical engine.' }),
      note('notes/history.md', { body: `${filler(200)} a countess, and computing history ${filler(100)}` }),
      ...Array.from({ length: 10 }, (_, i) => note(`notes/other-${i}.md`, { body: filler(30 + i) })),
    );
    expect(paths('countess of computing')).toEqual(['people/ada.md', 'notes/history.md']);
  });

  it('ranks a session note below an ordinary note of equal relevance', () => {
    const body = 'The cache eviction policy is LRU with a ten minute TTL.';
    indexNotes(note('sessions/cache.md', { type: 'session', title: 'Cache tuning', body }), note('notes/cache.md', { title: 'Cache tuning', body }));
    const hits = index.search('cache eviction policy');
    expect(hits.map((h) => h.path)).toEqual(['notes/cache.md', 'sessions/cache.md']);
    expect(hits[1].score).toBeLessThan(hits[0].score);
  });

  it('ranks a far more relevant session note above a barely relevant ordinary note', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `topic${i % 53}`).join(' ');
    indexNotes(
      note('sessions/cache.md', { type: 'session', title: 'Cache eviction policy', body: 'Chose LRU eviction for the cache.' }),
      note('notes/misc.md', { body: `${filler(300)} cache` }),
    );
    expect(paths('cache eviction policy')).toEqual(['sessions/cache.md', 'notes/misc.md']);
  });

  it('finds words in other scripts and ignores emoji', () => {
    indexNotes(
      note('ru.md', { body: 'Мы выбрали базу данных Postgres.' }),
      note('zh.md', { body: '我们 决定 使用 数据库' }),
      note('fr.md', { body: 'Le café est très naïf.' }),
    );
    expect(paths('база данных 🚀')).toEqual(['ru.md']);
    expect(paths('数据库')).toEqual(['zh.md']);
    expect(paths('cafe naif')).toEqual(['fr.md']);
    expect(index.search('🚀🔥❤️')).toEqual([]);
  });

  it('returns [] for a question of only stopwords or punctuation', () => {
    indexNotes(note('a.md', { body: 'what is the plan' }));
    expect(index.search('What is the?')).toEqual([]);
    expect(index.search('   ')).toEqual([]);
    expect(index.search('?!')).toEqual([]);
  });

  it('never throws on hostile questions', () => {
    indexNotes(note('a.md', { title: 'Near and far', body: 'NOT a drill: "quoted" (parens) * star - minus \'single\'' }));
    const hostile = [
      '"',
      '""',
      '*',
      '**',
      'NEAR(',
      'NEAR(a b',
      ')',
      '(',
      '-',
      '- near',
      "'",
      ':',
      'title:',
      'body:near',
      'AND',
      'OR OR',
      'NOT',
      'near NOT',
      '^',
      '+',
      '{title}: x',
      '\\',
      '\u0000',
      'a'.repeat(10_000),
      'drill " OR * NEAR( ) - \' :',
      '\uD800',
      '👩‍👩‍👧‍👦',
      '1️⃣',
    ];
    for (const query of hostile) {
      expect(() => index.search(query), query).not.toThrow();
    }
    expect(paths('NEAR(')).toEqual(['a.md']);
    expect(paths('"drill')).toEqual(['a.md']);
  });
});

describe('SearchIndex snippets', () => {
  it('wraps matched terms in guillemets on one line of plain text', () => {
    indexNotes(note('a.md', { body: '# Plan\n\nWe chose **Postgres**\nfor the ledger.' }));
    const [hit] = index.search('postgres ledger');
    expect(hit.snippet).toBe('# Plan We chose **«Postgres»** for the «ledger».');
  });

  it('shows guillemets from the note as single ones so that « » only mark matches', () => {
    indexNotes(note('fr.md', { body: 'Il a dit «bonjour» au café.' }));
    expect(index.search('cafe')[0].snippet).toBe('Il a dit ‹bonjour› au «café».');
  });

  it('shows the start of the body when only the title matched', () => {
    indexNotes(note('projects/atlas.md', { title: 'Atlas', body: 'Our billing platform.' }));
    expect(index.search('atlas')[0].snippet).toBe('Our billing platform.');
  });

  it('falls back to the title when the body is empty', () => {
    indexNotes(note('projects/atlas.md', { title: 'Atlas', body: '' }));
    expect(index.search('atlas')[0]).toMatchObject({ title: 'Atlas', snippet: '«Atlas»' });
  });

  it('trims long bodies around the match', () => {
    const filler = Array.from({ length: 200 }, (_, i) => `filler${i}`).join(' ');
    indexNotes(note('long.md', { body: `${filler} needle ${filler}` }));
    const [hit] = index.search('needle');
    expect(hit.snippet).toContain('«needle»');
    expect(hit.snippet).toMatch(/^….*…$/);
    expect(hit.snippet.length).toBeLessThan(400);
  });
});

describe('SearchIndex filters', () => {
  beforeEach(() => {
    indexNotes(
      note('decisions/use-postgres.md', { type: 'decision', project: 'projects/atlas.md', body: 'database choice' }),
      note('decisions/2023/use-redis.md', { type: 'decision', project: 'projects/zephyr.md', body: 'database cache' }),
      note('Daily Notes/2023/2023-01-02.md', { body: 'database outage today' }),
      note('Daily Notes/2024/2024-01-02.md', { body: 'database upgrade' }),
      note('decisionsextra/x.md', { body: 'database elsewhere' }),
      note('100%_done/a.md', { body: 'database percent' }),
      note('100xxdone/b.md', { body: 'database lookalike' }),
      note('projects/atlas.md', { type: 'project', body: 'database platform' }),
      note('inbox/2026-01-01-000000-proposal.md', { body: 'database proposal' }),
      note('changelog.md', { body: 'database changelog line' }),
      note('changelog/2025-12.md', { body: 'database old changelog' }),
      note('evals/runs/2026-01-01-0000-recall.md', { type: 'eval-run', body: 'database eval' }),
      note('AGENTS.md', { body: 'database protocol' }),
    );
  });

  it('filters by type', () => {
    expect(paths('database', { type: 'decision' }).sort()).toEqual(['decisions/2023/use-redis.md', 'decisions/use-postgres.md']);
    expect(paths('database', { type: 'person' })).toEqual([]);
  });

  it('filters by project, with or without .md', () => {
    expect(paths('database', { project: 'projects/atlas.md' })).toEqual(['decisions/use-postgres.md']);
    expect(paths('database', { project: 'projects/zephyr' })).toEqual(['decisions/2023/use-redis.md']);
  });

  it('filters by folder on whole path segments, including subfolders', () => {
    expect(paths('database', { folder: 'decisions' }).sort()).toEqual(['decisions/2023/use-redis.md', 'decisions/use-postgres.md']);
    expect(paths('database', { folder: 'Daily Notes/2023' })).toEqual(['Daily Notes/2023/2023-01-02.md']);
    expect(paths('database', { folder: '/Daily Notes/2023/' })).toEqual(['Daily Notes/2023/2023-01-02.md']);
    expect(paths('database', { folder: 'Daily Notes/20' })).toEqual([]);
    expect(paths('database', { folder: 'decision' })).toEqual([]);
    expect(paths('database', { folder: 'daily notes' })).toEqual([]);
  });

  it('treats % and _ in folder names as plain characters', () => {
    expect(paths('database', { folder: '100%_done' })).toEqual(['100%_done/a.md']);
    expect(paths('database', { folder: '100%' })).toEqual([]);
    expect(paths('database', { folder: '%' })).toEqual([]);
    expect(paths('database', { folder: '_' })).toEqual([]);
  });

  it('combines filters', () => {
    expect(paths('database', { type: 'decision', folder: 'decisions/2023', project: 'projects/zephyr.md' })).toEqual(['decisions/2023/use-redis.md']);
    expect(paths('database', { type: 'decision', project: 'projects/atlas.md', folder: 'decisions/2023' })).toEqual([]);
  });

  it("leaves out Lucid's own files unless asked", () => {
    const everyday = paths('database', { limit: 200 });
    expect(everyday).toHaveLength(8);
    expect(everyday.some((p) => p.startsWith('inbox/') || p.startsWith('changelog') || p.startsWith('evals/') || p === 'AGENTS.md')).toBe(false);
    expect(paths('database', { includeSystem: true, limit: 200 })).toHaveLength(13);
  });

  it('searches evaluation runs when the type filter asks for them', () => {
    expect(paths('database', { type: 'eval-run' })).toEqual(['evals/runs/2026-01-01-0000-recall.md']);
  });

  it('uses the system prefixes it is given', () => {
    const found = paths('database', { systemPrefixes: ['Daily Notes/'], limit: 200 });
    expect(found).toHaveLength(11);
    expect(found).toContain('inbox/2026-01-01-000000-proposal.md');
    expect(found.some((p) => p.startsWith('Daily Notes/'))).toBe(false);
  });

  it('searches a system folder when the folder filter asks for it', () => {
    expect(paths('database', { folder: 'inbox' })).toEqual(['inbox/2026-01-01-000000-proposal.md']);
    expect(paths('database', { folder: 'evals/runs' })).toEqual(['evals/runs/2026-01-01-0000-recall.md']);
  });

  it('limits the hits, to at most 200', () => {
    expect(paths('database', { limit: 3 })).toHaveLength(3);
    expect(paths('database', { limit: 0 })).toHaveLength(1);
    const many = Array.from({ length: 230 }, (_, i) => note(`bulk/n${i}.md`, { body: 'zebra' }));
    indexNotes(...many);
    expect(paths('zebra')).toHaveLength(20);
    expect(paths('zebra', { limit: 1_000 })).toHaveLength(200);
  });
});

describe('SearchIndex sync', () => {
  it('adds, skips unchanged stamps, updates changed content and removes missing files', () => {
    const a = note('a.md', { body: 'alpha' });
    const b = note('b.md', { body: 'bravo' });
    const c = note('c.md', { body: 'charlie' });
    const disk = new Map([a, b, c].map((n) => [n.path, n]));
    const loaded: string[] = [];
    const load = (p: string) => {
      loaded.push(p);
      return disk.get(p) ?? null;
    };

    expect(index.sync([stampOf(a), stampOf(b), stampOf(c)], load)).toEqual({
      added: 3,
      updated: 0,
      removed: 0,
      unchanged: 0,
      skipped: 0,
    });
    expect(index.count()).toBe(3);

    loaded.length = 0;
    expect(index.sync([stampOf(a), stampOf(b), stampOf(c)], load)).toEqual({
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: 3,
      skipped: 0,
    });
    expect(loaded).toEqual([]);

    const b2 = note('b.md', { body: 'bravissimo' });
    disk.set('b.md', b2);
    disk.delete('c.md');
    loaded.length = 0;
    expect(index.sync([stampOf(a), stampOf(b2, 2_000)], load)).toEqual({
      added: 0,
      updated: 1,
      removed: 1,
      unchanged: 1,
      skipped: 0,
    });
    expect(loaded).toEqual(['b.md']);
    expect(paths('bravissimo')).toEqual(['b.md']);
    expect(paths('bravo')).toEqual([]);
    expect(paths('charlie')).toEqual([]);
    expect(index.count()).toBe(2);
  });

  it('counts a touched file with the same hash as unchanged and stores its new stamp', () => {
    const a = note('a.md', { body: 'alpha' });
    const load = (p: string) => (p === 'a.md' ? a : null);
    index.sync([stampOf(a, 1_000)], load);

    let loads = 0;
    const counting = (p: string) => {
      loads++;
      return load(p);
    };
    expect(index.sync([stampOf(a, 5_000.5)], counting)).toEqual({
      added: 0,
      updated: 0,
      removed: 0,
      unchanged: 1,
      skipped: 0,
    });
    expect(loads).toBe(1);
    expect(index.sync([stampOf(a, 5_000.5)], counting).unchanged).toBe(1);
    expect(loads).toBe(1);

    const db = rawDb();
    expect(db.prepare('SELECT mtime_ms, size, hash FROM notes WHERE path = ?').get('a.md')).toEqual({
      mtime_ms: 5_000.5,
      size: 5,
      hash: a.hash,
    });
    db.close();
  });

  it('leaves out files it cannot read and drops their old entry', () => {
    const a = note('a.md', { body: 'alpha' });
    index.sync([stampOf(a)], () => a);
    expect(index.sync([stampOf(a, 2_000), { path: 'bin.md', mtimeMs: 1, size: 9 }], () => null)).toEqual({
      added: 0,
      updated: 0,
      removed: 1,
      unchanged: 0,
      skipped: 2,
    });
    expect(index.count()).toBe(0);
  });

  it('writes nothing when load throws', () => {
    const a = note('a.md', { body: 'alpha' });
    index.sync([stampOf(a)], () => a);
    const b = note('b.md', { body: 'bravo' });
    expect(() =>
      index.sync([stampOf(b)], () => {
        throw new Error('disk gone');
      }),
    ).toThrow('disk gone');
    expect(paths('alpha')).toEqual(['a.md']);
    expect(index.count()).toBe(1);
  });

  it('refuses a malformed listing or a note loaded under another path', () => {
    const a = note('a.md');
    for (const bad of ['', '/abs.md', 'win\\path.md']) {
      expect(() => index.sync([{ path: bad, mtimeMs: 1, size: 1 }], () => null)).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    }
    let error: unknown;
    try {
      index.sync([{ path: 'b.md', mtimeMs: 1, size: 1 }], () => a);
    } catch (caught) {
      error = caught;
    }
    expect(isVaultError(error, 'invalid_input')).toBe(true);
    expect(index.count()).toBe(0);
  });

  it('stores notes in the table beside the full-text index', () => {
    indexNotes(note('decisions/use-postgres.md', { type: 'decision', project: 'projects/atlas.md', body: 'x' }));
    const db = rawDb();
    expect(db.prepare('SELECT path, title, type, project, folder, mtime_ms, size FROM notes').all()).toEqual([
      {
        path: 'decisions/use-postgres.md',
        title: 'use-postgres',
        type: 'decision',
        project: 'projects/atlas.md',
        folder: 'decisions',
        mtime_ms: 1_000,
        size: 1,
      },
    ]);
    expect(db.prepare('SELECT count(*) AS n FROM notes_fts').get()).toEqual({ n: 1 });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
  });
});

describe('SearchIndex upsert and remove', () => {
  it('upserts a note written by Lucid and replaces it on the next write', () => {
    const first = note('decisions/cache.md', { body: 'memcached' });
    index.upsert(first, stampOf(first));
    expect(paths('memcached')).toEqual(['decisions/cache.md']);

    const second = note('decisions/cache.md', { body: 'redis', type: 'decision' });
    index.upsert(second, stampOf(second, 2_000));
    expect(paths('memcached')).toEqual([]);
    expect(index.search('redis')).toMatchObject([{ path: 'decisions/cache.md', type: 'decision' }]);
    expect(index.count()).toBe(1);

    let loads = 0;
    index.sync([stampOf(second, 2_000)], () => {
      loads++;
      return second;
    });
    expect(loads).toBe(0);
  });

  it("refuses a note whose path is not its stamp's", () => {
    const a = note('a.md');
    expect(() => index.upsert(a, { path: 'b.md', mtimeMs: 1, size: 0 })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
  });

  it('removes a note, and ignores a path that is not indexed', () => {
    indexNotes(note('a.md', { body: 'alpha' }), note('b.md', { body: 'alpha' }));
    index.remove('a.md');
    index.remove('missing.md');
    expect(paths('alpha')).toEqual(['b.md']);
    expect(index.count()).toBe(1);
    const db = rawDb();
    expect(db.prepare('SELECT count(*) AS n FROM notes_fts').get()).toEqual({ n: 1 });
    db.close();
  });
});

describe('SearchIndex schema', () => {
  it('keeps the index when reopened with the same schema version', () => {
    indexNotes(note('a.md', { body: 'alpha' }));
    index.close();
    index = SearchIndex.open(dbPath);
    expect(paths('alpha')).toEqual(['a.md']);
  });

  it('rebuilds the index when the stored schema version differs', () => {
    indexNotes(note('a.md', { body: 'alpha' }));
    index.close();

    const db = rawDb();
    db.prepare("UPDATE meta SET value = '0' WHERE key = 'schema_version'").run();
    db.exec('CREATE TABLE leftover_from_v0 (x)');
    db.close();

    index = SearchIndex.open(dbPath);
    expect(index.count()).toBe(0);
    expect(index.search('alpha')).toEqual([]);

    const check = rawDb();
    expect(check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(SEARCH_SCHEMA_VERSION),
    });
    const tables = check.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all() as { name: string }[];
    expect(tables.map((t) => t.name)).not.toContain('leftover_from_v0');
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['meta', 'notes', 'notes_fts']));
    check.close();

    indexNotes(note('a.md', { body: 'alpha' }));
    expect(paths('alpha')).toEqual(['a.md']);
  });

  it('rebuilds an index that lost its version row', () => {
    indexNotes(note('a.md', { body: 'alpha' }));
    index.close();
    const db = rawDb();
    db.exec('DELETE FROM meta');
    db.close();
    index = SearchIndex.open(dbPath);
    expect(index.count()).toBe(0);
  });

  it('replaces a file that is not a SQLite database', () => {
    index.close();
    fs.rmSync(dbPath, { force: true });
    fs.rmSync(`${dbPath}-wal`, { force: true });
    fs.rmSync(`${dbPath}-shm`, { force: true });
    fs.writeFileSync(dbPath, 'this is not a database, just text that is long enough to look like a header '.repeat(20));
    index = SearchIndex.open(dbPath);
    expect(index.count()).toBe(0);
    indexNotes(note('a.md', { body: 'alpha' }));
    expect(paths('alpha')).toEqual(['a.md']);
  });

  it('reports a path it cannot create as an io_error', () => {
    const blocker = path.join(dir, 'file');
    fs.writeFileSync(blocker, '');
    expect(() => SearchIndex.open(path.join(blocker, 'search.db'))).toThrow(expect.objectContaining({ code: 'io_error' }));
  });

  it('sees notes another connection wrote', () => {
    const other = SearchIndex.open(dbPath);
    const a = note('a.md', { body: 'alpha' });
    other.upsert(a, stampOf(a));
    expect(paths('alpha')).toEqual(['a.md']);
    other.close();
  });
});

describe('coordination', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-search-coord-'));
    index = SearchIndex.open(path.join(dir, 'search.sqlite'));
  });
  afterEach(() => {
    index.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('ranks a note with every term of the question above one that repeats a single rare term', () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `topic${i % 53}`).join(' ');
    indexNotes(
      note('a.md', { body: 'zeppelin zeppelin zeppelin zeppelin' }),
      note('b.md', { body: 'The zeppelin budget was approved after a long review of the hangar costs and other things.' }),
      note('c.md', { body: 'budget notes' }),
      ...Array.from({ length: 10 }, (_, i) => note(`other-${i}.md`, { body: filler(10 + i) })),
    );
    expect(paths('zeppelin budget')[0]).toBe('b.md');
  });
});

describe('snippets of the hits returned', () => {
  it("each hit's snippet comes from its own note", () => {
    index.upsert(note('a.md', { body: 'The harbour crane lifts containers at dawn.' }), { path: 'a.md', mtimeMs: 1, size: 1 });
    index.upsert(note('b.md', { body: 'A crane is a tall wading bird of the marshes.' }), { path: 'b.md', mtimeMs: 1, size: 1 });
    index.upsert(note('c.md', { body: 'Nothing about that here.' }), { path: 'c.md', mtimeMs: 1, size: 1 });
    const hits = index.search('crane');
    expect(hits.map((h) => h.path).sort()).toEqual(['a.md', 'b.md']);
    expect(hits.find((h) => h.path === 'a.md')?.snippet).toContain('harbour «crane» lifts');
    expect(hits.find((h) => h.path === 'b.md')?.snippet).toContain('«crane» is a tall wading bird');
  });

  it('a body over 64 KB whose every line matches gets a snippet around its first match, marked as FTS5 marks', () => {
    const lines = Array.from({ length: 9000 }, (_, i) => `line ${i} sorting tasks by due date and priority`);
    const body = `Preface without the words.\n${lines.join('\n')}`;
    expect(body.length).toBeGreaterThan(64 * 1024);
    index.upsert(note('huge.md', { body }), { path: 'huge.md', mtimeMs: 1, size: body.length });
    index.upsert(note('small.md', { body: 'Sort the tasks by their due date.' }), { path: 'small.md', mtimeMs: 1, size: 1 });
    const hits = index.search('How do I sort tasks by due date and priority, newest first?');
    const huge = hits.find((h) => h.path === 'huge.md');
    expect(huge?.snippet).toMatch(/^Preface without the words\. line 0 «sorting» «tasks» by «due» «date» and «priority»/);
    expect(huge?.snippet.endsWith('…')).toBe(true);
    expect(huge?.snippet.length).toBeLessThan(400);
    expect(hits.find((h) => h.path === 'small.md')?.snippet).toBe('«Sort» the «tasks» by their «due» «date».');
  });
});
