import fs, { constants } from 'node:fs';
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
  /**
   * Synchronous calls, for the few places that must stay synchronous: local state in `.lucid/`
   * (session files, appended by concurrent processes), `lucid.json`, `.git/info/exclude`.
   */
  existsSync(path: string): boolean;
  readFileSync(path: string): Buffer;
  readdirSync(path: string): Dirent[];
  statSync(path: string): Stats;
  /** Creates a folder and its parents (no error when it exists). */
  mkdirSync(path: string): void;
  /** Appends with O_APPEND in one write, so lines from concurrent processes never interleave. */
  appendFileSync(path: string, data: string): void;
  /** Creates a file that must not exist yet (O_EXCL: `EEXIST` otherwise) and writes it. */
  writeNewFileSync(path: string, data: string): void;
  unlinkSync(path: string): void;
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
  existsSync: (path) => fs.existsSync(path),
  readFileSync: (path) => fs.readFileSync(path),
  readdirSync: (path) => fs.readdirSync(path, { withFileTypes: true }),
  statSync: (path) => fs.statSync(path),
  mkdirSync: (path) => {
    fs.mkdirSync(path, { recursive: true });
  },
  appendFileSync: (path, data) => fs.appendFileSync(path, data),
  writeNewFileSync: (path, data) => fs.writeFileSync(path, data, { flag: 'wx' }),
  unlinkSync: (path) => fs.unlinkSync(path),
};
