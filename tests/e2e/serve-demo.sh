#!/usr/bin/env bash
# Playwright's webServer: a fresh demo vault with a fixed anchor date, served by `lucid serve`
# on the test port with the token from the environment. Runs before globalSetup.
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf "$E2E_VAULT"
node bin/lucid demo "$E2E_VAULT" --anchor 2026-11-30 >/dev/null
exec node bin/lucid serve --vault "$E2E_VAULT" --port "$E2E_PORT" --no-build
