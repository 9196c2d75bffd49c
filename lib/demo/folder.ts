import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { VaultError } from '../vault';

/** Written in `.lucid/` (git-ignored) so a later run knows the folder is a demo it may replace. */
const MARKER = '.lucid/demo.json';

function isDemo(root: string): boolean {
  try {
    const marker = JSON.parse(readFileSync(nodePath.join(root, MARKER), 'utf8')) as { lucidDemo?: unknown };
    return marker.lucidDemo === 1 && existsSync(nodePath.join(root, '.git'));
  } catch {
    return false;
  }
}

/** Refuses a folder that holds anything but an earlier demo; empties an earlier demo. */
export function prepareFolder(root: string): void {
  if (existsSync(root)) {
    if (!statSync(root).isDirectory()) throw new VaultError('invalid_path', `${root} is a file, not a folder.`);
    const entries = readdirSync(root);
    if (entries.length > 0) {
      if (!isDemo(root)) {
        throw new VaultError(
          'invalid_input',
          `${root} is not empty and is not a Lucid demo vault. Give a new or empty folder; the demo never writes over other files.`,
        );
      }
      for (const entry of entries) rmSync(nodePath.join(root, entry), { recursive: true, force: true });
    }
  }
  mkdirSync(root, { recursive: true });
}

/** Marks `root` as a demo that a later run may replace. */
export function markAsDemo(root: string, anchor: string): void {
  mkdirSync(nodePath.join(root, nodePath.dirname(MARKER)), { recursive: true });
  writeFileSync(nodePath.join(root, MARKER), `${JSON.stringify({ lucidDemo: 1, anchor })}\n`);
}
