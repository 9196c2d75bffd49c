import { constants } from 'node:fs';
import fsp from 'node:fs/promises';
import type { Dirent, Stats } from 'node:fs';

/**
 * The file-system operations the vault layer uses, passed in so that tests can inject faults
 * (ENOSPC, EACCES, EIO on fsync) that root cannot provoke with chmod.
 */
export interface VaultFs {
  readFile(path: string): Promise<Buffer>;
  lstat(path: string): Promise<Stats>;
  stat(path: string): Promise<Stats>;
  realpath(path: string): Promise<string>;
  readdir(path: string): Promise<Dirent[]>;
  mkdir(path: string): Promise<void>;
  /** Creates a new file (never follows or replaces an existing one), writes it, fsyncs it. */
  writeNewFile(path: string, data: Uint8Array, mode?: number): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  /** fsync of a folder, so a rename in it survives a crash. */
  fsyncDir(path: string): Promise<void>;
}

/** The real file system. */
export const nodeFs: VaultFs = {
  readFile: (path) => fsp.readFile(path),
  lstat: (path) => fsp.lstat(path),
  stat: (path) => fsp.stat(path),
  realpath: (path) => fsp.realpath(path),
  readdir: (path) => fsp.readdir(path, { withFileTypes: true }),
  mkdir: async (path) => {
    await fsp.mkdir(path, { recursive: true });
  },
  writeNewFile: async (path, data, mode = 0o644) => {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const handle = await fsp.open(path, flags, mode);
    try {
      await handle.writeFile(data);
      await handle.chmod(mode);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  rename: (from, to) => fsp.rename(from, to),
  unlink: (path) => fsp.unlink(path),
  rmdir: (path) => fsp.rmdir(path),
  fsyncDir: async (path) => {
    const handle = await fsp.open(path, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};
