import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cutToBudget } from '../../lib/vault/eval/budget';
import { buildCorpus } from '../../lib/vault/eval/corpus';
import { scoreQuestion } from '../../lib/vault/eval/metrics';
import { defaultStrategies, strategyByName } from '../../lib/vault/eval/strategies/index';
import type { EvalCorpus, EvalQuestion, Strategy, StrategyContext } from '../../lib/vault/eval/types';
import type { Vault } from '../../lib/vault/index';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/**
 * Issue 17: the strategies on a vault with known answers, built through the vault so every note is
 * its own commit (a minute apart): three people, their projects, storage decisions of every project
 * (the distractors of the two-hop question), a superseded decision, sessions, a skill and plain notes.
 */

const person = (name: string, project: string, body: string) =>
  `---\ntype: person\nname: ${name}\nrole: engineer\nprojects:\n  - "[[projects/${project}]]"\n---\n# ${name}\n\n${body}\n`;
const project = (name: string, owner: string, summary: string) =>
  `---\ntype: project\nname: ${name}\nstatus: active\nowner: "[[people/${owner}]]"\nsummary: ${summary}\n---\n# ${name}\n\n${summary}\n`;
const decision = (projectSlug: string, title: string, body: string, extra = 'status: accepted') =>
  `---\ntype: decision\ndate: 2026-11-02\nproject: "[[projects/${projectSlug}]]"\n${extra}\n---\n# ${title}\n\n${body}\n`;
const session = (task: string, projectSlug: string, body: string) =>
  `---\ntype: session\nagent: claude\ntask: ${task}\nstarted: 2026-11-12T09:00:00Z\nended: 2026-11-12T10:00:00Z\noutcome: done\nproject: "[[projects/${projectSlug}]]"\n---\n# ${task}\n\n${body}\n`;

/** In the order they are committed: the last one is the newest. */
const NOTES: [string, string][] = [
  ['people/mara-quist.md', person('Mara Quist', 'heron', 'Mara keeps the fleet readings flowing and reviews the ingestion code.')],
  ['people/ode-lindqvist.md', person('Ode Lindqvist', 'kestrel', 'Ode runs billing and the month-end close.')],
  ['people/ravi-anand.md', person('Ravi Anand', 'osprey', 'Ravi builds the phone app and its offline mode.')],
  ['projects/heron.md', project('Heron', 'mara-quist', 'Fleet telemetry ingestion.')],
  ['projects/kestrel.md', project('Kestrel', 'ode-lindqvist', 'The billing ledger.')],
  ['projects/osprey.md', project('Osprey', 'ravi-anand', 'The phone app.')],
  [
    'decisions/heron-parquet.md',
    decision(
      'heron',
      'Raw readings in columnar files',
      'We decided to keep raw readings as Parquet files in object storage, one folder a day, because replays read whole days.',
    ),
  ],
  [
    'decisions/kestrel-ledger-storage.md',
    decision(
      'kestrel',
      'Ledger storage',
      'Ledger storage decided: Postgres is the storage of the ledger. The storage is replicated and storage snapshots run nightly.',
    ),
  ],
  [
    'decisions/kestrel-archive-storage.md',
    decision('kestrel', 'Archive storage', 'Old ledger entries move to archive storage after a year; archive storage is the cheaper storage we decided on.'),
  ],
  [
    'decisions/osprey-offline-storage.md',
    decision('osprey', 'Offline storage on phones', 'We decided on SQLite for offline storage; the storage is encrypted and the storage quota is 50 MB.'),
  ],
  [
    'decisions/osprey-media-storage.md',
    decision('osprey', 'Media storage', 'Each photo upload goes to a media storage bucket; we decided on one storage folder per user.'),
  ],
  [
    'decisions/kestrel-queue.md',
    decision(
      'kestrel',
      'Retry payments from a queue',
      'Failed payments wait in a queue and a worker retries them from the queue.',
      'status: superseded\nsuperseded_by: "[[decisions/kestrel-outbox]]"',
    ),
  ],
  [
    'decisions/kestrel-outbox.md',
    decision(
      'kestrel',
      'Retry payments through an outbox',
      'A failing payment is written to an outbox table in the same transaction; a worker picks it up again.',
      'status: accepted\nreplaces: "[[decisions/kestrel-queue]]"',
    ),
  ],
  ['decisions/osprey-sync-protocol.md', decision('osprey', 'Sync over websockets', 'Phones send changed records over websockets and get a cursor back.')],
  ['sessions/20261112-090000-claude-ab12.md', session('Heron ingestion backfill', 'heron', 'Backfilled three days of readings after the outage.')],
  ['sessions/20261113-090000-claude-cd34.md', session('Kestrel close checks', 'kestrel', 'Checked the month-end close totals.')],
  [
    'skills/rotate-keys.md',
    '---\ntype: skill\nname: rotate-keys\nversion: 1\ntrigger: when a key is past its expiry date\nlast_updated: 2026-11-05\n---\n# Rotate keys\n\nMake a new key pair, publish it, wait a day, then retire the old key.\n',
  ],
  ['notes/invoice-migration.md', '# Invoice migration\n\nThe migration of every invoice to the ledger finished on 3 November; numbers were kept.\n'],
  ['notes/postgres-tuning.md', '# Postgres tuning\n\nIndex tuning: every foreign key gets an index; vacuum settings per table.\n'],
  ['notes/onboarding.md', '# Onboarding checklist\n\nWhat new engineers do in their first week: accounts, laptop, the first ticket.\n'],
  ['notes/storage-glossary.md', '# Glossary\n\nBucket, tier, replica: the words the teams use for where data is kept.\n'],
  ['notes/weekly-review.md', '# Weekly review\n\nWhat went out this week, what is late, who is away.\n'],
  ['notes/reading-list.md', '# Reading list\n\nDesigning data-intensive applications; the SQLite file format; the Parquet format notes.\n'],
  ['notes/offsite.md', '# Offsite\n\nThe team offsite is in March, by the sea.\n'],
];

/** Questions whose gold notes use other forms of the question's words (stemming finds them, literal words do not). */
const QUESTIONS: EvalQuestion[] = [
  ['q1', 'When were invoices migrated?', 'notes/invoice-migration.md'],
  ['q2', 'Where do uploaded photos go?', 'decisions/osprey-media-storage.md'],
  ['q3', 'What happens when signing keys expire?', 'skills/rotate-keys.md'],
  ['q4', 'How are Postgres indexes tuned?', 'notes/postgres-tuning.md'],
  ['q5', 'What do phones send over websockets?', 'decisions/osprey-sync-protocol.md'],
  ['q6', 'Onboarding checklist for new engineers', 'notes/onboarding.md'],
].map(([id, question, gold]) => ({ id, question, gold: [gold], answers: [], kind: 'hand', split: 'test' }));

/** Names the person and asks about the decision: person → project → decision. */
const TWO_HOP = 'What storage did Mara Quist decide on?';
const TWO_HOP_GOLD = 'decisions/heron-parquet.md';

let temp: TempVault;
let vault: Vault;
let corpus: EvalCorpus;
let context: StrategyContext;

async function writeNote(v: Vault, rel: string, text: string): Promise<void> {
  await v.edit({ actor: v.person, op: 'create', path: rel, reason: 'test vault', changes: [{ path: rel, content: text, expectedHash: null }] });
}

async function top(strategy: Strategy, question: string, k = 5): Promise<string[]> {
  return cutToBudget(await strategy.rank(question, context), question, corpus, k).map((r) => r.path);
}

async function meanRecallAt5(strategy: Strategy): Promise<number> {
  let sum = 0;
  for (const q of QUESTIONS) {
    const retrieved = cutToBudget(await strategy.rank(q.question, context), q.question, corpus, 5);
    sum += scoreQuestion(q, retrieved, 0).recall_at_5 as number;
  }
  return sum / QUESTIONS.length;
}

beforeAll(async () => {
  temp = makeTempVault();
  vault = await temp.open();
  for (const [rel, text] of NOTES) await writeNote(vault, rel, text);
  await vault.syncSearch();
  corpus = await buildCorpus(vault);
  context = { corpus, vault, k: 5 };
  for (const strategy of defaultStrategies()) await strategy.prepare?.(context);
});

afterAll(() => {
  vault?.close();
  temp?.cleanup();
});

describe('the retrieval strategies on a vault with known answers', () => {
  it('builds the test vault as intended: every note committed on its own, a minute apart', () => {
    expect(corpus.notes.map((n) => n.path).sort()).toEqual(NOTES.map(([p]) => p).sort());
    const times = NOTES.map(([p]) => corpus.byPath.get(p)?.committedAt ?? 0);
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]);
  });

  it('keyword (BM25) beats none and grep on recall@5', async () => {
    const none = await meanRecallAt5(strategyByName('none'));
    const grep = await meanRecallAt5(strategyByName('grep'));
    const keyword = await meanRecallAt5(strategyByName('keyword'));
    expect(none).toBe(0);
    expect(keyword).toBe(1);
    expect(grep).toBeLessThan(keyword);
    expect(grep).toBeGreaterThan(none);
  });

  it('keyword-links finds a two-hop answer (person → project → decision) that keyword misses', async () => {
    const keyword = await top(strategyByName('keyword'), TWO_HOP);
    const links = await top(strategyByName('keyword-links'), TWO_HOP);
    expect(keyword).toHaveLength(5);
    expect(keyword).not.toContain(TWO_HOP_GOLD);
    expect(links).toContain(TWO_HOP_GOLD);
    // And it is not a decoration: on the one-hop questions it keeps every answer keyword finds.
    expect(await meanRecallAt5(strategyByName('keyword-links'))).toBe(1);
  });

  it('grep ranks by distinct literal question words, ties by path, and leaves out notes with none', async () => {
    const grep = strategyByName('grep');
    // "storage" ×n counts once; "decided" is literal (not "decide"); "raw" and "readings" only in heron-parquet.
    expect(await grep.rank('raw readings storage decided', context)).toEqual([
      'decisions/heron-parquet.md', // raw, readings, storage, decided
      'decisions/kestrel-archive-storage.md', // storage, decided
      'decisions/kestrel-ledger-storage.md',
      'decisions/osprey-media-storage.md',
      'decisions/osprey-offline-storage.md',
      'people/mara-quist.md', // readings
      'sessions/20261112-090000-claude-ab12.md', // readings
    ]);
    expect(await grep.rank('the of and', context)).toEqual([]);
    expect(await grep.rank('KEY', context)).toEqual(['notes/postgres-tuning.md', 'skills/rotate-keys.md']);
  });

  it("keyword-fields puts the named project's decisions first, a session question's sessions first, and the superseded decision below the one that replaced it", async () => {
    const fields = strategyByName('keyword-fields');
    const keyword = strategyByName('keyword');
    const retry = 'How are failed payments retried from the queue?';
    const plain = await keyword.rank(retry, context);
    expect(plain.indexOf('decisions/kestrel-queue.md')).toBeLessThan(plain.indexOf('decisions/kestrel-outbox.md'));
    const ordered = await fields.rank(retry, context);
    expect(ordered.indexOf('decisions/kestrel-outbox.md')).toBeGreaterThanOrEqual(0);
    expect(ordered.indexOf('decisions/kestrel-outbox.md')).toBeLessThan(ordered.indexOf('decisions/kestrel-queue.md'));

    const kestrel = await fields.rank('What storage did Kestrel decide on?', context);
    expect(kestrel.slice(0, 2).sort()).toEqual(['decisions/kestrel-archive-storage.md', 'decisions/kestrel-ledger-storage.md']);
    const session = await fields.rank('Which session backfilled the readings?', context);
    expect(session[0]).toBe('sessions/20261112-090000-claude-ab12.md');
  });

  it('recent ranks by commit time, not by file mtime, whatever the question', async () => {
    const recent = strategyByName('recent');
    const newestFirst = NOTES.map(([p]) => p).reverse();
    expect(await recent.rank('anything at all', context)).toEqual(newestFirst);
    // A person's editor touches the oldest note: its mtime is now the newest, its commit is not.
    const oldest = NOTES[0][0];
    const future = new Date(Date.now() + 86_400_000);
    fs.utimesSync(path.join(temp.root, oldest), future, future);
    const touched = await buildCorpus(vault);
    expect(await recent.rank('anything', { corpus: touched, vault, k: 5 })).toEqual(newestFirst);
    // The order is git's: raw `git log` agrees.
    const gitTime = (p: string) => Number(temp.git(['log', '-1', '--format=%ct', '--', p]).trim());
    const byGit = [...newestFirst].sort((a, b) => gitTime(b) - gitTime(a));
    expect(byGit).toEqual(newestFirst);
    // An edit is a commit: the oldest note rises to the top once it is edited.
    await vault.edit({ actor: vault.person, op: 'update', path: oldest, reason: 'edit', changes: [{ path: oldest, content: `${NOTES[0][1]}More.\n` }] });
    const edited = await buildCorpus(vault);
    expect((await recent.rank('anything', { corpus: edited, vault, k: 5 }))[0]).toBe(oldest);
  });

  it('none ranks nothing', async () => {
    expect(await strategyByName('none').rank(TWO_HOP, context)).toEqual([]);
  });
});
