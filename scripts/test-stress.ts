/**
 * `npm run test:stress`: runs the race and crash tests (tests/integration/race-*.spec.ts, whichever
 * exist) at the catalog's scale (LUCID_STRESS=1), one file at a time, then prints one table of every
 * figure they reported (tests/support/stress.ts) and exits non-zero if any test failed.
 * Arguments keep only the files whose name contains one of them (`npm run test:stress -- appends`).
 * `npm test` runs the same files at CI scale.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dir = path.join(root, 'tests', 'integration');
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((name) => /^race-.*\.spec\.ts$/.test(name))
  .filter((name) => only.length === 0 || only.some((part) => name.includes(part)))
  .sort()
  .map((name) => path.join('tests', 'integration', name));

if (files.length === 0) {
  console.error(`No race tests found (tests/integration/race-*.spec.ts${only.length ? ` matching ${only.join(', ')}` : ''}).`);
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
