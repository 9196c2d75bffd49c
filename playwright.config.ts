import { defineConfig, devices } from '@playwright/test';
import { randomBytes } from 'node:crypto';

// The first worker's server listens here, each next worker's 20 ports further (tests/support/e2e-vault.ts).
process.env.E2E_PORT ??= '3123';
// Debian's chromium (apt-get install chromium); Playwright cannot download browsers here.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Every worker's server is started with this token (the cookie's name carries the port).
process.env.E2E_TOKEN ??= randomBytes(24).toString('base64url');

export default defineConfig({
  testDir: './tests/e2e',
  outputDir: './test-results',
  // globalSetup makes one demo vault; each worker serves its own copy (tests/support/e2e-test.ts),
  // and a spec file's tests stay in order on one worker.
  globalSetup: './tests/support/e2e-setup.ts',
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 2),
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: { trace: 'off', screenshot: 'only-on-failure' },
  projects: [{ name: 'chromium', use: { ...devices['Desktop Chrome'], launchOptions: launchOptions() } }],
});

function launchOptions() {
  return {
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  };
}
