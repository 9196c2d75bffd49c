import type { Vault } from './vault';
import { NOTE_TYPES, type NoteType } from './notes/schema';

/** The overview's figures about the vault as it is now (what happened in a span of time is `summarizeActivity`'s). */
export interface VaultSummary {
  notes: number;
  notesByType: Record<NoteType | 'other', number>;
  unparseable: number;
  pendingInbox: number;
  /** Whether any agent (`agent:` actor) has ever made an edit: the overview says how to connect one when none has. */
  agentActivity: boolean;
}

/**
 * Counts notes by type and pending inbox items (notes of type inbox in the inbox folder) from the
 * files, and whether an agent has ever edited the vault from the commit index's actors.
 */
export async function summarizeVault(vault: Vault): Promise<VaultSummary> {
  const notes = await vault.listNotes();
  const notesByType = Object.fromEntries([...NOTE_TYPES, 'other'].map((t) => [t, 0])) as Record<NoteType | 'other', number>;
  let pendingInbox = 0;
  let unparseable = 0;
  for (const note of notes) {
    if (note.problem) unparseable += 1;
    notesByType[note.lucidType ?? 'other'] += 1;
    if (note.lucidType === 'inbox' && note.path.startsWith(`${vault.layout.inbox}/`)) pendingInbox += 1;
  }
  const agentActivity = (await vault.commits()).actors().some((a) => a.startsWith('agent:'));
  return { notes: notes.length, notesByType, unparseable, pendingInbox, agentActivity };
}
