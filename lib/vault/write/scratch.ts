import nodePath from 'node:path';
import type { VaultFs } from '../fs';

/** Scratch entries in `.lucid/` of a revert's dry run, an inbox merge and a commit's staging. */
const SCRATCH = /^(revert-|merge-|stage-)[a-z2-7]{10}(\.(ours|base|theirs|index))?$/;

/**
 * Removes the scratch files and folders a killed process left in the state folder (last changed
 * more than a minute before `now`, wall-clock time): a live revert, merge or commit removes its own.
 */
export async function sweepScratch(fs: VaultFs, stateDir: () => string, now: Date): Promise<string[]> {
  // Asked here, so a state folder Lucid refuses (a link, a file) is the next operation's error, not the open's.
  const dir = stateDir();
  const removed: string[] = [];
  for (const entry of await fs.readdir(dir).catch(() => [])) {
    if (!SCRATCH.test(entry.name)) continue;
    const abs = nodePath.join(dir, entry.name);
    const stat = await fs.lstat(abs).catch(() => null);
    if (!stat || now.getTime() - stat.mtimeMs <= 60_000) continue;
    if (stat.isDirectory()) {
      for (const inner of await fs.readdir(abs).catch(() => [])) await fs.unlink(nodePath.join(abs, inner.name)).catch(() => undefined);
      await fs.rmdir(abs).catch(() => undefined);
    } else if (stat.isFile()) await fs.unlink(abs).catch(() => undefined);
    removed.push(entry.name);
  }
  return removed;
}
