import nodeFsSync, { constants, type Stats } from 'node:fs';
import nodePath from 'node:path';
import { isVaultError, VaultError } from '../errors';
import { type FileOwner, nodeFs, type VaultFs } from '../fs';
import { isInside } from '../notes/paths';
import { ioError } from './atomic';
import { closeDir, confirmEntry, dirEntry, dirSelf, linkError, openVaultDir, parentOf, swappedError, type VaultDir } from './confine-dir';

// Reading a vault file through the confined folders of confine-dir.ts: never through a link that leaves the vault.

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
