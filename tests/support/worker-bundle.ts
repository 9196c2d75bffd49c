import { buildSync } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BANNER, EXTERNAL } from '../../scripts/build-cli';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Under node_modules, so a bundle resolves the packages it leaves out (native addons) as the sources do. */
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'lucid-test-workers');

let dir: string | undefined;
const bundles = new Map<string, string>();

/**
 * The arguments for `process.execPath` that run a TypeScript worker script of tests/support, bundled
 * once per test process with esbuild as the CLI is. A child started through `--import tsx` spends
 * about a second of CPU compiling lib/vault before it does anything; the crash, race and append specs
 * start dozens of them.
 */
export function workerArgs(script: string): string[] {
  let bundle = bundles.get(script);
  if (!bundle) {
    if (!dir) {
      mkdirSync(CACHE, { recursive: true });
      const made = mkdtempSync(path.join(CACHE, `${process.pid}-`));
      process.once('exit', () => rmSync(made, { recursive: true, force: true }));
      dir = made;
    }
    bundle = path.join(dir, `${path.basename(script, '.ts')}.mjs`);
    buildSync({
      entryPoints: [script],
      outfile: bundle,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      // As the CLI is bundled: native addons and tools are loaded from node_modules.
      external: EXTERNAL,
      banner: { js: BANNER },
      logLevel: 'silent',
    });
    bundles.set(script, bundle);
  }
  return [bundle];
}
