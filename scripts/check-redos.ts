// The ReDoS check: finds every regular expression written in the source (literals, and `RegExp(...)` /
// `new RegExp(...)` with a constant pattern) by parsing each file with oxc-parser, and asks recheck whether
// one can take super-linear time. recheck runs its pure-JavaScript backend only: never Java, never its
// native binary, never the network.
// Run: node --import tsx scripts/check-redos.ts [root]   (exit 1 and one line per finding on stderr)
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { parseSync } from 'oxc-parser';
import type { Parameters as RecheckParameters } from 'recheck';

/** One regular expression as written in a source file. */
export interface FoundRegex {
  file: string;
  line: number;
  source: string;
  flags: string;
}

/** A regular expression recheck found super-linear, with the input that shows it. */
export interface Finding extends FoundRegex {
  complexity: string;
  attack: string;
}

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', '.next', '.git', '.lucid-demo', '.lucid', '.ci-out', 'test-results', 'playwright-report', 'bench-out']);
/** The code that handles notes, agents' input and requests. */
export const CHECKED_ROOTS = ['lib', 'cli', 'mcp', 'app', 'components', 'proxy.ts'];

type AstNode = { type: string; start: number; [key: string]: unknown };

function walk(node: unknown, visit: (node: AstNode) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, visit);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const record = node as AstNode;
  if (typeof record.type === 'string') visit(record);
  for (const key of Object.keys(record)) if (key !== 'parent') walk(record[key], visit);
}

/** The value of a string literal or of a template literal without substitutions; null for anything else. */
function constantString(node: unknown): string | null {
  const n = node as AstNode | undefined;
  if (!n) return null;
  if (n.type === 'Literal' && typeof n.value === 'string') return n.value;
  if (n.type === 'TemplateLiteral' && (n.expressions as unknown[]).length === 0) {
    const quasi = (n.quasis as { value: { cooked: string | null } }[])[0];
    return quasi?.value.cooked ?? null;
  }
  return null;
}

/**
 * Every regular expression of one source file: `/literals/` and `RegExp(...)` / `new RegExp(...)` whose
 * pattern is a constant string. A `RegExp` built from a variable is returned with `source: null` so the
 * caller can say it was not checked.
 */
export function regexesOf(file: string, text: string): { found: FoundRegex[]; dynamic: number[]; errors: string[] } {
  const parsed = parseSync(file, text);
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const found: FoundRegex[] = [];
  const dynamic: number[] = [];
  walk(parsed.program, (node) => {
    const regex = node.regex as { pattern: string; flags: string } | undefined;
    if (node.type === 'Literal' && regex) {
      found.push({ file, line: lineOf(node.start), source: regex.pattern, flags: regex.flags });
      return;
    }
    if (node.type !== 'NewExpression' && node.type !== 'CallExpression') return;
    const callee = node.callee as AstNode;
    if (callee.type !== 'Identifier' || callee.name !== 'RegExp') return;
    const args = node.arguments as AstNode[];
    const pattern = constantString(args[0]);
    const flags = args.length > 1 ? constantString(args[1]) : '';
    if (pattern === null || flags === null) dynamic.push(lineOf(node.start));
    else found.push({ file, line: lineOf(node.start), source: pattern, flags });
  });
  return { found, dynamic, errors: parsed.errors.map((e) => e.message) };
}

/** The source files under the checked folders of `root`, repo-relative with forward slashes, sorted. */
export function sourceFiles(root: string, roots: readonly string[] = CHECKED_ROOTS): string[] {
  const files: string[] = [];
  const visit = (rel: string) => {
    const full = path.join(root, rel);
    if (!existsSync(full)) return;
    if (statSync(full).isFile()) {
      if (SOURCE.test(rel) && !rel.endsWith('.d.ts')) files.push(rel);
      return;
    }
    for (const entry of readdirSync(full, { withFileTypes: true })) {
      if (SKIP_DIRS.has(entry.name)) continue;
      visit(rel ? `${rel}/${entry.name}` : entry.name);
    }
  };
  for (const start of roots) visit(start);
  return files.sort();
}

/** Every regular expression under the checked folders of `root`, plus the places that build one from a variable. */
export function collectRegexes(
  root: string,
  roots: readonly string[] = CHECKED_ROOTS,
): { found: FoundRegex[]; dynamic: { file: string; line: number }[]; errors: string[] } {
  const found: FoundRegex[] = [];
  const dynamic: { file: string; line: number }[] = [];
  const errors: string[] = [];
  for (const file of sourceFiles(root, roots)) {
    const result = regexesOf(file, readFileSync(path.join(root, file), 'utf8'));
    found.push(...result.found);
    for (const line of result.dynamic) dynamic.push({ file, line });
    for (const message of result.errors) errors.push(`${file}: cannot parse: ${message}`);
  }
  return { found, dynamic, errors };
}

/**
 * The pattern with each counted repetition cut down (`{20,}` → `{2,}`, `{40}` → `{2}`, `{0,255}` → `{0,3}`).
 * recheck's automaton copies a counted part once per count, which in pure JavaScript takes up to a
 * minute for `[A-Za-z0-9_-]{20,}`; the counts change the constant of the matching time, never its degree
 * (a repetition loops only through its unbounded `{n,}`, kept as such). Escapes and classes are kept.
 */
export function capCounts(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i += 1) {
    const c = source[i];
    if (c === '\\') {
      out += source.slice(i, i + 2);
      i += 1;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      continue;
    }
    const count = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 24)) : null;
    if (!count) {
      out += c;
      continue;
    }
    const low = Math.min(Number(count[1]), 2);
    if (count[2] === undefined) out += `{${low}}`;
    else if (count[3] === '') out += `{${low},}`;
    else out += `{${low},${Math.max(low, Math.min(Number(count[3]), 3))}}`;
    i += count[0].length - 1;
  }
  return out;
}

/** recheck's verdict on one pattern. */
export interface Verdict {
  status: 'safe' | 'vulnerable' | 'unknown';
  complexity?: string;
  attack?: string;
  error?: string;
}

/**
 * recheck's limits as counts only (characters read, attack size, a fixed random seed), never as
 * times: its fuzzer then reaches the same verdict on a quiet machine and on two loaded cores, so
 * the verdict depends on the pattern alone (with its default time limits, a pattern was called
 * polynomial on one run and safe on the next).
 */
const RECHECK_PARAMS: RecheckParameters = {
  timeout: null,
  attackTimeout: null,
  incubationTimeout: null,
  // recheck's default (negative): no recall validation, which the pure-JavaScript backend cannot run.
  recallTimeout: -1000,
  seedingTimeout: null,
  randomSeed: 0,
};

/**
 * The verdicts of the last full pass, by `/source/flags`: `npm test` checks with recheck only the
 * patterns not in it (a new or changed regex), so it stays fast; `npm run test:stress` and
 * `node --import tsx scripts/check-redos.ts --write-cache` check every pattern again and rewrite it.
 */
export const VERDICT_CACHE = path.join(import.meta.dirname, 'redos-verdicts.json');

/** The cached verdicts (empty when the file is absent). */
export function readVerdictCache(file = VERDICT_CACHE): Map<string, Verdict> {
  if (!existsSync(file)) return new Map();
  return new Map(Object.entries(JSON.parse(readFileSync(file, 'utf8')) as Record<string, Verdict>));
}

/** Writes the verdicts, sorted by key, one per line. */
export function writeVerdictCache(verdicts: Map<string, Verdict>, file = VERDICT_CACHE): void {
  const sorted = Object.fromEntries([...verdicts.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writeFileSync(file, `${JSON.stringify(sorted, null, 2)}\n`);
}

/** The key of a pattern in the verdicts. */
export const keyOf = (p: { source: string; flags: string }) => `/${p.source}/${p.flags}`;

// Runs in a worker thread: recheck's synchronous entry with its pure-JavaScript backend, chosen in the
// worker's environment (recheck reads it on every call), so it starts no process and reads no network.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { checkSync } = require(workerData.recheck);
parentPort.on('message', ({ id, source, flags }) => {
  try {
    const r = checkSync(source, flags, workerData.params);
    const verdict = r.status === 'vulnerable'
      ? { status: 'vulnerable', complexity: r.complexity.summary, attack: r.attack.pattern }
      : r.status === 'unknown' ? { status: 'unknown', error: r.error.kind + (r.error.message ? ': ' + r.error.message : '') } : { status: 'safe' };
    parentPort.postMessage({ id, verdict });
  } catch (error) {
    parentPort.postMessage({ id, verdict: { status: 'unknown', error: String(error) } });
  }
});
`;

/**
 * Checks each distinct pattern once, on up to `threads` worker threads, each running recheck's pure
 * JavaScript backend. Returns a verdict per `/source/flags` key.
 */
export async function checkPatterns(
  patterns: readonly { source: string; flags: string }[],
  threads = Math.max(1, Math.min(4, availableParallelism())),
): Promise<Map<string, Verdict>> {
  const queue = [...new Map(patterns.map((p) => [keyOf(p), p])).values()];
  const verdicts = new Map<string, Verdict>();
  const recheckPath = createRequire(import.meta.url).resolve('recheck');
  const runWorker = () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { recheck: recheckPath, params: RECHECK_PARAMS },
        env: { ...process.env, RECHECK_BACKEND: 'pure', RECHECK_SYNC_BACKEND: 'pure' },
      });
      let current: { source: string; flags: string } | undefined;
      const next = () => {
        current = queue.shift();
        if (!current) {
          void worker.terminate().then(() => resolve());
          return;
        }
        worker.postMessage({ id: keyOf(current), source: capCounts(current.source), flags: current.flags });
      };
      worker.on('message', ({ id, verdict }: { id: string; verdict: Verdict }) => {
        verdicts.set(id, verdict);
        next();
      });
      worker.on('error', reject);
      next();
    });
  await Promise.all(Array.from({ length: Math.min(threads, queue.length) }, runWorker));
  return verdicts;
}

/**
 * Checks each found regex and returns the super-linear ones and those recheck could not decide, in
 * source order. Patterns in `cache` take its verdict; only the others go to recheck (`checked`).
 */
export async function findSuperLinear(
  found: readonly FoundRegex[],
  threads?: number,
  cache: ReadonlyMap<string, Verdict> = new Map(),
): Promise<{ findings: Finding[]; unknown: (FoundRegex & { error: string })[]; verdicts: Map<string, Verdict>; checked: number }> {
  const fresh = found.filter((regex) => !cache.has(keyOf(regex)));
  const computed = await checkPatterns(fresh, threads);
  const verdicts = new Map<string, Verdict>();
  for (const regex of found) {
    const key = keyOf(regex);
    const verdict = computed.get(key) ?? cache.get(key);
    if (verdict) verdicts.set(key, verdict);
  }
  const findings: Finding[] = [];
  const unknown: (FoundRegex & { error: string })[] = [];
  for (const regex of found) {
    const verdict = verdicts.get(keyOf(regex));
    if (verdict?.status === 'vulnerable') findings.push({ ...regex, complexity: verdict.complexity ?? '', attack: verdict.attack ?? '' });
    if (verdict?.status === 'unknown') unknown.push({ ...regex, error: verdict.error ?? '' });
  }
  return { findings, unknown, verdicts, checked: computed.size };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const write = args.includes('--write-cache');
  const root = path.resolve(args.find((a) => !a.startsWith('--')) ?? '.');
  const started = performance.now();
  const { found, dynamic, errors } = collectRegexes(root);
  // Every pattern is checked again: this is the full pass (--write-cache keeps its verdicts for npm test).
  const { findings, unknown, verdicts } = await findSuperLinear(found);
  for (const e of errors) process.stderr.write(`${e}\n`);
  for (const f of findings) process.stderr.write(`${f.file}:${f.line}: /${f.source}/${f.flags} is ${f.complexity}; attack: ${f.attack}\n`);
  for (const u of unknown) process.stderr.write(`${u.file}:${u.line}: /${u.source}/${u.flags}: recheck could not decide (${u.error})\n`);
  for (const d of dynamic) process.stdout.write(`${d.file}:${d.line}: RegExp built from a variable (not checked)\n`);
  if (write) writeVerdictCache(verdicts);
  process.stdout.write(
    `redos: ${found.length} regexes (${verdicts.size} distinct), ${findings.length} super-linear, ${unknown.length} undecided, ${Math.round(performance.now() - started)} ms${write ? `; verdicts written to ${path.relative(root, VERDICT_CACHE)}` : ''}\n`,
  );
  if (findings.length > 0 || unknown.length > 0 || errors.length > 0) process.exitCode = 1;
}
