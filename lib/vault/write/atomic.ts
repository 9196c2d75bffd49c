import nodePath from 'node:path';
import { isVaultError, VaultError } from '../errors';
import type { VaultFs } from '../fs';
import type { IdSource } from '../ids';
import { closeDir, openVaultDir, placeFile } from './confine';

/** Turns a file-system error into a sentence a person can act on. */
export function ioError(error: unknown, what: string): VaultError {
  if (isVaultError(error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const reasons: Record<string, string> = {
    ENOSPC: 'the disk is full',
    EDQUOT: 'the disk quota is used up',
    EACCES: 'permission denied',
    EPERM: 'the operation is not permitted',
    EROFS: 'the file system is read-only',
    EIO: 'the disk reported an input/output error',
    ENOTDIR: 'a part of the path is a file, not a folder',
    EISDIR: 'the path is a folder',
    ELOOP: 'the path goes through a symbolic link',
  };
  const reason = (code && reasons[code]) ?? (error as Error).message;
  return new VaultError('io_error', `Could not ${what}: ${reason}. Nothing was changed.`, { errno: code });
}

/**
 * Replaces (or creates) a file so that a crash leaves either the old or the new bytes: a temp
 * file beside it (created exclusively, never through a symlink), fsync, rename over the target,
 * fsync of the folder. `expectedDir` is the canonical folder the file must be in: it is opened
 * component by component from the file-system root without following any link, and every call
 * goes through that descriptor (see `confine.ts`), so a folder swapped for a link is refused,
 * never written through. The file keeps its mode. On failure the temp file is removed and the
 * target is untouched.
 */
export async function writeFileAtomic(
  fs: VaultFs,
  absolutePath: string,
  data: Uint8Array,
  options: { ids: IdSource; expectedDir: string; mode?: number },
): Promise<void> {
  if (nodePath.dirname(absolutePath) !== options.expectedDir) {
    throw new VaultError('forbidden', `${nodePath.basename(absolutePath)} is not in the folder it was checked in; nothing was written.`);
  }
  const top = nodePath.parse(options.expectedDir).root;
  const rel = nodePath.relative(top, options.expectedDir).split(nodePath.sep).join('/');
  const { dir } = await openVaultDir(fs, top, rel, { target: nodePath.basename(absolutePath) });
  try {
    await placeFile(fs, dir, nodePath.basename(absolutePath), data, options.ids, options.mode, nodePath.basename(absolutePath));
  } finally {
    await closeDir(fs, dir);
  }
}
