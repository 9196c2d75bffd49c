import type { Stats } from 'node:fs';
import nodePath from 'node:path';
import { VaultError } from '../errors';
import type { VaultFs } from '../fs';
import { ioError } from './atomic';

// Confinement without openat(2). Node has no *at() calls, so on Linux they are emulated through
// /proc/self/fd: a folder is opened once as a descriptor (O_DIRECTORY | O_NOFOLLOW), each next
// component is opened as `/proc/self/fd/<parent>/<name>` (the kernel takes the folder the
// descriptor holds, never a name again), and every create, rename, unlink, mkdir and rmdir names
// `/proc/self/fd/<dir>/<name>`. A folder swapped for a link is then refused at its component, and
// nothing is ever done by a path that was checked earlier. Without /proc (macOS, Windows), the
// fallback opens by name with O_NOFOLLOW and compares each opened folder's dev/ino with lstat of
// every component after the fact: a swap is detected, but between that check and the call that
// follows it a swap of an upper folder can still redirect one call (see the report of issue 9).

/** A folder of the vault held open as a descriptor and known to be the folder inside the vault. */
export interface VaultDir {
  fd: number;
  /** Vault-relative path ('' for the root). */
  rel: string;
  /** Its absolute canonical path inside the vault. */
  abs: string;
  /** True when `at` names entries through `/proc/self/fd/<fd>` (Linux). */
  fdPaths: boolean;
  /** What each opened folder from the root down was (dev/ino), for the fallback's checks. */
  chain: { abs: string; dev: number; ino: number }[];
}

const fdPathsOf = new WeakMap<VaultFs, Promise<boolean>>();
/** Whether this file system emulates *at() through /proc/self/fd (probed once per VaultFs). */
function usesFdPaths(fs: VaultFs): Promise<boolean> {
  let probe = fdPathsOf.get(fs);
  if (!probe) {
    probe = fs.fdPaths().catch(() => false);
    fdPathsOf.set(fs, probe);
  }
  return probe;
}

/** The path naming `name` inside exactly the folder `dir` (through its descriptor on Linux). */
export function dirEntry(dir: VaultDir, name: string): string {
  return dir.fdPaths ? `/proc/self/fd/${dir.fd}/${name}` : nodePath.join(dir.abs, name);
}

/** The path naming the folder `dir` itself (for fsync and listing). */
export function dirSelf(dir: VaultDir): string {
  return dir.fdPaths ? `/proc/self/fd/${dir.fd}` : dir.abs;
}

/** The refusal of a path through a link: reading names what was not read, writing what is never written. */
export function linkError(rel: string, reading: boolean): VaultError {
  return reading
    ? new VaultError(
        'forbidden',
        `A folder on the path of ${rel} is (or was just replaced by) a link; Lucid reads only files inside the vault. Nothing was read.`,
      )
    : new VaultError('forbidden', `${rel} goes through a symbolic link; Lucid only writes real files inside the vault.`);
}

/** The refusal of a folder that was swapped for a link or moved while it was held open. */
export function swappedError(rel: string): VaultError {
  return new VaultError(
    'forbidden',
    `A folder on the path of ${rel} was replaced by a link or moved while Lucid used it; nothing was done there. Check the folder and try again.`,
  );
}

/**
 * Opens the vault folder `rel` ('' for the root) as a descriptor, one component at a time and
 * never through a link. With `create`, missing folders are made one at a time inside the folder
 * just opened; they are listed in `created` (vault-relative, outermost first) so a rollback can
 * remove exactly those. On any failure every folder this call made is removed again. The caller
 * closes the result with {@link closeDir}.
 */
export async function openVaultDir(
  fs: VaultFs,
  root: string,
  rel: string,
  options: { create?: boolean; reading?: boolean; target?: string } = {},
): Promise<{ dir: VaultDir; created: string[] }> {
  const fdPaths = await usesFdPaths(fs);
  const target = options.target ?? rel;
  const segments = rel === '' || rel === '.' ? [] : rel.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..') throw new VaultError('invalid_path', `${target} is not a plain vault path.`);
  }
  let fd: number;
  try {
    fd = await fs.openDir(root);
  } catch (error) {
    throw ioError(error, 'open the vault folder');
  }
  const opened: number[] = [fd];
  const created: string[] = [];
  const chain: VaultDir['chain'] = [];
  const dir: VaultDir = { fd, rel: '', abs: root, fdPaths, chain };
  try {
    if (fdPaths) {
      if ((await fs.readlink(`/proc/self/fd/${fd}`)) !== root) throw swappedError(target);
    } else {
      chain.push(await identity(fs, fd, root));
      await verifyDir(fs, dir, target);
    }
    for (let i = 0; i < segments.length; i += 1) {
      const segment = segments[i];
      const childRel = segments.slice(0, i + 1).join('/');
      const childAbs = nodePath.join(dir.abs, segment);
      const childPath = dirEntry(dir, segment);
      let child: number;
      try {
        child = await fs.openDir(childPath);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' || !options.create) throw await openDirError(fs, error, childPath, target, options.reading === true);
        try {
          await fs.mkdirOne(childPath);
          created.push(childRel);
        } catch (mkdirError) {
          if ((mkdirError as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError(mkdirError, `create the folder ${childRel}`);
        }
        try {
          child = await fs.openDir(childPath);
        } catch (again) {
          throw await openDirError(fs, again, childPath, target, options.reading === true);
        }
      }
      opened.push(child);
      dir.fd = child;
      dir.rel = childRel;
      dir.abs = childAbs;
      if (!fdPaths) {
        chain.push(await identity(fs, child, childAbs));
        await verifyDir(fs, dir, target);
      }
    }
  } catch (error) {
    await removeCreated(fs, root, created, opened, fdPaths);
    for (const open of opened) await fs.close(open).catch(() => undefined);
    throw error;
  }
  for (const open of opened.slice(0, -1)) await fs.close(open).catch(() => undefined);
  return { dir, created };
}

/** Removes the folders a failed {@link openVaultDir} made, innermost first, each through its parent's descriptor. */
async function removeCreated(fs: VaultFs, root: string, created: string[], opened: number[], fdPaths: boolean): Promise<void> {
  const depthOf = (rel: string) => rel.split('/').length;
  for (const rel of [...created].reverse()) {
    const parentFd = opened[depthOf(rel) - 1];
    const name = nodePath.posix.basename(rel);
    const path = fdPaths && parentFd !== undefined ? `/proc/self/fd/${parentFd}/${name}` : nodePath.join(root, rel);
    await fs.rmdir(path).catch(() => undefined);
  }
}

async function openDirError(fs: VaultFs, error: unknown, path: string, target: string, reading: boolean): Promise<VaultError> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new VaultError('not_found', `No folder on the path of ${target} in this vault.`);
  if (code === 'ENOTDIR' || code === 'ELOOP') {
    const stat = await fs.lstat(path).catch(() => null);
    if (stat?.isSymbolicLink() || code === 'ELOOP') return linkError(target, reading);
    return new VaultError('invalid_path', `A part of ${target} is a file, not a folder.`);
  }
  return ioError(error, `open the folder of ${target}`);
}

async function identity(fs: VaultFs, fd: number, abs: string): Promise<{ abs: string; dev: number; ino: number }> {
  const stat = await fs.fstat(fd);
  return { abs, dev: stat.dev, ino: stat.ino };
}

/**
 * Confirms that `dir` is still the folder inside the vault: on Linux its descriptor still reads
 * as its path (not moved, not deleted); elsewhere every component from the root is still a real
 * folder with the dev/ino that was opened.
 */
export async function verifyDir(fs: VaultFs, dir: VaultDir, target: string): Promise<void> {
  if (dir.fdPaths) {
    const now = await fs.readlink(`/proc/self/fd/${dir.fd}`).catch(() => null);
    if (now !== dir.abs) throw swappedError(target);
    return;
  }
  for (const link of dir.chain) {
    let stat: Stats;
    try {
      stat = await fs.lstat(link.abs);
    } catch {
      throw swappedError(target);
    }
    if (stat.isSymbolicLink() || !stat.isDirectory() || stat.dev !== link.dev || stat.ino !== link.ino) throw swappedError(target);
  }
}

/**
 * Confirms that the file open with `stat` is `name` in the vault folder `dir`. On Linux the file
 * was opened through the folder's descriptor, so the folder's own check is enough. The fallback
 * compares dev/ino with lstat of the name between two checks of every folder on the path: a swap
 * is caught unless the folder is flipped to a link and back twice within those few calls (the
 * fallback's residual window).
 */
export async function confirmEntry(fs: VaultFs, dir: VaultDir, name: string, stat: Stats, target: string): Promise<void> {
  await verifyDir(fs, dir, target);
  if (dir.fdPaths) return;
  const now = await fs.lstat(dirEntry(dir, name)).catch(() => null);
  if (!now || now.isSymbolicLink() || now.dev !== stat.dev || now.ino !== stat.ino) throw swappedError(target);
  await verifyDir(fs, dir, target);
}

/** Closes a folder opened by {@link openVaultDir}. */
export async function closeDir(fs: VaultFs, dir: VaultDir): Promise<void> {
  await fs.close(dir.fd).catch(() => undefined);
}

/** The vault folder holding `rel` ('' for the root). */
export function parentOf(rel: string): string {
  const parent = nodePath.posix.dirname(rel);
  return parent === '.' ? '' : parent;
}
