const BRAND = Symbol.for('lucid.VaultError');

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
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/**
 * True when `error` is a VaultError, optionally of the given code. Checked by a brand, not by
 * `instanceof`: a bundler may load this module more than once (Next puts route handlers and pages
 * in separate chunks), and an error made by one copy must still be recognised by the others.
 */
export function isVaultError(error: unknown, code?: VaultErrorCode): error is VaultError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[BRAND] === true &&
    (code === undefined || (error as VaultError).code === code)
  );
}
