import type { Stats } from 'node:fs';
import nodePath from 'node:path';
import { isVaultError, VaultError } from '../errors';
import type { FileOwner, VaultFs } from '../fs';
import type { IdSource } from '../ids';
import { TEMP_PREFIX } from '../notes/paths';
import { ioError } from './atomic';
import { closeDir, dirEntry, dirSelf, openVaultDir, parentOf, type VaultDir, verifyDir } from './confine-dir';

// Writing inside the vault through the confined folders of confine-dir.ts (reading is confine-read.ts):
// every file placed, replaced or removed through its verified parent, and the `.lucid/` state folder.

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
