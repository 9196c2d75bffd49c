import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/unit/**/*.spec.ts', 'tests/integration/**/*.spec.ts', 'tests/mcp/**/*.spec.ts'],
    exclude: ['tests/e2e/**', 'node_modules/**', '.lucid-demo/**'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
