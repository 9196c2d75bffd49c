import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../lib/vault/ids';
import { type FileStamp, type SearchHit, SearchIndex, type SearchOptions } from '../../lib/vault/search/search-index';
import type { IndexableNote } from '../../lib/vault/search/index-parse';
import { prepareFixture, questionSetFile } from '../../scripts/search-recall';
import { haveFixtures } from '../support/fixtures';
import { referenceSearch } from '../support/search-reference';

/**
 * Issue 18 made `SearchIndex.search` one pass over each term's matches with the ranking done in
 * JavaScript; the ranking itself must not move. These tests compare every hit (path, order, title,
 * type, score to 1e-9, snippet) with the single SQL statement search used before (the reference), on a
 * generated index with a small vocabulary (most notes match, exact ties between duplicate notes) and on
 * real vaults, with and without filters, prefix matching and limits, and after writes from this
 * connection and from another one.
 */

const WORDS = (
  'ledger invoice postgres webhook retry billing audit migration schema backup deploy release cache queue ' +
  'worker token session alert metric latency index search vault commit branch review design budget ' +
  'customer contract pricing refund tax report dashboard onboarding roadmap hiring incident outage'
).split(' ');
const FOLDERS = ['decisions', 'projects', 'Daily Notes/2023', 'Daily Notes/2024', 'sessions', 'inbox', 'changelog', 'evals', 'notes/été', ''];
const TYPES = [null, 'decision', 'project', 'session', 'person', 'skill', 'inbox', 'eval-run'];

function expectSame(got: SearchHit[], want: SearchHit[], label: string): void {
  const apart = got.length !== want.length || got.some((hit, i) => Math.abs(hit.score - want[i].score) >= 1e-9);
  const same = (hits: SearchHit[]) => hits.map((h) => [h.path, h.title, h.type, h.snippet].join('|'));
  if (apart || same(got).join('\n') !== same(want).join('\n')) expect(got, label).toEqual(want);
}

function optionSets(projects: string[], folders: string[]): SearchOptions[] {
  return [
    {},
    { limit: 1 },
    { limit: 5 },
    { limit: 200 },
    { prefix: true },
    { prefix: true, limit: 50 },
    { includeSystem: true, limit: 100 },
    { systemPrefixes: ['decisions/', 'Home.md'], limit: 50 },
    { type: 'decision' },
    { type: 'session', limit: 50 },
    { type: 'inbox' },
    { type: 'nothing-has-this' },
    ...projects.map((project) => ({ project, limit: 30 })),
    ...folders.map((folder) => ({ folder, limit: 30 })),
    { folder: 'inbox' },
    { folder: './Daily Notes/', type: 'decision', limit: 10 },
  ];
}

describe('one-pass search equals the reference query', () => {
  let dir: string;
  let dbPath: string;
  let index: SearchIndex;
  let reference: Database.Database;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-onepass-'));
    dbPath = path.join(dir, 'search.sqlite');
    index = SearchIndex.open(dbPath);
    reference = new Database(dbPath, { readonly: true });
  });
  afterEach(() => {
    reference.close();
    index.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function generated(count: number, seed: number): IndexableNote[] {
    const random = mulberry32(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ');
    const notes: IndexableNote[] = [];
    for (let i = 0; i < count; i++) {
      const folder = pick(FOLDERS);
      const notePath = `${folder ? `${folder}/` : ''}${words(2).replace(' ', '-')}-${i}.md`;
      notes.push(
        note(notePath, {
          title: words(1 + Math.floor(random() * 3)),
          type: pick(TYPES),
          project: random() < 0.4 ? `projects/${pick(WORDS)}.md` : null,
          aliases: random() < 0.2 ? [words(2)] : [],
          tags: random() < 0.3 ? [pick(WORDS)] : [],
          headings: [words(3)],
          fields: random() < 0.5 ? `status ${words(2)}` : '',
          body: `${words(10 + Math.floor(random() * 60))}.\n\n${words(20)} «quoted» ${words(5)}`,
        }),
      );
    }
    // Identical notes score exactly alike: their order is the paths' byte order (UTF-8), in which
    // U+FF21 sorts before an emoji although its UTF-16 code unit is larger.
    for (const name of ['dup/a.md', 'dup/é.md', 'dup/\uFF21.md', 'dup/😀.md', 'dup/B.md']) {
      notes.push(note(name, { title: 'twin', body: 'ledger invoice twin twin audit' }));
    }
    return notes;
  }

  function queries(seed: number): string[] {
    const random = mulberry32(seed);
    const out = ['ledger', 'ledger invoice', 'the and of', '', 'zzzunknown', 'zzzunknown ledger', 'led', 'ledger inv', 'twin audit', 'in', 'é'];
    for (let i = 0; i < 20; i++) {
      out.push(Array.from({ length: 1 + Math.floor(random() * 6) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' '));
    }
    return out;
  }

  function compareAll(label: string): void {
    const projects = ['projects/ledger.md', 'projects/audit', 'projects/none.md'];
    for (const options of optionSets(projects, ['decisions', 'Daily Notes', 'Daily Notes/2023/', 'notes/été', 'dup'])) {
      for (const q of queries(7)) {
        const tag = `${label} ${JSON.stringify(q)} ${JSON.stringify(options)}`;
        expectSame(index.search(q, options), referenceSearch(reference, q, options), tag);
      }
    }
  }

  it('on a generated index where most notes match, before and after writes from two connections', () => {
    const notes = generated(400, 18);
    const byPath = new Map(notes.map((n) => [n.path, n]));
    index.sync(notes.map(stampOf), (p) => byPath.get(p) ?? null);
    const twins = index.search('twin audit', { limit: 5 });
    expect(twins.map((h) => h.path)).toEqual(['dup/B.md', 'dup/a.md', 'dup/é.md', 'dup/\uFF21.md', 'dup/😀.md']);
    compareAll('fresh');

    // Writes on this connection: an upsert that changes type, path filters' fields and text, a removal, a new note.
    const changed = { ...notes[3], type: 'session', project: 'projects/ledger.md', title: 'ledger ledger', body: 'ledger audit twin' };
    index.upsert(changed, stampOf(changed, 2_000));
    index.remove(notes[4].path);
    const added = note('decisions/new-ledger.md', { type: 'decision', body: 'ledger invoice postgres ledger' });
    index.upsert(added, stampOf(added));
    compareAll('after own writes');

    // Writes on another connection to the same file are seen too.
    const other = SearchIndex.open(dbPath);
    try {
      other.remove(notes[5].path);
      const elsewhere = note('inbox/from-elsewhere.md', { type: 'inbox', title: 'ledger', body: 'ledger ledger webhook' });
      other.upsert(elsewhere, stampOf(elsewhere));
    } finally {
      other.close();
    }
    compareAll('after another connection wrote');
    expect(index.search('webhook ledger', { folder: 'inbox' }).map((h) => h.path)).toContain('inbox/from-elsewhere.md');
  });

  it('after a failed sync, the index and its search are as before', () => {
    const notes = generated(80, 3);
    const byPath = new Map(notes.map((n) => [n.path, n]));
    index.sync(notes.map(stampOf), (p) => byPath.get(p) ?? null);
    const before = index.search('ledger audit', { limit: 50 });
    expect(() =>
      index.sync(
        notes.map((n) => stampOf(n, 5_000)),
        (p) => (p === notes[60].path ? { ...byPath.get(p)!, path: 'elsewhere.md' } : { ...byPath.get(p)!, hash: 'x', body: 'zzz' }),
      ),
    ).toThrow();
    expect(index.search('ledger audit', { limit: 50 })).toEqual(before);
    compareAll('after a failed sync');
  });
});

describe.skipIf(!haveFixtures)('one-pass search equals the reference query on real vaults', () => {
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });

  for (const fixture of ['obsidian-tasks-docs', 'kepano-obsidian'] as const) {
    it.skipIf(!questionSetFile(fixture))(
      `${fixture}: every question, with and without filters`,
      async () => {
        const { vault, questions, cleanup } = await prepareFixture(fixture);
        cleanups.push(cleanup);
        await vault.syncSearch();
        await vault.close();
        const dbPath = path.join(vault.root, '.lucid', 'search.sqlite');
        const index = SearchIndex.open(dbPath);
        const reference = new Database(dbPath, { readonly: true });
        try {
          const folders = [...new Set((reference.prepare('SELECT folder FROM notes').pluck().all() as string[]).filter(Boolean))].slice(0, 4);
          const projects = (reference.prepare('SELECT DISTINCT project FROM notes WHERE project IS NOT NULL LIMIT 2').pluck().all() as string[]) ?? [];
          const texts = [...questions.map((q) => q.question), 'task', 'tas', 'recurring task due date', 'memory protocol agents'];
          for (const options of optionSets(projects, folders)) {
            for (const q of texts) expectSame(index.search(q, options), referenceSearch(reference, q, options), `${fixture} ${q} ${JSON.stringify(options)}`);
          }
        } finally {
          reference.close();
          index.close();
        }
      },
      180_000,
    );
  }
});

function note(notePath: string, fields: Partial<Omit<IndexableNote, 'path' | 'hash'>> = {}): IndexableNote {
  const base = { title: path.posix.basename(notePath, '.md'), type: null, project: null, aliases: [], tags: [], headings: [], fields: '', body: '', ...fields };
  const hash = createHash('sha256').update(JSON.stringify(base)).digest('hex');
  return { path: notePath, hash, ...base };
}

function stampOf(n: IndexableNote, mtimeMs = 1_000): FileStamp {
  return { path: n.path, mtimeMs, size: n.body.length };
}
