import { describe, expect, it } from 'vitest';
import { fillerNotes } from '../../lib/vault/eval/filler';
import type { CorpusNote, EvalCorpus } from '../../lib/vault/eval/types';
import { parseFrontmatter } from '../../lib/vault/notes/frontmatter';

function note(path: string, text: string, frontmatter: Record<string, unknown> = {}, type: string | null = null): CorpusNote {
  return { path, title: path, aliases: [], type, frontmatter, text, links: [], backlinks: [], committedAt: 0 };
}

function corpusOf(notes: CorpusNote[]): EvalCorpus {
  return { commit: 'c'.repeat(40), notes, byPath: new Map(notes.map((n) => [n.path, n])) };
}

const decision =
  '---\ntype: decision\ndate: 2026-10-02\nproject: "[[projects/atlas]]"\nstatus: accepted\nsuperseded_by: "[[decisions/use-mysql]]"\naliases: [pg]\n---\n' +
  '# Use Postgres\n\nWe chose Postgres for the ledger because the load test showed steady latency. The billing team agreed after review.\n';
const corpus = corpusOf([
  note(
    'decisions/use-postgres.md',
    decision,
    { type: 'decision', date: '2026-10-02', project: '[[projects/atlas]]', status: 'accepted', superseded_by: '[[decisions/use-mysql]]', aliases: ['pg'] },
    'decision',
  ),
  note('projects/atlas.md', '# Atlas\n\nAtlas moves the ledger to a new database. Billing owns the migration and the rollout plan.\n'),
  note('projects/hermes.md', '# Hermes\n\nHermes sends the invoices. The queue retries failed deliveries every hour.\n'),
  note('daily.md', 'Met Ada about the rollout. She wants the ledger migration done before the audit in [[projects/atlas|Atlas]].\n'),
]);

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;
const vocabulary = new Set(corpus.notes.flatMap((n) => (n.text.match(WORD) ?? []).map((w) => w.toLowerCase())));

describe('fillerNotes', () => {
  it('gives the same notes for the same corpus, count and seed, and other notes for another seed', () => {
    const a = fillerNotes(corpus, 8);
    expect(fillerNotes(corpus, 8)).toEqual(a);
    expect(fillerNotes(corpus, 8, { seed: 99 })).not.toEqual(a);
  });

  it('makes a larger count by adding notes after the ones of a smaller count', () => {
    const small = fillerNotes(corpus, 4);
    const large = fillerNotes(corpus, 12);
    expect(large).toHaveLength(12);
    expect(large.slice(0, 4)).toEqual(small);
  });

  it('spreads the notes over the folders in the same proportions as the vault', () => {
    const folders = fillerNotes(corpus, 12).map((n) => (n.path.includes('/') ? n.path.slice(0, n.path.lastIndexOf('/')) : ''));
    const count = (f: string) => folders.filter((x) => x === f).length;
    expect([count('decisions'), count('projects'), count('')]).toEqual([3, 6, 3]);
  });

  it("writes only the vault's own words", () => {
    for (const filler of fillerNotes(corpus, 12)) {
      const { body } = parseFrontmatter(filler.text).parts;
      const words = (
        body
          .replace(/\[\[[^\]]*\]\]/g, ' ')
          .replace(/^See also/gm, ' ')
          .match(WORD) ?? []
      ).map((w) => w.toLowerCase());
      expect(words.length).toBeGreaterThan(5);
      expect(words.filter((w) => !vocabulary.has(w))).toEqual([]);
    }
  });

  it('never takes the file name of a file already in the vault, nor one twice, ignoring case', () => {
    const nameOf = (path: string) =>
      path
        .slice(path.lastIndexOf('/') + 1)
        .replace(/\.md$/, '')
        .toLowerCase();
    const first = nameOf(fillerNotes(corpus, 1)[0].path);
    const names = fillerNotes(corpus, 40, { taken: [`elsewhere/${first.toUpperCase()}.md`] }).map((n) => nameOf(n.path));
    expect(names).toHaveLength(40);
    expect(new Set(names).size).toBe(names.length);
    for (const existing of [first, 'use-postgres', 'atlas', 'hermes', 'daily']) expect(names).not.toContain(existing);
  });

  it("copies the model note's front matter without its name, aliases and links to other decisions", () => {
    const decisions = fillerNotes(corpus, 4).filter((n) => n.path.startsWith('decisions/'));
    expect(decisions).toHaveLength(1);
    const parsed = parseFrontmatter(decisions[0].text);
    if (!parsed.ok) throw new Error(parsed.error);
    expect(parsed.data).toEqual({ type: 'decision', date: '2026-10-02', project: '[[projects/atlas]]', status: 'accepted' });
  });

  it("rewrites free-text fields in the vault's words and keeps links, dates and times", () => {
    const session = note(
      'sessions/s1.md',
      '---\ntype: session\nagent: claude-code\ntask: move the billing ledger to postgres\nstarted: 2026-11-24T11:00:04+01:00\nproject: "[[projects/atlas]]"\nsearched: [ledger database, atlas]\n---\n# Session\n\nMoved the ledger.\n',
      {
        type: 'session',
        agent: 'claude-code',
        task: 'move the billing ledger to postgres',
        started: '2026-11-24T11:00:04+01:00',
        project: '[[projects/atlas]]',
        searched: ['ledger database', 'atlas'],
      },
      'session',
    );
    const [filler] = fillerNotes(corpusOf([...corpus.notes, session]), 5).filter((n) => n.path.startsWith('sessions/'));
    const parsed = parseFrontmatter(filler.text);
    if (!parsed.ok) throw new Error(parsed.error);
    const { task, ...kept } = parsed.data;
    expect(kept).toEqual({
      type: 'session',
      agent: 'claude-code',
      started: '2026-11-24T11:00:04+01:00',
      project: '[[projects/atlas]]',
      searched: ['ledger database', 'atlas'],
    });
    expect(typeof task).toBe('string');
    expect(task).not.toBe('move the billing ledger to postgres');
    expect((task as string).split(' ')).toHaveLength(6);
    const words = new Set((session.text.match(WORD) ?? []).map((w) => w.toLowerCase()));
    for (const word of (task as string).split(' ')) expect(vocabulary.has(word.toLowerCase()) || words.has(word.toLowerCase()), word).toBe(true);
  });

  it('makes nothing for a vault without notes', () => {
    expect(fillerNotes(corpusOf([]), 10)).toEqual([]);
  });
});
