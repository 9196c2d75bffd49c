/** The expected failures of the vault layer, as a closed set of codes callers branch on. */
export type VaultErrorCode =
  | 'not_found'
  | 'invalid_path'
  | 'invalid_input'
  | 'invalid_frontmatter'
  | 'schema_violation'
  | 'conflict'
  | 'dirty_worktree'
  | 'locked'
  | 'repo_state'
  | 'not_a_repo'
  | 'too_large'
  | 'binary'
  | 'forbidden'
  | 'io_error';

/** An expected, user-facing failure: `message` is a sentence a person or a model can act on. */
export class VaultError extends Error {
  readonly code: VaultErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: VaultErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'VaultError';
    this.code = code;
    this.details = details;
  }
}

/** True when `error` is a VaultError, optionally of the given code. */
export function isVaultError(error: unknown, code?: VaultErrorCode): error is VaultError {
  return error instanceof VaultError && (code === undefined || error.code === code);
}
