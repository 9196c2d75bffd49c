// Compiles the CLI (cli/, mcp/, lib/ and their pure-JavaScript dependencies) with esbuild into .cli-build/,
// so `lucid` starts without tsx. Runs at `npm install` (postinstall) and as `npm run build:cli`; bin/lucid
// runs it again when a source changed since (bin/compiled.mjs decides).
// Run: node --import tsx scripts/build-cli.ts [root]
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { BUILD_DIR, BUILD_FORMAT, BUILD_RECORD, stampOf } from '../bin/compiled.mjs';
import type { VerbIndex } from '../cli/main';

/**
 * What is compiled, by output name (`.cli-build/<name>.mjs`). An entry whose source does not exist
 * yet is skipped, and recorded so that its appearance makes the build stale.
 */
const ENTRY_POINTS: Record<string, string> = {
  main: 'cli/main.ts',
  // The search index's worker thread (cli/index-workers.ts hands its compiled path to openVault).
  'index-worker': 'lib/vault/search/index-worker.ts',
};

/**
 * Loaded from node_modules at run time, never bundled: native addons, Next (`lucid serve` and `build`
 * run it as its own process from node_modules), and the tools of the sources' path.
 */
export const EXTERNAL = ['better-sqlite3', '@parcel/watcher', 'next', 'esbuild', 'tsx'];

/** Files that change what the build makes without being compiled into it. */
const ALSO_FROM = ['package.json', 'package-lock.json', 'node_modules/.package-lock.json', 'tsconfig.json', 'scripts/build-cli.ts', 'bin/compiled.mjs'];

// Bundled CommonJS dependencies call require() and read __dirname: give every ES module chunk both.
export const BANNER = [
  "import { createRequire as __lucidCreateRequire } from 'node:module';",
  "import { fileURLToPath as __lucidFileURLToPath } from 'node:url';",
  'const require = __lucidCreateRequire(import.meta.url);',
  'const __filename = __lucidFileURLToPath(import.meta.url);',
  "const __dirname = __filename.slice(0, __filename.lastIndexOf('/'));",
].join('\n');

/** A lock older than this was left by a build that died. */
const STALE_LOCK_MS = 120_000;

/**
 * Compiles the CLI of the package at `root` into `.cli-build/`; resolves with 'busy' (and does
 * nothing) when another process is compiling it. Files are written under names of their own and the
 * record last, each by rename, so a `lucid` starting meanwhile sees the old build or the new one.
 */
export async function buildCli(root: string): Promise<'built' | 'busy'> {
  const dir = path.join(root, BUILD_DIR);
  mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, '.lock');
  try {
    closeSync(openSync(lock, 'wx'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0) < STALE_LOCK_MS) return 'busy';
    rmSync(lock, { force: true });
    closeSync(openSync(lock, 'wx'));
  }
  try {
    await compile(root, dir);
    return 'built';
  } finally {
    rmSync(lock, { force: true });
  }
}

async function compile(root: string, dir: string): Promise<void> {
  const started = Date.now();
  const entries = Object.entries(ENTRY_POINTS).filter(([, source]) => existsSync(path.join(root, source)));
  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(entries),
    outdir: BUILD_DIR,
    entryNames: '[name]',
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: EXTERNAL,
    banner: { js: BANNER },
    metafile: true,
    write: false,
    logLevel: 'silent',
  });
  const outputs: string[] = [];
  for (const file of result.outputFiles) {
    const name = path.basename(file.path);
    outputs.push(name);
    // A chunk's name is its content's hash: one already there is this very file, and may be in use.
    if (name.startsWith('chunk-') && existsSync(file.path)) continue;
    writeFileSync(`${file.path}.tmp${process.pid}`, file.contents);
    renameSync(`${file.path}.tmp${process.pid}`, file.path);
  }
  const inputs: Record<string, [number, number]> = {};
  const sources = Object.keys(result.metafile.inputs).filter((file) => !file.includes('node_modules/') && !file.startsWith('../'));
  for (const file of [...sources, ...ALSO_FROM, ...Object.values(ENTRY_POINTS)]) {
    const stamp = stampOf(root, file);
    // Changed while compiling: the build may hold the old text, so the record must not match it.
    inputs[file] = stamp[0] >= started ? [-2, -2] : stamp;
  }
  const { verbIndex } = (await import(pathToFileURL(path.join(dir, 'main.mjs')).href)) as { verbIndex: () => Promise<VerbIndex> };
  const previous = readPreviousOutputs(dir);
  const record = { format: BUILD_FORMAT, outputs, inputs, verbs: await verbIndex() };
  writeFileSync(path.join(dir, `${BUILD_RECORD}.tmp${process.pid}`), `${JSON.stringify(record)}\n`);
  renameSync(path.join(dir, `${BUILD_RECORD}.tmp${process.pid}`), path.join(dir, BUILD_RECORD));
  // Keeps the previous build's files too: a `lucid` that started on it may still load a chunk.
  const keep = new Set([...outputs, ...previous, BUILD_RECORD, '.lock']);
  for (const name of readdirSync(dir)) if (!keep.has(name) && !name.includes('.tmp')) rmSync(path.join(dir, name), { force: true });
}

function readPreviousOutputs(dir: string): string[] {
  try {
    return (JSON.parse(readFileSync(path.join(dir, BUILD_RECORD), 'utf8')) as { outputs?: string[] }).outputs ?? [];
  } catch {
    return [];
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const started = performance.now();
  buildCli(root).then(
    (outcome) => {
      if (outcome === 'busy') console.log(`Another process is compiling the CLI in ${path.join(root, BUILD_DIR)}; left it to that one.`);
      else console.log(`Compiled the CLI into ${path.join(root, BUILD_DIR)} in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
    },
    (error: Error) => {
      console.error(
        `Compiling the CLI failed: ${error.message}\nlucid still works, from the TypeScript sources (slower); fix the error and run npm run build:cli.`,
      );
      // At `npm install` the sources still run, so the install goes on; by hand, the failure is the answer.
      process.exitCode = process.env.npm_lifecycle_event === 'postinstall' ? 0 : 1;
    },
  );
}
