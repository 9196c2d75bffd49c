/**
 * `npm run bench [-- --large] [-- --record] [-- --compare FILE]`: measures what people and agents wait
 * for on a generated vault, each figure beside a fixed baseline measured in the same run,
 * interleaved, and reports value / baseline. See bench/README.md for the method.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { removeSessionState, startSession } from '../../lib/vault/index';
import { freshBuild } from '../../bin/compiled.mjs';
import { cachedVault, copyVault, REPO_ROOT, type VaultManifest } from './generate';
import { compareRatios, formatTable, interleave, interleaveAll, median, percentileRows, row } from './stats';
import type { ResultRow } from './targets';
import { applyTargets, readExplanations, summaryLine } from './targets';
import {
  args,
  BIN,
  GIT_ENV,
  GIT_LOG_PAGE,
  NOTES,
  findRipgrep,
  machine,
  markWord,
  mostEditedNote,
  only,
  openBenchVault,
  readAndStoreEveryFile,
  rgSearch,
  rows,
  run,
  say,
  started,
} from './common';
import { measureDashboard } from './dashboard';

async function main(): Promise<void> {
  say(`Lucid benchmark (${NOTES.toLocaleString('en')} notes) on ${machine()}`);
  const rg = findRipgrep();
  const { dir: cached, manifest } = await cachedVault(NOTES, say);
  const work = path.join(os.tmpdir(), `lucid-bench-${process.pid}`);
  const root = path.join(work, 'vault');
  say(`Copying the cached vault to ${root}…`);
  copyVault(cached, root);
  try {
    if (only.has('index')) await measureIndex(root, manifest);
    if (only.has('search') || only.has('library')) await measureLibrary(root, manifest, rg);
    if (only.has('write')) await measureWrites(root, manifest);
    if (only.has('cli')) await measureCli();
    if (only.has('dashboard')) await measureDashboard(root, manifest, rg);
  } finally {
    if (!args.keep) rmSync(work, { recursive: true, force: true });
  }
  finish(manifest);
}

async function measureIndex(root: string, manifest: VaultManifest): Promise<void> {
  const removeIndex = () => {
    for (const name of ['search.sqlite', 'search.sqlite-wal', 'search.sqlite-shm']) rmSync(path.join(root, '.lucid', name), { force: true });
  };
  const yardstick = path.join(path.dirname(root), 'yardstick.sqlite');
  say('Cold index build (7 samples)…');
  const cold = await interleave(
    7,
    async () => {
      const vault = await openBenchVault(root);
      await vault.syncSearch();
      vault.close();
    },
    () => readAndStoreEveryFile(root, yardstick),
    { warmup: 1, prepare: (_i, which) => (which === 'a' ? removeIndex() : undefined) },
  );
  rows.push(row('cold index build (median)', 'ms', median(cold.a), 'read, hash, scan and store every note in a plain SQLite table', median(cold.b)));

  // Re-index is timed from the change on disk to the index answering with it: with the file watcher
  // (as the MCP server and the dashboard run) that is the event's arrival, the stat of the paths it
  // names and the sync of those notes; a search polls for the changed notes' new word every ms.
  const watched = await openBenchVault(root, true);
  await watched.syncSearch();
  let changed = 0;
  let marks = 0;
  const changeNotes = (count: number, word: string) => {
    for (let k = 0; k < count; k += 1)
      appendFileSync(path.join(root, manifest.plain[changed++ % manifest.plain.length]), `\nEdited outside Lucid ${changed}: ${word}.\n`);
  };
  const untilIndexed = async (word: string, count: number) => {
    while ((await watched.search(word, { limit: 200 })).length < count) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  say('Re-index after a change on disk, until search answers with it (1 note × 31, 100 notes × 31)…');
  for (const [count, n] of [
    [1, 31],
    [100, 31],
  ] as const) {
    const s = await interleave(
      n,
      () => untilIndexed(markWord(marks), count),
      () => run('git', ['status', '--porcelain'], root),
      { warmup: 1, prepare: (_i, which) => changeNotes(count, which === 'a' ? markWord(++marks) : 'unmarked') },
    );
    rows.push(row(`re-index ${count} changed note${count > 1 ? 's' : ''} (median)`, 'ms', median(s.a), 'git status --porcelain (same change)', median(s.b)));
  }
  run('git', ['add', '-A'], root);
  run('git', ['commit', '-q', '-m', 'bench: edits made outside Lucid'], root);
  await watched.syncSearch();
  say('Change check with nothing changed, watching and not (31 samples each)…');
  const quiet = await interleave(
    31,
    () => watched.syncSearch(),
    () => run('git', ['status', '--porcelain'], root),
    { warmup: 1 },
  );
  rows.push(row('change check, nothing changed, watching (median)', 'ms', median(quiet.a), 'git status --porcelain', median(quiet.b)));
  await watched.close();
  // Without the watcher (a one-shot CLI verb, or a server whose watcher could not start): the walk
  // of the vault and the comparison of every stamp with the index's.
  const vault = await openBenchVault(root);
  await vault.syncSearch();
  const idle = await interleave(
    31,
    () => vault.syncSearch(),
    () => run('git', ['status', '--porcelain'], root),
    { warmup: 1 },
  );
  rows.push(row('change check, nothing changed (median)', 'ms', median(idle.a), 'git status --porcelain', median(idle.b)));
  await vault.close();
}

async function measureLibrary(root: string, manifest: VaultManifest, rg: string | null): Promise<void> {
  const vault = await openBenchVault(root, true);
  await vault.syncSearch();
  await vault.commits();
  const questions = manifest.questions;
  if (only.has('search')) {
    // Two passes over the questions: p95 is the tail, and 200 samples left it moving a quarter
    // between quiet runs (bench/README.md, "How steady the ratios are").
    const rounds = questions.length * 2;
    const q = (i: number) => questions[i % questions.length];
    say(`Search, in process and through MCP over stdio (${questions.length} questions, twice)…`);
    const mcp = await connectMcp(root);
    try {
      // Every sample is a search typed more than a second after the previous one, so each includes
      // the change check that search does at most once a second, whatever the machine's speed (with
      // a faster pace, the share of samples that include it, and so p50, would follow the load).
      const ends = [0, 0];
      const paced = (which: number, fn: (i: number) => Promise<unknown>) => async (i: number) => {
        await fn(i);
        ends[which] = performance.now();
      };
      const fns: ((i: number) => unknown)[] = [paced(0, (i) => vault.search(q(i))), paced(1, (i) => mcp.call('search_notes', { query: q(i) }))];
      if (rg) fns.push((i) => rgSearch(rg, root, q(i))!());
      const [local, remote, baseline = []] = await interleaveAll(rounds, fns, {
        warmup: 5,
        prepare: async (_i, which) => {
          const wait = which < 2 ? ends[which] + 1100 - performance.now() : 0;
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        },
      });
      const rgName = rg ? "rg -l -i -e T1 -e T2 … (the question's terms)" : null;
      rows.push(...percentileRows('search, in process', { a: local, b: baseline }, rgName));
      rows.push(...percentileRows('search, MCP over stdio', { a: remote, b: baseline }, rgName));
    } finally {
      await mcp.client.close();
    }
  }
  if (!only.has('library')) return vault.close();

  say('start_session (20 samples)…');
  const sessions: string[] = [];
  const start = await interleave(
    20,
    async (i) => sessions.push((await startSession(vault, { agent: 'bench', task: questions[i] })).session),
    rg ? (i) => rgSearch(rg, root, questions[i])!() : null,
    { warmup: 2 },
  );
  for (const id of sessions) removeSessionState(vault, id);
  rows.push(row('start_session (median)', 'ms', median(start.a), rg ? "rg -l -i -e T1 … (the task's terms)" : null, rg ? median(start.b) : null));

  // 61 samples: with 25 the median moved a quarter between quiet runs.
  say('Backlinks of a note with 200 backlinks (61 samples)…');
  const hubs = manifest.hubs;
  const back = await interleave(
    61,
    (i) => vault.backlinks(hubs[i % hubs.length].path),
    rg ? (i) => run(rg, ['-l', '-F', `[[${hubs[i % hubs.length].name}`, '.'], root, true) : null,
    { warmup: 2 },
  );
  rows.push(row('backlinks, 200 of them (median)', 'ms', median(back.a), rg ? "rg -l -F '[[Name'" : null, rg ? median(back.b) : null));

  say("Changelog page and a note's history from the commit index (20 samples each)…");
  const page = await interleave(
    20,
    () => vault.log({ limit: 100 }),
    () => run('git', GIT_LOG_PAGE, root),
    { warmup: 2 },
  );
  rows.push(row('changelog, newest 100 edits (median)', 'ms', median(page.a), 'git log -n 100 --format=%H%x00%an%x00%at%x00%B', median(page.b)));
  const edited = mostEditedNote(root);
  const history = await interleave(
    20,
    () => vault.history(edited),
    () => run('git', ['log', '--follow', '-p', '--', edited], root),
    { warmup: 2 },
  );
  rows.push(row('history of the most edited note (median)', 'ms', median(history.a), 'git log --follow -p -- <path>', median(history.b)));
  await vault.close();
}

interface Mcp {
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
}

async function connectMcp(root: string): Promise<Mcp> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', '--vault', root],
    env: GIT_ENV as Record<string, string>,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'lucid-bench', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    async call(name, toolArgs) {
      const result = (await client.callTool({ name, arguments: toolArgs }, undefined, { timeout: 300_000 })) as CallToolResult;
      if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
      return (result.structuredContent ?? {}) as Record<string, unknown>;
    },
  };
}

async function measureWrites(root: string, manifest: VaultManifest): Promise<void> {
  say('Writes through MCP over stdio (40 samples)…');
  const mcp = await connectMcp(root);
  try {
    const session = (await mcp.call('start_session', { agent: 'bench', task: 'benchmark writes' })).session as string;
    const plain = manifest.plain;
    const text = (i: number) => `Benchmark line ${i}: retry the webhook queue with backoff.`;
    const writes = await interleave(
      40,
      (i) => mcp.call('write_note', { session, path: plain[i * 2 + 1000], mode: 'append', content: text(i), reason: `bench append ${i}` }),
      (i) => {
        const p = plain[i * 2 + 1001];
        appendFileSync(path.join(root, p), `\n${text(i)}\n`);
        run('git', ['add', '--', p], root);
        run('git', ['commit', '-q', '-m', `append ${p}`, '--', p], root);
      },
      { warmup: 3 },
    );
    rows.push(...percentileRows('write, MCP end to end', writes, 'git add + git commit (same one-file change)'));
    await mcp.call('end_session', { session, summary: 'benchmark' });
  } finally {
    await mcp.client.close();
  }
}

async function measureCli(): Promise<void> {
  say('CLI start (15 samples)…');
  const node = (argv: string[]) => () => run(process.execPath, argv, REPO_ROOT);
  // A stale build is compiled again by the first start; one that cannot be would be timed from the sources.
  node([BIN, '--version'])();
  const build = freshBuild(REPO_ROOT);
  if (!build.fresh) say(`The compiled CLI is not in use (${build.why}): lucid --help is timed from the TypeScript sources.`);
  const s = await interleave(15, node([BIN, '--help']), node(['-e', '0']), { warmup: 1 });
  rows.push(row('lucid --help (median)', 'ms', median(s.a), 'node -e 0', median(s.b)));
}

function finish(manifest: VaultManifest): void {
  const targets = applyTargets(rows, NOTES, readExplanations(path.join(REPO_ROOT, 'bench', 'explanations.json')));
  rows.splice(0, rows.length, ...targets.rows);
  const minutes = ((performance.now() - started) / 60_000).toFixed(1);
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout.trim();
  const dirty =
    spawnSync('git', ['status', '--porcelain', '--', 'lib', 'app', 'components', 'cli', 'mcp'], { cwd: REPO_ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  const table = formatTable(rows);
  say(`\n${table}\n`);
  mkdirSync(path.join(REPO_ROOT, 'bench'), { recursive: true });
  const resultsPath = path.join(REPO_ROOT, 'bench', 'results.json');
  const previous = args.compare
    ? (JSON.parse(readFileSync(path.resolve(args.compare), 'utf8')) as ResultRow[])
    : existsSync(resultsPath)
      ? (JSON.parse(readFileSync(resultsPath, 'utf8')) as ResultRow[])
      : null;
  writeFileSync(resultsPath, `${JSON.stringify(rows, null, 2)}\n`);
  say(`Wrote bench/results.json (${rows.length} figures) in ${minutes} min.`);
  const comparison = previous ? compareRatios(previous, rows) : [];
  if (previous) {
    say(`\nRatios against ${args.compare ?? 'the previous bench/results.json'} (change = |r2 - r1| / min):`);
    for (const c of comparison) {
      say(
        `  ${c.name.padEnd(72)} ${String(c.first ?? '–').padStart(8)} ${String(c.second ?? '–').padStart(8)}  ${c.change === null ? '' : `${(c.change * 100).toFixed(0)} %${c.within ? '' : '  (more than 25 %)'}`}`,
      );
    }
  }
  const compared = comparison.filter((c) => c.change !== null);
  const comparisonText = compared.length
    ? `\nRatio change against ${args.compare ?? 'the previous run'} (|r2 − r1| / min):\n\n| figure | before | this run | change |\n|---|--:|--:|--:|\n${compared.map((c) => `| ${c.name} | ${c.first!.toFixed(2)} | ${c.second!.toFixed(2)} | ${(c.change! * 100).toFixed(0)} %${c.within ? '' : ' (over 25 %)'} |`).join('\n')}\n`
    : '';
  if (args.record) {
    const docPath = path.join(REPO_ROOT, 'docs', 'performance.md');
    const doc = readFileSync(docPath, 'utf8');
    const marker = '<!-- runs: newest first; `npm run bench -- --record` adds a section here -->';
    const section = `### ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC · ${commit}${dirty ? ' (with uncommitted changes)' : ''}\n\nMachine: ${machine()}. Vault: ${manifest.notes.toLocaleString('en')} notes, ${manifest.wikilinks.toLocaleString('en')} wikilinks, ${manifest.commits.toLocaleString('en')} commits. Run took ${minutes} min.\n\n${table}\n\n${summaryLine(targets.summary)}\n${comparisonText}`;
    writeFileSync(docPath, doc.includes(marker) ? doc.replace(marker, `${marker}\n\n${section}`) : `${doc}\n${marker}\n\n${section}`);
    // The project's formatter lays out markdown tables too; `npm test` fails on an unformatted file.
    spawnSync(process.execPath, [path.join(REPO_ROOT, 'node_modules', '@biomejs', 'biome', 'bin', 'biome'), 'format', '--write', docPath], { stdio: 'ignore' });
    say('Added this run to docs/performance.md.');
  }
  for (const name of targets.summary.unexplained) say(`Missed, with no why in bench/explanations.json: ${name}`);
  say(summaryLine(targets.summary));
}

await main();
