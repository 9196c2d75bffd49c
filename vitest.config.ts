import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.spec.ts', 'tests/integration/**/*.spec.ts', 'tests/mcp/**/*.spec.ts'],
    exclude: ['tests/e2e/**', 'node_modules/**', '.lucid-demo/**'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One worker per core: each test works in its own temp vault, so files run side by side (vitest's
    // default leaves one core free, which on a 2-core machine is one worker). Processes, not threads:
    // tests chdir, spawn and load better-sqlite3.
    pool: 'forks',
    maxWorkers: Math.max(2, os.availableParallelism()),
  },
});
