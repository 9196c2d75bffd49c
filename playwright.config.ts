import { defineConfig, devices } from '@playwright/test';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';

const PORT = Number(process.env.E2E_PORT ?? 3123);
const BASE_URL = `http://127.0.0.1:${PORT}`;
// Debian's chromium (apt-get install chromium); Playwright cannot download browsers here.
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// The webServer command makes its own demo vault here; tests read it with raw git.
process.env.E2E_VAULT ??= path.join(os.tmpdir(), `lucid-e2e-vault-${PORT}`);
process.env.E2E_TOKEN ??= randomBytes(24).toString('base64url');
process.env.E2E_PORT = String(PORT);

export default defineConfig({
  testDir: './tests/e2e',
  outputDir: './test-results',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  use: { baseURL: BASE_URL, trace: 'off', screenshot: 'only-on-failure' },
  projects: [
    { name: 'login', testMatch: /login\.setup\.ts/, use: { launchOptions: launchOptions() } },
    {
      name: 'chromium',
      dependencies: ['login'],
      testIgnore: /login\.setup\.ts/,
      use: { ...devices['Desktop Chrome'], storageState: path.join('test-results', '.auth', 'state.json'), launchOptions: launchOptions() },
    },
  ],
  webServer: {
    command: `bash tests/e2e/serve-demo.sh`,
    url: `${BASE_URL}/`,
    ignoreHTTPSErrors: true,
    reuseExistingServer: false,
    timeout: 180_000,
    env: {
      NEXT_TELEMETRY_DISABLED: '1',
      LUCID_TOKEN: process.env.E2E_TOKEN,
      E2E_VAULT: process.env.E2E_VAULT,
      E2E_PORT: String(PORT),
    },
    stdout: 'pipe',
    stderr: 'pipe',
  },
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
