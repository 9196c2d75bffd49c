import fs, { constants } from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import type { Dirent, Stats } from 'node:fs';

/** Who owns a file (its uid and gid), kept when Lucid rewrites it. */
export interface FileOwner {
  uid: number;
  gid: number;
}

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
  writeNewFile(path: string, data: Uint8Array, mode?: number, owner?: FileOwner): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  /** fsync of a folder, so a rename in it survives a crash. */
  fsyncDir(path: string): Promise<void>;
  /** Creates one folder (not its parents); `EEXIST` when the name exists, whatever it is. */
  mkdirOne(path: string): Promise<void>;
  /**
   * Opens a folder as a descriptor without following a link at its last component
   * (`O_DIRECTORY | O_NOFOLLOW`: a link there fails with `ENOTDIR` or `ELOOP`).
   */
  openDir(path: string): Promise<number>;
  /** Opens a file for reading without following a link at its last component, and without blocking on a FIFO. */
  openRead(path: string): Promise<number>;
  fstat(fd: number): Promise<Stats>;
  /** Every byte of an open file, from its start; `sizeHint`, the size its stat gave, sizes the first read. */
  readFd(fd: number, sizeHint?: number): Promise<Buffer>;
  close(fd: number): Promise<void>;
  readlink(path: string): Promise<string>;
  /**
   * Whether `/proc/self/fd/<fd>/<name>` names `<name>` inside exactly the folder open as `<fd>`
   * (Linux), so that the vault layer can emulate openat/mkdirat/renameat/unlinkat with it.
   * Tests return false to run the portable fallback.
   */
  fdPaths(): Promise<boolean>;
  /**
   * Synchronous calls, for the few places that must stay synchronous: local state in `.lucid/`
   * (session files, appended by concurrent processes), `lucid.json`, `.git/info/exclude`.
   */
  existsSync(path: string): boolean;
  readFileSync(path: string): Buffer;
  readdirSync(path: string): Dirent[];
  statSync(path: string): Stats;
  lstatSync(path: string): Stats;
  readlinkSync(path: string): string;
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
  writeNewFile: async (path, data, mode = 0o644, owner) => {
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const handle = await fsp.open(path, flags, mode);
    try {
      await handle.writeFile(data);
      await handle.chmod(mode);
      // A rewrite keeps the file's owner. Only root may give a file away; anyone else keeps the
      // file as theirs (EPERM), as an editor saving the file would.
      if (owner) await handle.chown(owner.uid, owner.gid).catch(() => undefined);
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
  mkdirOne: (path) => fsp.mkdir(path),
  // Plain descriptors (not FileHandles, which close themselves when collected).
  openDir: (path) => openFd(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW),
  openRead: (path) => openFd(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK),
  fstat: (fd) =>
    new Promise((resolve, reject) => {
      fs.fstat(fd, (error, stats) => (error ? reject(error) : resolve(stats)));
    }),
  readFd: async (fd, sizeHint) => {
    const chunks: Buffer[] = [];
    let position = 0;
    let short = false;
    const first = sizeHint !== undefined && sizeHint >= 0 ? Math.min(sizeHint + 1, 64 * 1024 * 1024) : 64 * 1024;
    for (;;) {
      // After a read that did not fill its chunk the file has most likely ended: the read that
      // confirms it takes a small chunk from Node's pool. A fresh 1 MiB chunk there cost every
      // note read a megabyte of garbage, which held a dashboard reading its notes above 400 MB.
      const chunk = Buffer.allocUnsafe(short ? 4000 : chunks.length === 0 ? first : 1024 * 1024);
      const read = await new Promise<number>((resolve, reject) => {
        fs.read(fd, chunk, 0, chunk.length, position, (error, bytes) => (error ? reject(error) : resolve(bytes)));
      });
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      position += read;
      short = read < chunk.length;
    }
    return Buffer.concat(chunks, position);
  },
  close: (fd) =>
    new Promise((resolve, reject) => {
      fs.close(fd, (error) => (error ? reject(error) : resolve()));
    }),
  readlink: (path) => fsp.readlink(path),
  fdPaths: () => probeFdPaths(),
  existsSync: (path) => fs.existsSync(path),
  readFileSync: (path) => fs.readFileSync(path),
  readdirSync: (path) => fs.readdirSync(path, { withFileTypes: true }),
  statSync: (path) => fs.statSync(path),
  lstatSync: (path) => fs.lstatSync(path),
  readlinkSync: (path) => fs.readlinkSync(path),
  mkdirSync: (path) => {
    fs.mkdirSync(path, { recursive: true });
  },
  appendFileSync: (path, data) => fs.appendFileSync(path, data),
  writeNewFileSync: (path, data) => fs.writeFileSync(path, data, { flag: 'wx' }),
  unlinkSync: (path) => fs.unlinkSync(path),
};

function openFd(path: string, flags: number): Promise<number> {
  return new Promise((resolve, reject) => {
    fs.open(path, flags, (error, fd) => (error ? reject(error) : resolve(fd)));
  });
}

let fdPathsProbe: Promise<boolean> | null = null;

/** Probes once per process that `/proc/self/fd/<fd>` is the open folder itself (Linux with /proc mounted). */
function probeFdPaths(): Promise<boolean> {
  fdPathsProbe ??= (async () => {
    if (process.platform !== 'linux') return false;
    try {
      const dir = await fsp.realpath(os.tmpdir());
      const handle = await fsp.open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
      try {
        const viaFd = `/proc/self/fd/${handle.fd}`;
        if ((await fsp.readlink(viaFd)) !== dir) return false;
        const [a, b] = await Promise.all([handle.stat(), fsp.stat(`${viaFd}/.`)]);
        return a.dev === b.dev && a.ino === b.ino;
      } finally {
        await handle.close();
      }
    } catch {
      return false;
    }
  })();
  return fdPathsProbe;
}
