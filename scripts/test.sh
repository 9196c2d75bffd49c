#!/usr/bin/env bash
# `npm test`: installs what the tests need (Debian's chromium when run as root), then runs the static
# checks (Biome, knip, types, the layer check), then the unit tests and the integration and MCP tests,
# with one production build of the dashboard and the browser tests against it beside them. Ends with
# a timing summary (each phase, the slowest 10 files) and one plain line:
# "tests: N passed, N failed, N skipped", where each static check counts as one test.
# docs/testing.md says where the time goes and how to add a test without slowing the suite.
set -uo pipefail
cd "$(dirname "$0")/.."

export NEXT_TELEMETRY_DISABLED=1
export DEBIAN_FRONTEND=noninteractive
export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
OUT=.ci-out
rm -rf "$OUT" && mkdir -p "$OUT"
: >"$OUT/checks.txt"
: >"$OUT/phases.txt"
step() { echo; echo "=== $1 ($(date +%T))"; }
now() { date +%s.%N; }
# phase NAME START: records how long a phase took, for the summary.
phase() { awk -v name="$1" -v start="$2" -v end="$(now)" 'BEGIN { printf "%s\t%.1f\n", name, end - start }' >>"$OUT/phases.txt"; }

have_e2e=0
if ls tests/e2e/*.spec.ts >/dev/null 2>&1; then have_e2e=1; fi

# 1. What the tests need: git for the vault layer; chromium for the browser tests (Playwright cannot
#    download browsers here); node_modules when `npm test` runs on a clone without them.
t=$(now)
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
if [ ! -d node_modules ]; then step "npm ci"; npm ci --no-audit --no-fund || exit 1; fi
phase "install check" "$t"

# 2. Static checks, each one test in the closing line.
check() {
  local name=$1; shift
  step "$name"
  "$@"
  local rc=$?
  echo "$name $rc" >>"$OUT/checks.txt"
  [ "$rc" = 0 ] || echo "$name failed (exit $rc)"
}
t=$(now)
check lint npx biome ci .
check knip npx knip
check types npx tsc --noEmit
check layers node --import tsx scripts/check-layers.ts
phase "lint, knip, types, layers" "$t"

# 3. In the background: the production build of the dashboard, then the browser tests against it,
#    while vitest runs in the foreground. The build is mostly one busy process, the browser tests wait
#    on a server and Chromium, and vitest's workers wait on git and child processes, so the two lines
#    share the cores: run one after the other they left a third of the CPU idle. No vitest test reads
#    .next/ or takes the browser tests' ports (3123 + 20 per Playwright worker).
build_rc=0
e2e_rc=0
browser_pid=
if [ "$have_e2e" = 1 ]; then
  echo "=== next build, then the browser tests, beside the vitest phases ($(date +%T)); their output is in $OUT/build.log and $OUT/browser.log"
  (
    t=$(now)
    node bin/lucid build --force >"$OUT/build.log" 2>&1
    rc=$?
    echo "$rc" >"$OUT/build.rc"
    phase "build (beside vitest)" "$t"
    [ "$rc" = 0 ] || exit 0
    t=$(now)
    PLAYWRIGHT_JSON_OUTPUT_FILE="$OUT/playwright.json" npx playwright test --reporter=list,json >"$OUT/browser.log" 2>&1
    echo "$?" >"$OUT/browser.rc"
    phase "browser (beside vitest)" "$t"
  ) &
  browser_pid=$!
fi

# 4. Unit tests, then integration and MCP tests (vitest 4; vitest 5 needs Node 22), in parallel workers.
vitest() {
  local name=$1; shift
  step "$name tests (vitest)"
  local t; t=$(now)
  npx vitest run "$@" --reporter=default --reporter=json --outputFile.json="$OUT/vitest-$name.json"
  local rc=$?
  phase "$name" "$t"
  return $rc
}
vitest unit tests/unit
unit_rc=$?
vitest integration tests/integration tests/mcp
integration_rc=$?
[ "$unit_rc" = 0 ] && [ "$integration_rc" = 0 ]
vitest_rc=$?

# 5. The browser tests' results, once they are done.
if [ "$have_e2e" = 1 ]; then
  t=$(now)
  wait "$browser_pid"
  phase "waiting for the browser tests" "$t"
  build_rc=$(cat "$OUT/build.rc" 2>/dev/null || echo 1)
  step "browser tests (playwright, $("$CHROMIUM_PATH" --version 2>/dev/null | tail -1))"
  if [ "$build_rc" = 0 ]; then
    cat "$OUT/browser.log"
    e2e_rc=$(cat "$OUT/browser.rc" 2>/dev/null || echo 1)
  else
    cat "$OUT/build.log"
  fi
fi

# 6. The timing summary and one plain closing line from the static checks and both runners' JSON reports.
node scripts/test-summary.mjs "$OUT" "$vitest_rc" "$build_rc" "$e2e_rc" "$have_e2e"
