// The benchmark's run (scripts/bench/main.ts): its options, its rows, how it reports, and the helpers
// every section uses (running a command, ripgrep, opening the vault as the long-lived processes do).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { openVault, type Vault } from '../../lib/vault/index';
import { REPO_ROOT } from './generate';
import { questionTerms } from './words';
import type { ResultRow } from './targets';

/** The command line: `--large`, `--record`, `--compare FILE`, `--keep`, `--only`, `--pages`. */
export const { values: args } = parseArgs({
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
export const only = new Set(args.only ? args.only.split(',') : SECTIONS);
export const NOTES = args.large ? 50_000 : 10_000;
/** `--pages all` (always with `--large`): the dashboard section measures every page of app/, not only its own list. */
export const ALL_PAGES = args.large || args.pages === 'all';
export const BIN = path.join(REPO_ROOT, 'bin', 'lucid');
export const GIT_ENV = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', LUCID_USER: 'Bench Person', NEXT_TELEMETRY_DISABLED: '1' };
export const rows: ResultRow[] = [];
export const started = performance.now();
let lastSay = started;
export const say = (line: string) => {
  const now = performance.now();
  process.stdout.write(`[${((now - started) / 1000).toFixed(0).padStart(4)} s, +${((now - lastSay) / 1000).toFixed(0)} s] ${line}\n`);
  lastSay = now;
};

export function run(command: string, argv: string[], cwd: string, allowFail = false): string {
  const r = spawnSync(command, argv, { cwd, env: GIT_ENV, encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0 && !(allowFail && r.status === 1)) throw new Error(`${command} ${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** ripgrep: Debian's package, installed when missing and root; null (with the reason said) otherwise. */
export function findRipgrep(): string | null {
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

export function machine(): string {
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
export function readEveryFile(root: string): number {
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
export function readAndStoreEveryFile(root: string, dbPath: string): number {
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

export function rgSearch(rg: string | null, root: string, question: string): (() => void) | null {
  if (!rg) return null;
  const terms = questionTerms(question).flatMap((t) => ['-e', t]);
  return () => run(rg, ['-l', '-i', ...terms, '.'], root, true);
}

export const GIT_LOG_PAGE = ['log', '-n', '100', '--format=%H%x00%an%x00%at%x00%B'];

/** The most edited note: its history is the longest a page shows. */
export function mostEditedNote(root: string): string {
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
export async function openBenchVault(root: string, watch = false): Promise<Vault> {
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
export function markWord(n: number): string {
  return `zqmark${[...n.toString(26)].map((c) => String.fromCharCode(97 + Number.parseInt(c, 26))).join('')}`;
}
