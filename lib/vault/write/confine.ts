import type { Stats } from 'node:fs';
import nodePath from 'node:path';
import { VaultError } from '../errors';
import type { VaultFs } from '../fs';
import { ioError } from './atomic';

/** The absolute path of a vault path for writing: no component may be a symbolic link. */
export async function resolveForWrite(fs: VaultFs, root: string, path: string): Promise<string> {
  const segments = path.split('/');
  let current = root;
  for (let i = 0; i < segments.length; i += 1) {
    current = nodePath.join(current, segments[i]);
    let stat: Stats;
    try {
      stat = await fs.lstat(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') break;
      if (code === 'ENOTDIR') throw new VaultError('invalid_path', `A part of ${path} is a file, not a folder.`);
      throw ioError(error, `check ${path}`);
    }
    if (stat.isSymbolicLink()) {
      throw new VaultError('forbidden', `${path} goes through a symbolic link; Lucid only writes real files inside the vault.`);
    }
    const last = i === segments.length - 1;
    if (!last && !stat.isDirectory()) throw new VaultError('invalid_path', `A part of ${path} is a file, not a folder.`);
    if (last && !stat.isFile()) throw new VaultError('invalid_path', `${path} is not a regular file.`);
  }
  return nodePath.join(root, path);
}

/** Creates a folder of the vault (and its parents); refuses one that turns out to be a link. */
export async function ensureDir(fs: VaultFs, root: string, dir: string): Promise<void> {
  const rel = nodePath.relative(root, dir);
  if (rel === '') return;
  try {
    await fs.mkdir(dir);
  } catch (error) {
    throw ioError(error, `create the folder ${rel}`);
  }
  const real = await fs.realpath(dir);
  if (real !== dir) throw new VaultError('forbidden', `The folder ${rel} is a link; Lucid only writes real files inside the vault.`);
}

/**
 * Removes Lucid temp files left behind by a crash (last written more than a minute before `now`);
 * returns their vault paths. `now` must be wall-clock time, the time file modification times are
 * in: a vault clock set elsewhere (a test's, the demo's) would delete another writer's fresh file.
 */
export async function sweepTempFiles(fs: VaultFs, root: string, now: Date, tempPrefix: string): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (dir: string, prefix: string) => {
    for (const entry of await fs.readdir(dir).catch(() => [])) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      const abs = nodePath.join(dir, entry.name);
      if (entry.isDirectory() && !entry.name.startsWith('.')) await walk(abs, rel);
      else if (entry.isFile() && entry.name.startsWith(tempPrefix)) {
        const stat = await fs.lstat(abs).catch(() => null);
        if (stat && now.getTime() - stat.mtimeMs > 60_000) {
          await fs.unlink(abs).catch(() => undefined);
          removed.push(rel);
        }
      }
    }
  };
  await walk(root, '');
  return removed;
}
