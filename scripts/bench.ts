/**
 * The project's benchmark: generates a large vault (default 20,000 notes) and measures what users
 * wait for. `npm run bench -- [--notes N] [--keep DIR]`. Figures go in docs/performance.md.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { initVault, openVault } from '../lib/vault/index';
import { endSession, searchNotes, startSession } from '../lib/vault/index';

const { values } = parseArgs({ options: { notes: { type: 'string', default: '20000' }, keep: { type: 'string' } } });
const count = Number(values.notes);
const root = values.keep ? path.resolve(values.keep) : mkdtempSync(path.join(os.tmpdir(), 'lucid-bench-'));
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1' };

const WORDS =
  'alpha beta gamma delta migration postgres latency budget cache index schema session agent skill decision project review deploy rollback incident metric dashboard search memory vault note link backlink history commit revert inbox proposal person team roadmap quarter customer billing invoice retry queue worker cron backup restore'.split(
    ' ',
  );
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const pick = () => WORDS[Math.floor(rand() * WORDS.length)];

function generate(): void {
  mkdirSync(root, { recursive: true });
  for (let i = 0; i < count; i += 1) {
    const folder = `area-${i % 50}/topic-${i % 7}`;
    mkdirSync(path.join(root, folder), { recursive: true });
    const words = Array.from({ length: 250 }, pick).join(' ');
    const link = `[[note-${(i * 7919) % count}]]`;
    writeFileSync(
      path.join(root, folder, `note-${i}.md`),
      `---\ntags: [${pick()}]\ncreated: 2026-01-01\n---\n# Note ${i} about ${pick()} and ${pick()}\n\n${words}\n\nSee ${link}.\n`,
    );
  }
}

async function time<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await fn();
  console.log(`${label.padEnd(44)} ${(performance.now() - start).toFixed(0).padStart(7)} ms`);
  return result;
}

function percentiles(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(1);
  return `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms (n=${s.length})`;
}

async function main(): Promise<void> {
  console.log(`Lucid benchmark: ${count} notes in ${root} (node ${process.version}, ${os.cpus().length} cores)`);
  await time('generate notes', async () => generate());
  await time('lucid init (git init + snapshot + init commit)', () => initVault({ dir: root, env, fallbackUser: 'bench' }));
  const vault = await openVault({ root, env, fallbackUser: 'bench' });
  await time('list notes, cold (read + parse all)', () => vault.listNotes());
  await time('list notes, warm', () => vault.listNotes());
  await time('lint (schema + links)', () => vault.lint());
  await time('search index, first sync', () => vault.syncSearch());
  await time('search index, sync with nothing changed', () => vault.syncSearch());
  const queries = ['why did we roll back the migration', 'postgres latency budget', 'who owns billing?', "what's the cache retry policy", 'incident review'];
  const searchTimes: number[] = [];
  for (let i = 0; i < 40; i += 1) {
    const start = performance.now();
    await vault.search(queries[i % queries.length]);
    searchTimes.push(performance.now() - start);
  }
  console.log(`${'search (as typed, includes change check)'.padEnd(44)} ${percentiles(searchTimes)}`);
  const writeTimes: number[] = [];
  for (let i = 0; i < 30; i += 1) {
    const note = await vault.readNote(`area-${i % 50}/topic-${i % 7}/note-${i}.md`);
    const start = performance.now();
    await vault.edit({
      actor: 'agent:bench',
      op: 'append',
      path: note.path,
      reason: `bench append ${i}`,
      changes: [{ path: note.path, content: `${note.text}\nappended ${i}\n`, expectedHash: note.hash }],
    });
    writeTimes.push(performance.now() - start);
  }
  console.log(`${'write (hash check, lock, atomic, commit)'.padEnd(44)} ${percentiles(writeTimes)}`);
  await time('commit index, first build', () => vault.commits());
  await time('history of one note (indexed)', () => vault.history('area-0/topic-0/note-0.md'));
  await time('backlinks of one note', () => vault.backlinks('area-1/topic-1/note-1.md'));
  const session = await time('agent start_session (context to read first)', () =>
    startSession(vault, { agent: 'bench', task: 'review the postgres migration budget' }),
  );
  await time('agent search_notes', () => searchNotes(vault, { query: 'postgres migration budget' }, [session.session]));
  await time('agent end_session (writes the session note)', () => endSession(vault, { session: session.session, summary: 'benchmark', outcome: 'done' }));
  vault.close();
  if (!values.keep) rmSync(root, { recursive: true, force: true });
}

await main();
