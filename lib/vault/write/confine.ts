import nodeFsSync, { constants, type Stats } from 'node:fs';
import nodePath from 'node:path';
import { isVaultError, VaultError } from '../errors';
import { type FileOwner, nodeFs, type VaultFs } from '../fs';
import type { IdSource } from '../ids';
import { isInside, TEMP_PREFIX } from '../notes/paths';
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
function dirEntry(dir: VaultDir, name: string): string {
  return dir.fdPaths ? `/proc/self/fd/${dir.fd}/${name}` : nodePath.join(dir.abs, name);
}

/** The path naming the folder `dir` itself (for fsync and listing). */
function dirSelf(dir: VaultDir): string {
  return dir.fdPaths ? `/proc/self/fd/${dir.fd}` : dir.abs;
}

function linkError(rel: string, reading: boolean): VaultError {
  return reading
    ? new VaultError(
        'forbidden',
        `A folder on the path of ${rel} is (or was just replaced by) a link; Lucid reads only files inside the vault. Nothing was read.`,
      )
    : new VaultError('forbidden', `${rel} goes through a symbolic link; Lucid only writes real files inside the vault.`);
}

function swappedError(rel: string): VaultError {
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
async function openVaultDir(
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
async function verifyDir(fs: VaultFs, dir: VaultDir, target: string): Promise<void> {
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
async function confirmEntry(fs: VaultFs, dir: VaultDir, name: string, stat: Stats, target: string): Promise<void> {
  await verifyDir(fs, dir, target);
  if (dir.fdPaths) return;
  const now = await fs.lstat(dirEntry(dir, name)).catch(() => null);
  if (!now || now.isSymbolicLink() || now.dev !== stat.dev || now.ino !== stat.ino) throw swappedError(target);
  await verifyDir(fs, dir, target);
}

/** Closes a folder opened by {@link openVaultDir}. */
async function closeDir(fs: VaultFs, dir: VaultDir): Promise<void> {
  await fs.close(dir.fd).catch(() => undefined);
}

/**
 * Opens a vault file for reading and confirms the descriptor is that file inside the vault:
 * links are followed only where they lead inside the vault (and never into `.git/`), then the
 * canonical path is opened component by component without following anything. A folder swapped
 * for a link between the check and the open is refused (`forbidden`), never read through.
 */
async function openForRead(fs: VaultFs, root: string, rel: string): Promise<{ fd: number; stat: Stats }> {
  const abs = nodePath.join(root, rel);
  let real: string;
  try {
    real = await fs.realpath(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new VaultError('not_found', `No file ${rel} in this vault.`);
    throw ioError(error, `read ${rel}`);
  }
  if (!insideVault(root, real)) throw new VaultError('forbidden', `${rel} is a link that leads outside the vault.`);
  const realRel = nodePath.relative(root, real).split(nodePath.sep).join('/');
  if (realRel === '') throw new VaultError('invalid_path', `${rel} is the vault folder, not a file.`);
  const { dir } = await openVaultDir(fs, root, nodePath.posix.dirname(realRel) === '.' ? '' : nodePath.posix.dirname(realRel), { reading: true, target: rel });
  let fd: number | null = null;
  try {
    const entry = dirEntry(dir, nodePath.posix.basename(realRel));
    try {
      fd = await fs.openRead(entry);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') throw linkError(rel, true);
      if (code === 'ENOENT') throw new VaultError('not_found', `No file ${rel} in this vault.`);
      throw ioError(error, `read ${rel}`);
    }
    const stat = await fs.fstat(fd);
    await confirmEntry(fs, dir, nodePath.posix.basename(realRel), stat, rel);
    if (stat.isDirectory()) throw ioError(Object.assign(new Error('is a folder'), { code: 'EISDIR' }), `read ${rel}`);
    if (!stat.isFile()) throw new VaultError('invalid_path', `${rel} is not a regular file.`);
    const result = { fd, stat };
    fd = null;
    return result;
  } finally {
    if (fd !== null) await fs.close(fd).catch(() => undefined);
    await closeDir(fs, dir);
  }
}

/** Reads a whole vault file through {@link openForRead}: the bytes and the descriptor's stat. */
export async function readConfined(fs: VaultFs, root: string, rel: string): Promise<{ bytes: Buffer; stat: Stats }> {
  const { fd, stat } = await openForRead(fs, root, rel);
  try {
    return { bytes: await fs.readFd(fd, stat.size), stat };
  } catch (error) {
    throw ioError(error, `read ${rel}`);
  } finally {
    await fs.close(fd).catch(() => undefined);
  }
}

function insideVault(root: string, real: string): boolean {
  return isInside(root, real) && !isInside(nodePath.join(root, '.git'), real) && !isInside(nodePath.join(root, '.lucid'), real);
}

/**
 * What the write path reads of a file before changing it (its bytes, mode and mtime; null when it
 * does not exist), read without following any link: `abs` is canonical, so its folders are opened
 * one by one from the file-system root with O_NOFOLLOW and the file through the last of them. A
 * folder swapped for a link is refused (`forbidden`), so the bytes an edit keeps to restore on
 * failure are always the vault's own.
 */
export async function readCurrentFile(fs: VaultFs, abs: string): Promise<{ bytes: Buffer; mode: number; owner: FileOwner; mtimeMs: number } | null> {
  const top = nodePath.parse(abs).root;
  const rel = nodePath.relative(top, abs).split(nodePath.sep).join('/');
  const name = nodePath.posix.basename(rel);
  let dir: VaultDir;
  try {
    dir = (await openVaultDir(fs, top, parentOf(rel), { target: name })).dir;
  } catch (error) {
    if (isVaultError(error, 'not_found')) return null;
    throw ioError(error, 'read the current file');
  }
  let fd: number | null = null;
  try {
    try {
      fd = await fs.openRead(dirEntry(dir, name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      if (code === 'ELOOP') throw new VaultError('forbidden', `${name} is a symbolic link; Lucid only writes real files inside the vault.`);
      throw error;
    }
    const stat = await fs.fstat(fd);
    await confirmEntry(fs, dir, name, stat, name);
    return { bytes: await fs.readFd(fd, stat.size), mode: stat.mode & 0o777, owner: { uid: stat.uid, gid: stat.gid }, mtimeMs: stat.mtimeMs };
  } catch (error) {
    throw ioError(error, 'read the current file');
  } finally {
    if (fd !== null) await fs.close(fd).catch(() => undefined);
    await closeDir(fs, dir);
  }
}

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

/** What one {@link applyWrite} did, so that {@link undoWrite} takes back exactly that. */
interface Receipt {
  /** Folders this write made (vault-relative, outermost first). */
  createdDirs: string[];
  /** The file this write put at the path (dev/ino), if it got that far. */
  placed: { dev: number; ino: number } | null;
  deleted: boolean;
}

const receipts = new WeakMap<object, Receipt>();

/** One file of an edit: its new bytes (null: delete) and what it was before. */
export interface FileWrite {
  /** Vault-relative path. */
  path: string;
  bytes: Uint8Array | null;
  mode?: number;
  /** The owner of the file it replaces, kept. */
  owner?: FileOwner;
  before: { bytes: Uint8Array; mode: number; owner?: FileOwner } | null;
}

/**
 * Writes (or deletes) one file of an edit inside the vault, through descriptors of folders
 * verified to be inside it: folders made one at a time, the new bytes in an exclusive temp file,
 * fsync, rename over the name, fsync of the folder. What it did is remembered for {@link undoWrite}.
 * Fails with a VaultError (`forbidden` for a link on the path, `io_error` with the reason).
 */
export async function applyWrite(fs: VaultFs, root: string, write: FileWrite, ids: IdSource): Promise<void> {
  const receipt: Receipt = { createdDirs: [], placed: null, deleted: false };
  receipts.set(write, receipt);
  const dirRel = parentOf(write.path);
  const name = nodePath.posix.basename(write.path);
  if (write.bytes === null) {
    let dir: VaultDir | null = null;
    try {
      dir = (await openVaultDir(fs, root, dirRel, { target: write.path })).dir;
      await fs.unlink(dirEntry(dir, name));
      receipt.deleted = true;
      await fs.fsyncDir(dirSelf(dir));
    } catch (error) {
      throw ioError(error, `delete ${write.path}`);
    } finally {
      if (dir) await closeDir(fs, dir);
    }
    return;
  }
  const { dir, created } = await openVaultDir(fs, root, dirRel, { create: true, target: write.path });
  receipt.createdDirs = created;
  try {
    await placeFile(fs, dir, name, write.bytes, ids, { mode: write.mode, owner: write.owner }, write.path, (placed) => {
      receipt.placed = placed;
    });
  } catch (error) {
    // Nothing was placed: the folders this write made are removed now, through the descriptor
    // still held (its `..` is the real parent even if a folder above was swapped or moved).
    if (dir.fdPaths && !receipt.placed) {
      for (let i = created.length - 1; i >= 0; i -= 1) {
        const up = '../'.repeat(created.length - i);
        await fs.rmdir(`/proc/self/fd/${dir.fd}/${up}${nodePath.posix.basename(created[i])}`).catch(() => undefined);
      }
      receipt.createdDirs = [];
    }
    throw error;
  } finally {
    await closeDir(fs, dir);
  }
}

/**
 * Takes back what {@link applyWrite} did to `write`, and nothing else: puts the old bytes back
 * where it replaced or deleted a file, removes the file it created only if it is still the one it
 * created, then the folders it made (if empty). Everything through verified folder descriptors.
 */
export async function undoWrite(fs: VaultFs, root: string, write: FileWrite, ids: IdSource): Promise<void> {
  const receipt = receipts.get(write);
  if (!receipt) return;
  receipts.delete(write);
  const name = nodePath.posix.basename(write.path);
  if (write.before && (receipt.placed || receipt.deleted)) {
    const { dir } = await openVaultDir(fs, root, parentOf(write.path), { create: true, target: write.path });
    try {
      // Only what this write left there is taken back: a file someone saved since (an editor, a
      // person) is theirs and stays.
      const now = await fs.lstat(dirEntry(dir, name)).catch(() => null);
      const sameFile = receipt.placed !== null && now !== null && now.dev === receipt.placed.dev && now.ino === receipt.placed.ino;
      // An editor may save in place (same inode), so the bytes must still be the ones this write left.
      const ours = receipt.placed ? sameFile && write.bytes !== null && (await holds(fs, dir, name, write.bytes)) : now === null;
      if (!ours) return;
      await placeFile(fs, dir, name, write.before.bytes, ids, { mode: write.before.mode, owner: write.before.owner }, write.path);
    } finally {
      await closeDir(fs, dir);
    }
    return;
  }
  if (!write.before && receipt.placed) {
    const { dir } = await openVaultDir(fs, root, parentOf(write.path), { target: write.path });
    try {
      const now = await fs.lstat(dirEntry(dir, name)).catch(() => null);
      if (now && now.dev === receipt.placed.dev && now.ino === receipt.placed.ino) {
        await verifyDir(fs, dir, write.path);
        await fs.unlink(dirEntry(dir, name));
      }
    } finally {
      await closeDir(fs, dir);
    }
  }
  for (const rel of [...receipt.createdDirs].reverse()) await removeEmptyDir(fs, root, rel);
}

/** Whether `name` in `dir` holds exactly `bytes` (read without following a link). */
async function holds(fs: VaultFs, dir: VaultDir, name: string, bytes: Uint8Array): Promise<boolean> {
  let fd: number | null = null;
  try {
    fd = await fs.openRead(dirEntry(dir, name));
    return Buffer.compare(await fs.readFd(fd), Buffer.from(bytes)) === 0;
  } catch {
    return false;
  } finally {
    if (fd !== null) await fs.close(fd).catch(() => undefined);
  }
}

/** Removes an empty vault folder through its parent's descriptor (a link or a full folder stays). */
async function removeEmptyDir(fs: VaultFs, root: string, rel: string): Promise<void> {
  let parent: VaultDir | null = null;
  try {
    parent = (await openVaultDir(fs, root, parentOf(rel), { target: rel })).dir;
    await fs.rmdir(dirEntry(parent, nodePath.posix.basename(rel)));
  } catch {
    // not empty, gone, or no longer a folder: leave it
  } finally {
    if (parent) await closeDir(fs, parent);
  }
}

/**
 * Puts `data` at `name` in the open folder `dir`: an exclusive temp file (never through a link),
 * fsync, a check that the folder is still the one inside the vault, rename, fsync of the folder.
 * Returns the dev/ino of the file placed, also given to `onPlaced` as soon as the rename is done (so
 * a failed fsync after it still knows). On failure before the rename the temp file is removed and
 * `name` is untouched.
 */
async function placeFile(
  fs: VaultFs,
  dir: VaultDir,
  name: string,
  data: Uint8Array,
  ids: IdSource,
  meta: { mode?: number; owner?: FileOwner },
  target: string,
  onPlaced: (placed: { dev: number; ino: number }) => void = () => undefined,
): Promise<{ dev: number; ino: number }> {
  const temp = `${TEMP_PREFIX}${ids.base32(10)}`;
  try {
    await fs.writeNewFile(dirEntry(dir, temp), data, meta.mode, meta.owner);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') await fs.unlink(dirEntry(dir, temp)).catch(() => undefined);
    throw ioError(error, `write ${name}`);
  }
  let placed: { dev: number; ino: number };
  try {
    const stat = await fs.lstat(dirEntry(dir, temp));
    placed = { dev: stat.dev, ino: stat.ino };
    await verifyDir(fs, dir, target);
    await fs.rename(dirEntry(dir, temp), dirEntry(dir, name));
    onPlaced(placed);
  } catch (error) {
    // In the fallback a failed folder check means the name may now lead outside: the temp file is left rather than unlinked through it.
    if (!isVaultError(error) || dir.fdPaths) await fs.unlink(dirEntry(dir, temp)).catch(() => undefined);
    throw ioError(error, `write ${name}`);
  }
  try {
    await fs.fsyncDir(dirSelf(dir));
  } catch (error) {
    throw ioError(error, `flush the folder of ${name}`);
  }
  return placed;
}

function parentOf(rel: string): string {
  const parent = nodePath.posix.dirname(rel);
  return parent === '.' ? '' : parent;
}

/** Deletes `name` in the vault folder `dirRel` through its verified descriptor (missing: no error). */
export async function unlinkConfined(fs: VaultFs, root: string, dirRel: string, name: string): Promise<void> {
  let dir: VaultDir | null = null;
  try {
    dir = (await openVaultDir(fs, root, dirRel)).dir;
    await fs.unlink(dirEntry(dir, name));
  } catch {
    // gone already, or the folder is not there: nothing to remove
  } finally {
    if (dir) await closeDir(fs, dir);
  }
}

/**
 * `.lucid/` of the vault at `root`, created on demand. It must be a real folder inside the vault:
 * a link (a committed `.lucid -> somewhere`) or a file is refused, since the lock, the temporary
 * git indexes, the search database and session files would land where it points.
 */
export function stateDirOf(fs: VaultFs, root: string): string {
  const dir = nodePath.join(root, '.lucid');
  if (assertStateDir(fs, root)) return dir;
  try {
    fs.mkdirSync(dir);
  } catch (error) {
    throw ioError(error, 'create the folder .lucid');
  }
  assertStateDir(fs, root);
  return dir;
}

/**
 * Refuses a `.lucid` that is a link or a file (a VaultError naming it); true when it is a real
 * folder, false when it does not exist yet. Creates nothing.
 */
export function assertStateDir(fs: VaultFs, root: string): boolean {
  const dir = nodePath.join(root, '.lucid');
  let stat: Stats;
  try {
    stat = fs.lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw ioError(error, 'check the folder .lucid');
  }
  if (stat.isSymbolicLink()) {
    let target = 'somewhere else';
    try {
      target = fs.readlinkSync(dir);
    } catch {
      // the message still names the link
    }
    throw new VaultError(
      'forbidden',
      `\`.lucid\` in this vault (${dir}) is a symbolic link (to ${target}); Lucid keeps its lock and index there and will not follow it. Remove the link and start again.`,
      { path: dir },
    );
  }
  if (!stat.isDirectory()) {
    throw new VaultError(
      'invalid_path',
      `\`.lucid\` in this vault (${dir}) is a file, not a folder; Lucid keeps its lock and index there. Move the file away and start again.`,
      {
        path: dir,
      },
    );
  }
  return true;
}

/**
 * Removes Lucid temp files left behind by a crash (last written more than a minute before `now`);
 * returns their vault paths. `now` must be wall-clock time, the time file modification times are
 * in: a vault clock set elsewhere (a test's, the demo's) would delete another writer's fresh file.
 * Each folder is walked and each file removed through the folder's verified descriptor.
 */
export async function sweepTempFiles(fs: VaultFs, root: string, now: Date, tempPrefix: string): Promise<string[]> {
  const removed: string[] = [];
  const walk = async (rel: string) => {
    let dir: VaultDir;
    try {
      dir = (await openVaultDir(fs, root, rel)).dir;
    } catch {
      return;
    }
    const subdirs: string[] = [];
    try {
      for (const entry of await fs.readdir(dirSelf(dir)).catch(() => [])) {
        const childRel = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isDirectory() && !entry.name.startsWith('.')) subdirs.push(childRel);
        else if (entry.isFile() && entry.name.startsWith(tempPrefix)) {
          const stat = await fs.lstat(dirEntry(dir, entry.name)).catch(() => null);
          if (stat?.isFile() && now.getTime() - stat.mtimeMs > 60_000) {
            await fs.unlink(dirEntry(dir, entry.name)).catch(() => undefined);
            removed.push(childRel);
          }
        }
      }
    } finally {
      await closeDir(fs, dir);
    }
    for (const sub of subdirs) await walk(sub);
  };
  await walk('');
  return removed;
}

/**
 * Reads many vault files with {@link readConfined}'s guarantees, for a reader of the whole vault (the
 * search index's build): each folder is opened once for the batch (component by component, never
 * through a link) and its files through its descriptor, `concurrency` at a time. A file that is a link,
 * or under a folder that is one, is read through {@link readConfined} (links are followed only where
 * they lead inside the vault). `onFile` gets each file's bytes and stat, or the error that stopped it
 * (`not_found` when it went away meanwhile); files come in no particular order.
 */
export async function readConfinedMany(
  fs: VaultFs,
  root: string,
  rels: readonly string[],
  onFile: (rel: string, result: { bytes: Buffer; stat: Stats } | Error) => void,
  concurrency = 16,
): Promise<void> {
  const dirs = new Map<string, Promise<VaultDir | null>>();
  const folderOf = (rel: string) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
  // Each folder is closed once its last file is read: a vault of thousands of folders must not hold
  // a descriptor for each until the end (the process's limit on open files is soon reached).
  const left = new Map<string, number>();
  for (const rel of rels) left.set(folderOf(rel), (left.get(folderOf(rel)) ?? 0) + 1);
  const done = async (folder: string) => {
    const count = (left.get(folder) ?? 1) - 1;
    left.set(folder, count);
    const dir = dirs.get(folder);
    if (count > 0 || !dir) return;
    dirs.delete(folder);
    const open = await dir;
    if (open) await closeDir(fs, open);
  };
  const openFolder = (folder: string) => {
    let dir = dirs.get(folder);
    if (!dir) {
      dir = openVaultDir(fs, root, folder, { reading: true }).then(
        (opened) => opened.dir,
        () => null,
      );
      dirs.set(folder, dir);
    }
    return dir;
  };
  const readOne = async (rel: string): Promise<{ bytes: Buffer; stat: Stats }> => {
    const folder = folderOf(rel);
    const top = folder.split('/')[0];
    // Lucid's state and git's files are never read as vault files: readConfined refuses them.
    const dir = top === '.git' || top === '.lucid' ? null : await openFolder(folder);
    if (!dir) return readConfined(fs, root, rel);
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (fs === nodeFs && dir.fdPaths) return readThroughDirSync(dir, name, rel) ?? readConfined(fs, root, rel);
    let fd: number;
    try {
      fd = await fs.openRead(dirEntry(dir, name));
    } catch {
      return readConfined(fs, root, rel);
    }
    try {
      const stat = await fs.fstat(fd);
      await confirmEntry(fs, dir, name, stat, rel);
      if (!stat.isFile()) throw new VaultError('invalid_path', `${rel} is not a regular file.`);
      return { bytes: await fs.readFd(fd), stat };
    } finally {
      await fs.close(fd).catch(() => undefined);
    }
  };
  let next = 0;
  const worker = async () => {
    while (next < rels.length) {
      const rel = rels[next++];
      let result: { bytes: Buffer; stat: Stats } | Error;
      try {
        result = await readOne(rel);
      } catch (error) {
        result = error instanceof Error ? error : new Error(String(error));
      } finally {
        await done(folderOf(rel));
      }
      onFile(rel, result);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, rels.length)) }, worker));
  } finally {
    for (const dir of dirs.values()) {
      const open = await dir;
      if (open) await closeDir(fs, open);
    }
  }
}

/**
 * {@link readConfinedMany}'s read of one file on the real file system with /proc/self/fd: the same
 * checks in synchronous calls (a whole vault's files cost a few system calls each instead of as many
 * thread-pool round trips); null when the name is a link or cannot be opened (the caller reads it through
 * {@link readConfined}, which says why).
 */
function readThroughDirSync(dir: VaultDir, name: string, rel: string): { bytes: Buffer; stat: Stats } | null {
  let fd: number;
  try {
    fd = nodeFsSync.openSync(dirEntry(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const stat = nodeFsSync.fstatSync(fd);
    if (nodeFsSync.readlinkSync(dirSelf(dir)) !== dir.abs) throw swappedError(rel);
    if (!stat.isFile()) throw new VaultError('invalid_path', `${rel} is not a regular file.`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (let size = stat.size + 1; ; size = 1024 * 1024) {
      const chunk = Buffer.allocUnsafeSlow(size);
      const read = nodeFsSync.readSync(fd, chunk, 0, size, total);
      if (read > 0) chunks.push(chunk.subarray(0, read));
      total += read;
      // A regular file reads short only at its end; a file that grew since fstat fills the chunk and is read on.
      if (read < size) break;
    }
    return { bytes: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total), stat };
  } finally {
    nodeFsSync.closeSync(fd);
  }
}
