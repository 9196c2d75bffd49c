import nodePath from 'node:path';
import type { Vault } from './vault';
import { buildNote, type VaultFile } from './notes/note';
import { NOTE_TYPES, type NoteType } from './notes/schema';
import { readConfined } from './write/confine-read';

/** The overview's figures about the vault as it is now (what happened in a span of time is `summarizeActivity`'s). */
export interface VaultSummary {
  notes: number;
  notesByType: Record<NoteType | 'other', number>;
  unparseable: number;
  pendingInbox: number;
  /** Whether any agent (`agent:` actor) has ever made an edit: the overview says how to connect one when none has. */
  agentActivity: boolean;
}

/** What the summary needs of one note, with the stamp of the file it was read from. */
interface NoteKind {
  size: number;
  mtimeMs: number;
  lucidType: NoteType | null;
  problem: boolean;
}

/**
 * Each vault's notes' kinds by path. Only these few fields are kept, never the notes: the parsed
 * notes of a 10,000-note vault, bodies and links included, held the dashboard's memory above 400 MB.
 */
const kindsByVault = new WeakMap<Vault, Map<string, NoteKind>>();

/** The kinds kept in `.lucid/` across server starts, so the overview's first request does not read every note. */
const KINDS_FILE = 'note-kinds.json';
const KINDS_VERSION = 1;

type StoredKind = [path: string, size: number, mtimeMs: number, lucidType: NoteType | null, problem: 0 | 1];

/** The kinds stored by an earlier process; an empty map when there are none or they cannot be read (it is only a cache). */
async function loadKinds(vault: Vault): Promise<Map<string, NoteKind>> {
  const out = new Map<string, NoteKind>();
  try {
    const stored = JSON.parse((await vault.fs.readFile(nodePath.join(vault.stateDir(), KINDS_FILE))).toString('utf8')) as { version?: number; kinds?: unknown };
    if (stored.version !== KINDS_VERSION || !Array.isArray(stored.kinds)) return out;
    const types = new Set<unknown>(NOTE_TYPES);
    for (const entry of stored.kinds as unknown[]) {
      if (!Array.isArray(entry) || entry.length !== 5) continue;
      const [path, size, mtimeMs, lucidType, problem] = entry as StoredKind;
      if (typeof path !== 'string' || typeof size !== 'number' || typeof mtimeMs !== 'number' || !(lucidType === null || types.has(lucidType))) continue;
      out.set(path, { size, mtimeMs, lucidType, problem: problem === 1 });
    }
  } catch {
    // no file yet, or a damaged one: every note is read again
  }
  return out;
}

/** Stores the kinds for the next process (a new file renamed over the old one, so a reader never sees half of it). */
async function saveKinds(vault: Vault, kinds: Map<string, NoteKind>): Promise<void> {
  const stored: StoredKind[] = [...kinds].map(([path, k]) => [path, k.size, k.mtimeMs, k.lucidType, k.problem ? 1 : 0]);
  const target = nodePath.join(vault.stateDir(), KINDS_FILE);
  const temp = `${target}.${vault.ids.base32(8)}.tmp`;
  try {
    await vault.fs.writeNewFile(temp, Buffer.from(JSON.stringify({ version: KINDS_VERSION, kinds: stored })));
    await vault.fs.rename(temp, target);
  } catch {
    await vault.fs.unlink(temp).catch(() => undefined);
  }
}

/** How many notes are read at once: enough to keep the disk and the thread pool busy, few enough to bound the memory. */
const READ_AHEAD = 16;

async function readKind(vault: Vault, file: VaultFile): Promise<NoteKind | null> {
  try {
    const { bytes, stat } = await readConfined(vault.fs, vault.root, file.path);
    const note = buildNote(file.path, bytes, stat.mtimeMs);
    return { size: file.size, mtimeMs: file.mtimeMs, lucidType: note.lucidType, problem: note.problem !== null };
  } catch {
    return null; // removed or became unreadable meanwhile
  }
}

/** Every note's kind, reading only the notes added or changed (size or mtime) since the last call. */
async function noteKinds(vault: Vault): Promise<Map<string, NoteKind>> {
  const known = kindsByVault.get(vault) ?? (await loadKinds(vault));
  const files = (await vault.listFiles()).filter((f) => f.path.toLowerCase().endsWith('.md'));
  const next = new Map<string, NoteKind>();
  const stale: VaultFile[] = [];
  for (const file of files) {
    const kind = known.get(file.path);
    if (kind && kind.size === file.size && kind.mtimeMs === file.mtimeMs) next.set(file.path, kind);
    else stale.push(file);
  }
  for (let at = 0; at < stale.length; at += READ_AHEAD) {
    const batch = stale.slice(at, at + READ_AHEAD);
    const kinds = await Promise.all(batch.map((file) => readKind(vault, file)));
    kinds.forEach((kind, i) => {
      if (kind) next.set(batch[i].path, kind);
    });
  }
  kindsByVault.set(vault, next);
  if (stale.length > 0 || next.size !== known.size) await saveKinds(vault, next);
  return next;
}

/**
 * Counts notes by type and pending inbox items (notes of type inbox in the inbox folder) from the
 * files, and whether an agent has ever edited the vault from the commit index's actors. A note is
 * read again only when its size or modification time changed since the last summary of this vault
 * (kept in `.lucid/`, so a new process reads only what changed meanwhile).
 */
export async function summarizeVault(vault: Vault): Promise<VaultSummary> {
  const kinds = await noteKinds(vault);
  const notesByType = Object.fromEntries([...NOTE_TYPES, 'other'].map((t) => [t, 0])) as Record<NoteType | 'other', number>;
  let pendingInbox = 0;
  let unparseable = 0;
  const inboxPrefix = `${vault.layout.inbox}/`;
  for (const [path, kind] of kinds) {
    if (kind.problem) unparseable += 1;
    notesByType[kind.lucidType ?? 'other'] += 1;
    if (kind.lucidType === 'inbox' && path.startsWith(inboxPrefix)) pendingInbox += 1;
  }
  const agentActivity = (await vault.commits()).actors().some((a) => a.startsWith('agent:'));
  return { notes: kinds.size, notesByType, unparseable, pendingInbox, agentActivity };
}
