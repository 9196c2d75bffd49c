import { VaultError } from '../errors';
import type { Vault } from '../vault';
import type { InboxItemDetail } from './types';

/** One inbox item with its target now, the diff an accept would make and, when the target changed since, the merge. */
export async function showInboxItem(_vault: Vault, _id: string): Promise<InboxItemDetail> {
  throw new VaultError('invalid_input', 'not built yet');
}
