import { VaultError } from '../errors';
import type { Vault } from '../vault';
import type { InboxFilter, InboxItem } from './types';

/** The inbox queue, oldest first (by `created`, then id); items with a problem are listed too. */
export async function listInbox(_vault: Vault, _filter?: InboxFilter): Promise<InboxItem[]> {
  throw new VaultError('invalid_input', 'not built yet');
}

/** How many items wait in the inbox (cheap: the navigation shows it on every page). */
export async function countInbox(_vault: Vault): Promise<number> {
  throw new VaultError('invalid_input', 'not built yet');
}
