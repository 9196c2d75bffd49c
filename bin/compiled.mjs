// Whether the compiled CLI (scripts/build-cli.ts writes it into .cli-build/) may run: plain JavaScript,
// so bin/lucid can decide before it loads anything else. The build records every file it was compiled
// from with its modification time and size; any difference, or a missing file, means the build is
// stale and must not run (a developer who edits a source gets the edited code).
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The build's folder, inside the package (so `..` from a compiled file is the package root). */
export const BUILD_DIR = '.cli-build';
/** The record of the current build, written last, atomically. */
export const BUILD_RECORD = 'build.json';
/** Bumped when the record's shape or the build's layout changes: an older record is stale. */
export const BUILD_FORMAT = 1;

/**
 * A file's stamp as the record keeps it: [modification time in ms, size], or [-1, -1] when missing.
 * @param {string} root
 * @param {string} file path relative to root
 * @returns {[number, number]}
 */
export function stampOf(root, file) {
  const stat = statSync(path.join(root, file), { throwIfNoEntry: false });
  return stat ? [stat.mtimeMs, stat.size] : [-1, -1];
}

/**
 * The current build of the package at `root` when it is fresh, else why not.
 * @param {string} root the package root
 * @returns {{ fresh: true, dir: string, record: { verbs: unknown[] } } | { fresh: false, why: string }}
 */
export function freshBuild(root) {
  const dir = path.join(root, BUILD_DIR);
  let record;
  try {
    record = JSON.parse(readFileSync(path.join(dir, BUILD_RECORD), 'utf8'));
  } catch {
    return { fresh: false, why: 'the CLI is not compiled' };
  }
  if (record.format !== BUILD_FORMAT) return { fresh: false, why: 'the CLI was compiled by another version of Lucid' };
  for (const [file, [mtime, size]] of Object.entries(record.inputs)) {
    const [nowMtime, nowSize] = stampOf(root, file);
    if (nowMtime !== mtime || nowSize !== size) return { fresh: false, why: `${file} changed since the CLI was compiled` };
  }
  return { fresh: true, dir, record };
}
