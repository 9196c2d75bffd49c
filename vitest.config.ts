import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.spec.ts', 'tests/integration/**/*.spec.ts', 'tests/mcp/**/*.spec.ts'],
    // The soaks, the full ReDoS pass and the long batteries (*.stress.spec.ts) run in `npm run test:stress`,
    // which sets LUCID_STRESS=1 (vitest runs no file its config excludes, even one named on its command line).
    exclude: ['tests/e2e/**', 'node_modules/**', '.lucid-demo/**', ...(process.env.LUCID_STRESS === '1' ? [] : ['**/*.stress.spec.ts'])],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One worker per core, and one more: each test works in its own temp vault, so files run side by
    // side, and a worker spends much of its time waiting on git and child processes (two workers on
    // 2 cores beside the browser tests left a quarter of the CPU idle). Processes, not threads: tests
    // chdir, spawn and load better-sqlite3.
    maxWorkers: os.availableParallelism() + 1,
  },
});
