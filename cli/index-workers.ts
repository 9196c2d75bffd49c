import { existsSync } from 'node:fs';
import nodePath from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** How openVault starts the search index's worker threads (its `indexWorkers` option). */
export interface IndexWorkers {
  script: string;
  execArgv?: string[];
}

const here = fileURLToPath(import.meta.url);

/**
 * The worker script for the way this process runs: compiled, the build's `index-worker.mjs` beside
 * this file (scripts/build-cli.ts writes every output into one folder); from the sources, the
 * TypeScript worker loaded through tsx. null until lib/vault has a worker, so the index is built in
 * process.
 */
export function indexWorkers(): IndexWorkers | null {
  if (!here.endsWith('.ts')) {
    const script = nodePath.join(nodePath.dirname(here), 'index-worker.mjs');
    return existsSync(script) ? { script } : null;
  }
  const root = nodePath.resolve(nodePath.dirname(here), '..');
  const script = nodePath.join(root, 'lib', 'vault', 'search', 'index-worker.ts');
  const tsx = pathToFileURL(nodePath.join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return existsSync(script) ? { script, execArgv: ['--import', tsx] } : null;
}
