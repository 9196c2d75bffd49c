#!/usr/bin/env bash
# `npm test`: installs what the tests need (Debian's chromium when run as root), then runs every
# unit, integration, MCP and browser test after the static checks (Biome, knip, the layer check), and ends with
# one plain line: "tests: N passed, N failed", where each static check counts as one test.
set -uo pipefail
cd "$(dirname "$0")/.."

export NEXT_TELEMETRY_DISABLED=1
export DEBIAN_FRONTEND=noninteractive
export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
OUT=.ci-out
rm -rf "$OUT" && mkdir -p "$OUT"
step() { echo; echo "=== $1 ($(date +%T))"; }

have_e2e=0
if ls tests/e2e/*.spec.ts >/dev/null 2>&1; then have_e2e=1; fi

# 1. System packages: git for the vault layer; chromium for the browser tests (Playwright cannot download browsers here).
need=()
command -v git >/dev/null 2>&1 || need+=(git)
if [ "$have_e2e" = 1 ] && [ ! -x "$CHROMIUM_PATH" ]; then need+=(chromium); fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "apt-get install ${need[*]}"
    apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
  else
    echo "Missing: ${need[*]}. Install them (Debian/Ubuntu: sudo apt-get install ${need[*]}), or set CHROMIUM_PATH to a Chromium binary."
  fi
fi

# 2. Node dependencies, when `npm test` runs on a clone without them.
if [ ! -d node_modules ]; then step "npm ci"; npm ci --no-audit --no-fund || exit 1; fi

# 3. Static checks, each one test in the closing line: lint and format (Biome), unused code (knip), layers.
check() {
  local name=$1; shift
  step "$name"
  "$@"
  local rc=$?
  echo "$name $rc" >>"$OUT/checks.txt"
  [ "$rc" = 0 ] || echo "$name failed (exit $rc)"
}
: >"$OUT/checks.txt"
check lint npx biome ci .
check knip npx knip
check layers node --import tsx scripts/check-layers.ts

# 4. Unit, integration and MCP tests (vitest 4; vitest 5 needs Node 22).
step "unit and integration tests (vitest)"
npx vitest run --reporter=default --reporter=json --outputFile.json="$OUT/vitest.json"
unit_rc=$?

# 5. Production build and browser tests.
e2e_rc=0
build_rc=0
if [ "$have_e2e" = 1 ]; then
  step "next build"
  node bin/lucid build --force
  build_rc=$?
  if [ "$build_rc" = 0 ]; then
    step "browser tests (playwright, $("$CHROMIUM_PATH" --version 2>/dev/null | tail -1))"
    PLAYWRIGHT_JSON_OUTPUT_FILE="$OUT/playwright.json" npx playwright test --reporter=list,json
    e2e_rc=$?
  fi
fi

# 6. One plain closing line from the static checks and both runners' JSON reports.
node - "$OUT" "$unit_rc" "$build_rc" "$e2e_rc" "$have_e2e" <<'JS'
const fs = require('node:fs');
const [out, unitRc, buildRc, e2eRc, haveE2e] = process.argv.slice(2);
let passed = 0, failed = 0, skipped = 0;
try {
  for (const line of fs.readFileSync(`${out}/checks.txt`, 'utf8').split('\n').filter(Boolean)) {
    const [name, rc] = line.split(' ');
    if (rc === '0') passed += 1;
    else { failed += 1; console.log(`${name}: failed`); }
  }
} catch { failed += 1; console.log('static checks: no report'); }
try {
  const v = JSON.parse(fs.readFileSync(`${out}/vitest.json`, 'utf8'));
  passed += v.numPassedTests; failed += v.numFailedTests; skipped += (v.numPendingTests || 0) + (v.numTodoTests || 0);
  if (v.numFailedTestSuites > 0 && v.numFailedTests === 0) failed += v.numFailedTestSuites;
} catch { failed += 1; console.log('vitest: no JSON report'); }
if (haveE2e === '1') {
  if (buildRc !== '0') { failed += 1; console.log('next build failed'); }
  else try {
    const s = JSON.parse(fs.readFileSync(`${out}/playwright.json`, 'utf8')).stats;
    passed += s.expected + s.flaky; failed += s.unexpected; skipped += s.skipped;
  } catch { failed += 1; console.log('playwright: no JSON report'); }
}
if (unitRc !== '0' && failed === 0) failed = 1;
if (e2eRc !== '0' && failed === 0) failed = 1;
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = failed > 0 || passed === 0 ? 1 : 0;
JS
