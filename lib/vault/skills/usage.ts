import { linkTarget } from '../notes/note-formats';
import { isUnderFolded } from '../notes/protected';
import type { Note, VaultFile } from '../notes/note';
import type { Vault } from '../vault';

/** When sessions used one skill, from their notes' `skills_used`. */
export interface SkillUse {
  /** The newest using session's end (else start) time, ISO 8601 as its note wrote it; null when none says. */
  lastUsed: string | null;
  /** That session's id (its note's file name). */
  session: string | null;
  /** How many session notes name the skill. */
  sessions: number;
}

function timeOf(value: unknown): number | null {
  if (typeof value !== 'string' && !(value instanceof Date)) return null;
  const ms = Date.parse(String(value));
  return Number.isNaN(ms) ? null : ms;
}

/**
 * Every skill's use, read from the session notes' `skills_used` (a skill's last use is derived,
 * never stored in the skill). Keyed by the vault path each link resolves to now; a link that no
 * longer resolves (the skill was renamed by hand, the link not rewritten) is kept under the path it
 * names, so the caller can count it for the skill's earlier names. Notes come from the reader's
 * cache (a note unchanged since the last listing is not read or parsed again); `listing` is the
 * vault's notes when the caller has just listed them.
 */
export async function skillUsage(vault: Vault, listing?: { files: VaultFile[]; notes: Note[] }): Promise<Map<string, SkillUse>> {
  const files = listing?.files ?? (await vault.listFiles());
  const notes = listing?.notes ?? (await vault.listNotes(files));
  const resolver = await vault.linkResolver(files);
  const out = new Map<string, SkillUse & { ms: number }>();
  for (const note of notes) {
    if (note.lucidType !== 'session' || note.problem || !isUnderFolded(note.path, vault.layout.sessions)) continue;
    const used = note.frontmatter.skills_used;
    const links = Array.isArray(used) ? used : used === undefined || used === null ? [] : [used];
    const ms = timeOf(note.frontmatter.ended) ?? timeOf(note.frontmatter.started);
    const id = note.path.slice(note.path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
    const seen = new Set<string>();
    for (const value of links) {
      const target = linkTarget(value);
      if (!target) continue;
      const path = resolver.resolve(target.replace(/\.md$/i, ''), note.path, 'frontmatter') ?? target;
      if (seen.has(path)) continue;
      seen.add(path);
      const known = out.get(path) ?? { lastUsed: null, session: null, sessions: 0, ms: Number.NEGATIVE_INFINITY };
      known.sessions += 1;
      if (ms !== null && ms > known.ms) Object.assign(known, { ms, lastUsed: new Date(ms).toISOString(), session: id });
      out.set(path, known);
    }
  }
  return new Map([...out].map(([path, { ms: _ms, ...use }]) => [path, use]));
}
