import { VaultError } from '../errors';
import type { Vault } from '../vault';
import type { AcceptInput, AcceptResult, RejectInput, RejectResult } from './types';

/** The words an accept's reason starts with when the person edited the proposal before accepting it. */
export const EDITED_ACCEPT_MARKER = 'edited by the person before accepting';

/** Applies an inbox item to its target and removes the inbox note, in one commit (op `accept`). */
export async function acceptInboxItem(_vault: Vault, _input: AcceptInput): Promise<AcceptResult> {
  throw new VaultError('invalid_input', 'not built yet');
}

/** Removes an inbox item without applying it, in one commit (op `reject`), with the person's reason. */
export async function rejectInboxItem(_vault: Vault, _input: RejectInput): Promise<RejectResult> {
  throw new VaultError('invalid_input', 'not built yet');
}
