/**
 * `npm run test:stress`: runs the race and crash tests (`race-*.spec.ts`) at the catalog's scale
 * (LUCID_STRESS=1), and the tests that only this run has (`*.stress.spec.ts`: soak, load and
 * measuring tests, and the full passes whose fast form is in `npm test`), one file at a time, then
 * prints one table of every figure they reported (tests/support/stress.ts) and exits non-zero if any
 * test failed. Both are looked for in tests/unit, tests/integration and tests/mcp.
 * Arguments keep only the files whose name contains one of them (`npm run test:stress -- appends`).
 * `npm test` runs the race files at CI scale and leaves the `.stress.spec.ts` files out (vitest.config.ts
 * excludes them unless LUCID_STRESS=1, which this script sets).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const only = process.argv.slice(2);
/** Which spec files are this run's: the race tests at full scale, and the stress-only ones. */
const STRESS_FILE = /^race-.*\.spec\.ts$|\.stress\.spec\.ts$/;
const files = ['unit', 'integration', 'mcp']
  .flatMap((folder) => {
    const dir = path.join(root, 'tests', folder);
    return existsSync(dir) ? readdirSync(dir).map((name) => path.join('tests', folder, name)) : [];
  })
  .filter((file) => STRESS_FILE.test(path.basename(file)))
  .filter((file) => only.length === 0 || only.some((part) => path.basename(file).includes(part)))
  .sort();

if (files.length === 0) {
  console.error(`No stress tests found (tests/*/race-*.spec.ts, tests/*/*.stress.spec.ts${only.length ? ` matching ${only.join(', ')}` : ''}).`);
  process.exit(1);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'lucid-stress-'));
const report = path.join(work, 'figures.jsonl');
const results = path.join(work, 'vitest.json');
console.log(`Stress run of ${files.join(', ')}; figures go to ${report}.`);
const started = Date.now();

// Sequential files: the tests kill, flip and race processes, and a 2-core machine shared by several
// of them measures contention between the tests instead of within each.
const run = spawnSync(
  process.execPath,
  [
    path.join(root, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    ...files,
    '--no-file-parallelism',
    '--testTimeout=3600000',
    '--hookTimeout=600000',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${results}`,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, LUCID_STRESS: '1', LUCID_STRESS_REPORT: report } },
);

interface Figure {
  test: string;
  name: string;
  value: number | string;
  scale: string;
}
const figures: Figure[] = existsSync(report)
  ? readFileSync(report, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Figure)
  : [];

let passed = 0;
let failed = 0;
let ran = false;
try {
  const summary = JSON.parse(readFileSync(results, 'utf8')) as { numPassedTests: number; numFailedTests: number; numFailedTestSuites: number };
  passed = summary.numPassedTests;
  failed = summary.numFailedTests + (summary.numFailedTests === 0 ? summary.numFailedTestSuites : 0);
  ran = true;
} catch {
  failed = 1;
}

console.log('\nFigures of the stress run (LUCID_STRESS=1)\n');
if (figures.length === 0) {
  console.log('(no figures were reported)');
} else {
  const rows = [['test', 'figure', 'value'], ...figures.map((f) => [f.test, f.name, String(f.value)])];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) => `| ${row.map((cell, i) => (i === 2 ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))).join(' | ')} |`;
  console.log(line(rows[0]));
  console.log(`|${widths.map((w, i) => (i === 2 ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`);
  for (const row of rows.slice(1)) console.log(line(row));
}
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
console.log(`\nstress: ${passed} passed, ${failed} failed, ${files.length} files, ${minutes} min${ran ? '' : ' (no vitest report)'}`);
rmSync(work, { recursive: true, force: true });
process.exit(run.status === 0 && failed === 0 && passed > 0 ? 0 : 1);
