import { existsSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IndexWorkers } from '../lib/vault/index';

const here = fileURLToPath(import.meta.url);

/**
 * The search index's worker script for the way this process runs: compiled, the build's
 * `index-worker.mjs` beside this file (scripts/build-cli.ts writes every output into one folder);
 * from the sources, the TypeScript worker through its tsx require hook (on Node 20, `--import tsx`
 * in a worker's execArgv does not reach the worker's own loader). null when neither is there: the
 * index is then built in process.
 */
export function indexWorkers(): IndexWorkers | null {
  const script = here.endsWith('.ts')
    ? nodePath.join(nodePath.resolve(nodePath.dirname(here), '..'), 'lib', 'vault', 'search', 'index-worker-tsx.cjs')
    : nodePath.join(nodePath.dirname(here), 'index-worker.mjs');
  return existsSync(script) ? { script } : null;
}
