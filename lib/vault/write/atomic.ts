import nodePath from 'node:path';
import { isVaultError, VaultError } from '../errors';
import type { VaultFs } from '../fs';
import type { IdSource } from '../ids';
import { TEMP_PREFIX } from '../notes/paths';

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
 * file beside it (created exclusively, never through a symlink), fsync, a check that the folder
 * is still the one inside the vault, rename over the target, fsync of the folder. The file keeps
 * its mode. On failure the temp file is removed and the target is untouched.
 */
export async function writeFileAtomic(
  fs: VaultFs,
  absolutePath: string,
  data: Uint8Array,
  options: { ids: IdSource; expectedDir: string; mode?: number },
): Promise<void> {
  const dir = nodePath.dirname(absolutePath);
  const temp = nodePath.join(dir, `${TEMP_PREFIX}${options.ids.base32(10)}`);
  try {
    await fs.writeNewFile(temp, data, options.mode);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw ioError(error, `write ${nodePath.basename(absolutePath)}`);
  }
  try {
    const real = await fs.realpath(dir);
    if (real !== options.expectedDir) {
      throw new VaultError('forbidden', 'A folder on the path was replaced by a link while writing; nothing was written.');
    }
    await fs.rename(temp, absolutePath);
  } catch (error) {
    await fs.unlink(temp).catch(() => undefined);
    throw ioError(error, `write ${nodePath.basename(absolutePath)}`);
  }
  try {
    await fs.fsyncDir(dir);
  } catch (error) {
    throw ioError(error, `flush the folder of ${nodePath.basename(absolutePath)}`);
  }
}
