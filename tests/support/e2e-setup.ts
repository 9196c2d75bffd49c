import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import { e2eTemplate } from './e2e-vault';

/**
 * Playwright's globalSetup: one demo vault with a fixed anchor date, made once per run. Each worker
 * copies it and serves its copy (tests/support/e2e-test.ts), so specs that write never meet.
 */
export default function globalSetup() {
  if (!existsSync(path.join('.next', 'BUILD_ID'))) throw new Error('The dashboard is not built: run `node bin/lucid build --force` first.');
  const template = e2eTemplate();
  rmSync(template, { recursive: true, force: true });
  execFileSync(process.execPath, ['bin/lucid', 'demo', template, '--anchor', '2026-11-30'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
