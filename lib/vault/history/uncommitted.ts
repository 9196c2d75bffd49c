import { VaultError } from '../errors';
import type { Vault } from '../vault';
import type { UncommittedFile } from './revert-types';

/** The vault's files with changes nobody committed, each with its diff from HEAD (secrets masked). */
export async function listUncommitted(vault: Vault): Promise<UncommittedFile[]> {
  void vault;
  throw new VaultError('invalid_input', 'not built yet');
}

/**
 * Commits the given uncommitted files as the person's own edit (human:<name>, op update), in one
 * commit with its changelog line. Never discards; refuses paths that are not uncommitted notes.
 * Null when none of them has changes any more.
 */
export async function commitUncommitted(vault: Vault, input: { paths: string[]; reason?: string }): Promise<{ editId: string; commit: string } | null> {
  void vault;
  void input;
  throw new VaultError('invalid_input', 'not built yet');
}
