import type { Vault } from './vault';
import { NOTE_TYPES, type NoteType } from './notes/schema';

/** The overview's figures, all computed from the files and the commit index. */
export interface VaultSummary {
  notes: number;
  notesByType: Record<NoteType | 'other', number>;
  unparseable: number;
  pendingInbox: number;
  editsLast7Days: number;
  sessionsLast7Days: number;
  /** Start of the 7-day window (ms since the epoch). */
  since: number;
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Counts notes by type, pending inbox items (notes of type inbox in the inbox folder), edits (commits
 * with a `Lucid-Edit` trailer) and sessions (session notes whose `started` is) in the 7 days before `now`.
 */
export async function summarizeVault(vault: Vault, now: Date): Promise<VaultSummary> {
  const since = now.getTime() - WEEK_MS;
  const notes = await vault.listNotes();
  const notesByType = Object.fromEntries([...NOTE_TYPES, 'other'].map((t) => [t, 0])) as Record<NoteType | 'other', number>;
  let pendingInbox = 0;
  let sessionsLast7Days = 0;
  let unparseable = 0;
  for (const note of notes) {
    if (note.problem) unparseable += 1;
    notesByType[note.lucidType ?? 'other'] += 1;
    if (note.lucidType === 'inbox' && note.path.startsWith(`${vault.layout.inbox}/`)) pendingInbox += 1;
    if (note.lucidType === 'session' && typeof note.frontmatter.started === 'string') {
      const started = Date.parse(note.frontmatter.started);
      if (started >= since) sessionsLast7Days += 1;
    }
  }
  const index = await vault.commits();
  const editsLast7Days = index.countSince(Math.floor(since / 1000));
  return { notes: notes.length, notesByType, unparseable, pendingInbox, editsLast7Days, sessionsLast7Days, since };
}
