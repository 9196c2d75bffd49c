import { isVaultError, VaultError } from '../errors';

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
