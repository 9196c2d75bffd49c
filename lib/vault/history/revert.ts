import { VaultError } from '../errors';
import type { Vault } from '../vault';
import type { RevertPlan } from './revert-types';

/**
 * The dry run of a revert: what reverting `ref` (an edit id or a full sha) would change, found on
 * a temporary index. Changes nothing at all: HEAD, the index and every file stay as they are.
 */
export async function planRevert(vault: Vault, ref: string): Promise<RevertPlan> {
  void vault;
  void ref;
  throw new VaultError('invalid_input', 'not built yet');
}

/**
 * Reverts one edit or commit as the person: one commit with its changelog line, op `revert`.
 * When the plan is not ok, throws (conflict, dirty_worktree, invalid_input or forbidden) with the
 * plan's message, and nothing changes.
 */
export async function revertEdit(vault: Vault, input: { ref: string; reason?: string }): Promise<{ plan: RevertPlan; editId: string; commit: string }> {
  void vault;
  void input;
  throw new VaultError('invalid_input', 'not built yet');
}
