/**
 * `npm run bench [-- --large] [-- --record] [-- --compare FILE]`: measures what people and agents wait
 * for on a generated vault, each figure beside a fixed baseline measured in the same run,
 * interleaved, and reports value / baseline. See bench/README.md for the method.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import Database from 'better-sqlite3';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openVault, removeSessionState, startSession, type Vault } from '../../lib/vault/index';
import { freshBuild } from '../../bin/compiled.mjs';
import { cachedVault, copyVault, questionTerms, REPO_ROOT, type VaultManifest } from './generate';
import { dashboardSampling, everyPage, getPage, longestHistorySkill } from './pages';
import { compareRatios, failedRow, formatTable, interleave, interleaveAll, median, percentileRows, row } from './stats';
import type { ResultRow } from './targets';
import { applyTargets, readExplanations, summaryLine } from './targets';

const { values: args } = parseArgs({
  options: {
    large: { type: 'boolean', default: false },
    record: { type: 'boolean', default: false },
    compare: { type: 'string' },
    keep: { type: 'boolean', default: false },
    only: { type: 'string' },
    pages: { type: 'string' },
  },
});
const SECTIONS = ['index', 'search', 'library', 'write', 'cli', 'dashboard'];
/** `--only index,search`: run some sections (while working on one path); a full run for the record. */
const only = new Set(args.only ? args.only.split(',') : SECTIONS);
const NOTES = args.large ? 50_000 : 10_000;
/** `--pages all` (always with `--large`): the dashboard section measures every page of app/, not only its own list. */
const ALL_PAGES = args.large || args.pages === 'all';
const BIN = path.join(REPO_ROOT, 'bin', 'lucid');
const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', LUCID_USER: 'Bench Person', NEXT_TELEMETRY_DISABLED: '1' };
const rows: ResultRow[] = [];
const started = performance.now();
let lastSay = started;
const say = (line: string) => {
  const now = performance.now();
  process.stdout.write(`[${((now - started) / 1000).toFixed(0).padStart(4)} s, +${((now - lastSay) / 1000).toFixed(0)} s] ${line}\n`);
  lastSay = now;
};

function run(command: string, argv: string[], cwd: string, allowFail = false): string {
  const r = spawnSync(command, argv, { cwd, env: GIT_ENV, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0 && !(allowFail && r.status === 1)) throw new Error(`${command} ${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** ripgrep: Debian's package, installed when missing and root; null (with the reason said) otherwise. */
function findRipgrep(): string | null {
  const which = () => spawnSync('sh', ['-c', 'command -v rg'], { encoding: 'utf8' }).stdout.trim() || null;
  let rg = which();
  if (!rg && process.getuid?.() === 0) {
    say("ripgrep is missing; installing Debian's package (apt-get install -y ripgrep)…");
    spawnSync('apt-get', ['install', '-y', 'ripgrep'], { stdio: 'ignore' });
    rg = which();
  }
  if (!rg)
    say(
      'ripgrep (rg) is not installed and this is not root, so it cannot be installed: the search, start_session and backlinks figures are measured without their baselines (no ratios). Install it with `apt-get install ripgrep`.',
    );
  return rg;
}

function machine(): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const git = spawnSync('git', ['--version'], { encoding: 'utf8' }).stdout.trim().replace('git version ', '');
  return `${os.cpus().length} × ${cpu}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, Linux ${os.release()}, Node ${process.version.slice(1)}, git ${git}`;
}

/** Calls `visit` with every note's path and bytes, skipping dot folders. */
function forEachNote(root: string, visit: (full: string, bytes: Buffer) => void): void {
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.md')) visit(full, readFileSync(full));
    }
  };
  walk(root);
}

/**
 * The least any reader of the whole vault must do: read every note's bytes, hash them and find its
 * links. Reading alone (a fifth of a second from the page cache) swung by 80 % with the machine's
 * load; hashing and scanning make the yardstick CPU-bound, like the work it stands beside.
 */
function readEveryFile(root: string): number {
  let links = 0;
  forEachNote(root, (_full, bytes) => {
    createHash('sha256').update(bytes).digest();
    links += bytes.toString('utf8').split('[[').length - 1;
  });
  return links;
}

/**
 * The least any index build must do: what `readEveryFile` does, and store the bytes in a plain
 * SQLite table in one transaction with the index's own journal settings (WAL, synchronous NORMAL).
 * Reading, hashing and scanning alone missed the build's wait on the shared disk, where it writes a
 * 100 MB file. The table lives in the run's temporary folder, outside the vault.
 */
function readAndStoreEveryFile(root: string, dbPath: string): number {
  for (const suffix of ['', '-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
  const db = new Database(dbPath);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE notes (path TEXT PRIMARY KEY, hash BLOB, links INTEGER, body TEXT)');
  const insert = db.prepare('INSERT INTO notes VALUES (?, ?, ?, ?)');
  let links = 0;
  db.transaction(() =>
    forEachNote(root, (full, bytes) => {
      const text = bytes.toString('utf8');
      const count = text.split('[[').length - 1;
      links += count;
      insert.run(full, createHash('sha256').update(bytes).digest(), count, text);
    }),
  )();
  db.close();
  return links;
}

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

function rgSearch(rg: string | null, root: string, question: string): (() => void) | null {
  if (!rg) return null;
  const terms = questionTerms(question).flatMap((t) => ['-e', t]);
  return () => run(rg, ['-l', '-i', ...terms, '.'], root, true);
}

const GIT_LOG_PAGE = ['log', '-n', '100', '--format=%H%x00%an%x00%at%x00%B'];

/** The most edited note: its history is the longest a page shows. */
function mostEditedNote(root: string): string {
  const counts = new Map<string, number>();
  for (const line of run('git', ['log', '-n', '5000', '--format=', '--name-only'], root).split('\n')) {
    if (!line.endsWith('.md') || line.startsWith('changelog')) continue;
    counts.set(line, (counts.get(line) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
}

/**
 * `watch`: as the long-lived processes open it (the MCP server, the dashboard): a file watcher keeps
 * the listing. The index build parses in worker threads, as `lucid` does; from the sources, through
 * tsx's require hook.
 */
async function openBenchVault(root: string, watch = false): Promise<Vault> {
  const vault = await openVault({
    root,
    env: GIT_ENV,
    fallbackUser: 'Bench Person',
    watch,
    onWarning: (message) => say(`warning: ${message}`),
    indexWorkers: { script: path.join(REPO_ROOT, 'lib', 'vault', 'search', 'index-worker-tsx.cjs') },
  });
  if (watch && vault.watchState().mode !== 'watching')
    say(`the file watcher is not running (${vault.watchState().reason}): the figures below are the fallback's`);
  return vault;
}

/** A word no note of the generated vault holds, different for each `n` (letters only: the tokenizer keeps it whole). */
function markWord(n: number): string {
  return `zqmark${[...n.toString(26)].map((c) => String.fromCharCode(97 + Number.parseInt(c, 26))).join('')}`;
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

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Peak resident memory (VmHWM) of a process and all its descendants, summed, in MB. */
function treePeakRss(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // The process ended while we looked.
    }
  }
  let total = 0;
  const visit = (p: number) => {
    try {
      const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1];
      total += Number(kb ?? 0);
    } catch {
      // Gone.
    }
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return total / 1024;
}

/** A bare Node process's own peak resident memory, in MB. */
function bareNodeRss(): number {
  const out = run(
    process.execPath,
    ['-e', "process.stdout.write(/VmHWM:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status','utf8'))[1])"],
    REPO_ROOT,
  );
  return Number(out) / 1024;
}

async function startServer(root: string): Promise<{ child: ChildProcess; port: number; cookie: string; stop: () => Promise<void>; output: () => string }> {
  const port = await freePort();
  const token = randomBytes(24).toString('base64url');
  const child = spawn(process.execPath, [BIN, 'serve', '--vault', root, '--port', String(port), '--no-build'], {
    cwd: REPO_ROOT,
    env: { ...GIT_ENV, LUCID_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 120_000;
  while (!output.includes('Open: ')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`lucid serve did not start: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  // The token becomes the cookie lucid_<port> through /?token=, as a person's browser gets it.
  const response = await fetch(`http://127.0.0.1:${port}/?token=${encodeURIComponent(token)}`, { redirect: 'manual' });
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
  if (!cookie.startsWith(`lucid_${port}=`)) throw new Error(`no cookie from the token exchange (status ${response.status})`);
  await response.arrayBuffer();
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  // What the server printed, so a failed page's row carries the server's reason.
  return { child, port, cookie, stop, output: () => output };
}

async function measureDashboard(root: string, manifest: VaultManifest, rg: string | null): Promise<void> {
  say('Dashboard: building once when needed…');
  const build = spawnSync(process.execPath, [BIN, 'build'], { cwd: REPO_ROOT, env: GIT_ENV, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) throw new Error('lucid build failed');
  const hub = manifest.hubs[0];
  const question = manifest.questions[0];
  const history = ['log', '--follow', '-p', '--', hub.path];
  const skill = longestHistorySkill((argv) => run('git', argv, root));
  // Pages that exist; a later page adds a line here with the baseline that stands for its work.
  // The first request after start reads the vault; the overview comes first, so its baseline is reading every note.
  const pages: { name: string; url: string; baseline: string; run: () => unknown; first?: { baseline: string; run: () => unknown } }[] = [
    {
      name: 'page / (overview)',
      url: '/',
      baseline: 'git log -n 100 --format=…',
      run: () => run('git', GIT_LOG_PAGE, root),
      first: { baseline: 'read, hash and scan every note in Node', run: () => readEveryFile(root) },
    },
    {
      name: 'page /notes/<note with 200 backlinks>',
      url: `/notes/${hub.path.split('/').map(encodeURIComponent).join('/')}`,
      baseline: 'git log --follow -p -- <path>',
      run: () => run('git', history, root),
    },
    {
      name: 'page /search?q=…',
      url: `/search?q=${encodeURIComponent(question)}`,
      baseline: "rg -l -i -e T1 … (the query's terms)",
      run: rgSearch(rg, root, question) ?? (() => undefined),
    },
    { name: 'page /changelog', url: '/changelog', baseline: 'git log -n 100 --format=…', run: () => run('git', GIT_LOG_PAGE, root) },
    // The page shows every version of the skill (each one's text read for its version number), its
    // current text and one diff: git's own account of the same is the file's history with every patch.
    ...(skill
      ? [
          {
            name: 'page /skills/<skill with the longest history>',
            url: `/skills/${encodeURIComponent(skill)}`,
            baseline: 'git log --follow -p -- <skill path>',
            run: () => run('git', ['log', '--follow', '-p', '--', `skills/${skill}.md`], root),
          },
        ]
      : []),
  ];
  if (ALL_PAGES) pages.push(...everyPage(root, pages, GIT_LOG_PAGE));
  const { starts, warmPerStart, timeoutMs } = dashboardSampling(args.large);
  // A page that fails or does not answer in time is recorded as failed; the others are still measured.
  const failed = new Map<string, string>();
  const first = new Map<string, { a: number[]; b: number[] }>();
  const warm = new Map<string, { a: number[]; b: number[] }>();
  const rss: number[] = [];
  const rssBase: number[] = [];
  for (let s = 0; s < starts; s += 1) {
    say(`Dashboard: server start ${s + 1} of ${starts}, ${pages.length} pages × (1 first + ${warmPerStart} warm)…`);
    const server = await startServer(root);
    try {
      const get = (url: string) => () => getPage(server.port, url, server.cookie, timeoutMs);
      const live = () => pages.filter((page) => !failed.has(page.name));
      const attempt = async (page: (typeof pages)[number], measure: () => Promise<void>) => {
        const since = server.output().length;
        await measure().catch((error: Error) => failed.set(page.name, `${error.message}${serverSaid(server.output().slice(since))}`));
      };
      for (const page of live()) {
        await attempt(page, async () => {
          const t = await interleave(1, get(page.url), page.first?.run ?? page.run);
          const f = first.get(page.name) ?? { a: [], b: [] };
          f.a.push(...t.a);
          f.b.push(...t.b);
          first.set(page.name, f);
          if (ALL_PAGES) say(`  ${page.name}: ${(t.a[0] / 1000).toFixed(1)} s`);
        });
      }
      for (const page of live()) {
        await attempt(page, async () => {
          const t = await interleave(warmPerStart, get(page.url), page.run, { warmup: 1 });
          const w = warm.get(page.name) ?? { a: [], b: [] };
          w.a.push(...t.a);
          w.b.push(...t.b);
          warm.set(page.name, w);
        });
      }
      rss.push(treePeakRss(server.child.pid!));
      rssBase.push(bareNodeRss());
    } finally {
      await server.stop();
    }
  }
  const canRatio = (page: (typeof pages)[number]) => rg !== null || !page.baseline.startsWith('rg');
  for (const page of pages) {
    // A page that failed in one start keeps the samples of the others, each row with the failure.
    const error = failed.get(page.name);
    if (error) say(`Dashboard: ${page.name} failed: ${error}`);
    const mark = (r: ResultRow): ResultRow => (error ? { ...r, error } : r);
    const f = first.get(page.name);
    const w = warm.get(page.name);
    rows.push(
      f
        ? mark(
            row(
              `${page.name}, first request after start (median of ${f.a.length})`,
              'ms',
              median(f.a),
              canRatio(page) ? (page.first?.baseline ?? page.baseline) : null,
              canRatio(page) ? median(f.b) : null,
            ),
          )
        : failedRow(`${page.name}, first request after start`, 'ms', error ?? 'no sample'),
    );
    rows.push(
      ...(w
        ? percentileRows(`${page.name}, warm`, w, canRatio(page) ? page.baseline : null).map(mark)
        : ['warm p50', 'warm p95'].map((what) => failedRow(`${page.name}, ${what}`, 'ms', error ?? 'no sample'))),
    );
  }
  rows.push(row(`server peak RSS, process tree (median of ${starts})`, 'MB', median(rss), 'peak RSS of a bare node process', median(rssBase)));
}

/** The server's last error lines, for a failed page's row ('' when it printed none). */
function serverSaid(output: string): string {
  const lines = output.split('\n').filter((l) => /error|Error|heap|killed|ENOMEM|ETIMEDOUT/.test(l));
  return lines.length ? ` (the server said: ${lines.slice(-3).join(' / ').slice(0, 600)})` : '';
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
