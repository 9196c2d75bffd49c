// The end of `npm test` (scripts/test.sh): a timing summary (each phase, the slowest 10 test files)
// and one plain closing line, "tests: N passed, N failed, N skipped", from the static checks and both
// runners' JSON reports. Exits non-zero when anything failed or nothing passed.
// Usage: node scripts/test-summary.mjs OUT VITEST_RC BUILD_RC E2E_RC HAVE_E2E
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const [out, vitestRc, buildRc, e2eRc, haveE2e] = process.argv.slice(2);
const read = (name) => JSON.parse(readFileSync(path.join(out, name), 'utf8'));
let passed = 0;
let failed = 0;
let skipped = 0;
/** Each test file and the seconds it took, from either runner. */
const files = [];

try {
  for (const line of readFileSync(path.join(out, 'checks.txt'), 'utf8').split('\n').filter(Boolean)) {
    const [name, rc] = line.split(' ');
    if (rc === '0') passed += 1;
    else {
      failed += 1;
      console.log(`${name}: failed`);
    }
  }
} catch {
  failed += 1;
  console.log('static checks: no report');
}

const vitestReports = existsSync(out) ? readdirSync(out).filter((name) => /^vitest-.*\.json$/.test(name)) : [];
if (vitestReports.length === 0) {
  failed += 1;
  console.log('vitest: no JSON report');
}
for (const name of vitestReports) {
  try {
    const v = read(name);
    passed += v.numPassedTests;
    failed += v.numFailedTests;
    skipped += (v.numPendingTests || 0) + (v.numTodoTests || 0);
    if (v.numFailedTestSuites > 0 && v.numFailedTests === 0) failed += v.numFailedTestSuites;
    for (const file of v.testResults) files.push({ file: path.relative(process.cwd(), file.name), seconds: (file.endTime - file.startTime) / 1000 });
  } catch {
    failed += 1;
    console.log(`vitest: ${name} is not a JSON report`);
  }
}

if (haveE2e === '1') {
  if (buildRc !== '0') {
    failed += 1;
    console.log(`next build failed (its output: ${path.join(out, 'build.log')})`);
  } else
    try {
      const report = read('playwright.json');
      const s = report.stats;
      passed += s.expected + s.flaky;
      failed += s.unexpected;
      skipped += s.skipped;
      // A spec file's time is the sum of its tests' runs (its workers' time, not wall time).
      const byFile = new Map();
      const walk = (suite) => {
        for (const spec of suite.specs ?? [])
          for (const t of spec.tests ?? []) for (const r of t.results ?? []) byFile.set(spec.file, (byFile.get(spec.file) ?? 0) + r.duration / 1000);
        for (const child of suite.suites ?? []) walk(child);
      };
      for (const suite of report.suites ?? []) walk(suite);
      for (const [file, seconds] of byFile) files.push({ file: path.join('tests/e2e', file), seconds });
    } catch {
      failed += 1;
      console.log('playwright: no JSON report');
    }
}
if (vitestRc !== '0' && failed === 0) failed = 1;
if (e2eRc !== '0' && failed === 0) failed = 1;

const minutes = (seconds) => `${Math.floor(seconds / 60)}:${String(Math.round(seconds % 60)).padStart(2, '0')}`;
console.log('\nWhere the time went (wall clock; the build and the browser tests run beside the vitest phases):');
try {
  for (const line of readFileSync(path.join(out, 'phases.txt'), 'utf8').split('\n').filter(Boolean)) {
    const [name, seconds] = line.split('\t');
    console.log(`  ${minutes(Number(seconds)).padStart(6)}  ${name}`);
  }
} catch {
  console.log('  (no phase timings)');
}
console.log('The slowest 10 test files (seconds in their worker):');
for (const { file, seconds } of files.sort((a, b) => b.seconds - a.seconds).slice(0, 10)) console.log(`  ${seconds.toFixed(1).padStart(6)}  ${file}`);

console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
