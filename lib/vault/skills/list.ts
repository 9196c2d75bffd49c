import { isUnderFolded } from '../notes/protected';
import { basenameOf } from '../notes/paths';
import type { Vault } from '../vault';
import type { VaultFile } from '../notes/note';
import { pathsOfHistory, SKILL_HISTORY_LIMIT } from './history';
import { DEFAULT_STALE_DAYS, isArchivedSkill, staleness, vaultNow } from './stale';
import { skillUsage, type SkillUse } from './usage';

/** One skill as the skills list shows it. */
export interface SkillRow {
  path: string;
  /** The `name` property, else the file name. */
  name: string;
  version: number | null;
  trigger: string | null;
  /** The `last_updated` property as written (YYYY-MM-DD), or null. */
  lastUpdated: string | null;
  /** The newest session that used it (from sessions' `skills_used`), ISO 8601; null when none did. */
  lastUsed: string | null;
  lastUsedSession: string | null;
  /** How many session notes name it. */
  uses: number;
  /** How many molt commits its history holds, across renames. */
  molts: number;
  /** `archived` for a skill in the archive folder or with `status: archived`; else its status (`active` by default). */
  status: string;
  archived: boolean;
  /** Days since its last use (or, never used, since its first commit), measured from `now` of the list. */
  idleDays: number;
  /** Idle for the stale period or longer (never said of an archived skill). */
  stale: boolean;
  /** What Lucid cannot read or what breaks the skill rules, in one sentence; null when fine. */
  problem: string | null;
}

/** The skills list with the clock and period its staleness was measured with. */
export interface SkillList {
  skills: SkillRow[];
  staleDays: number;
  /** The vault's clock: its newest commit's time, or the vault's clock when it has none. */
  now: string;
  nowSource: 'newest-commit' | 'clock';
}

function text(value: unknown): string | null {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' || value instanceof Date) return String(value);
  return null;
}

/**
 * Every note in the skills folder and its archive, with version, trigger, last use (derived from
 * the session notes), number of molts (from the commit index, following renames) and whether it
 * is stale: no session used it for `staleDays` before the vault's clock ({@link vaultNow}).
 */
export async function listSkills(vault: Vault, options: { staleDays?: number; now?: Date } = {}): Promise<SkillList> {
  const staleDays = options.staleDays ?? DEFAULT_STALE_DAYS;
  const index = await vault.commits();
  const clock = options.now ? { now: options.now, source: 'clock' as const } : await vaultNow(vault, index);
  // One listing of every note, shared with the usage: a listing of only some notes would drop the others from the reader's cache.
  const files = await vault.listFiles();
  const all = await vault.listNotes(files);
  const notes = all.filter((n) => isUnderFolded(n.path, vault.layout.skills) || isUnderFolded(n.path, vault.layout.skillsArchive));
  const usage = await skillUsage(vault, { files, notes: all });
  const rows: SkillRow[] = [];
  for (const note of notes) {
    const history = index.historyOf(note.path, SKILL_HISTORY_LIMIT);
    // Uses recorded under the skill's earlier names count too, when those links were not rewritten.
    const names = pathsOfHistory(note.path, history);
    let use: SkillUse = { lastUsed: null, session: null, sessions: 0 };
    for (const name of names) {
      const found = usage.get(name);
      if (!found) continue;
      const newer = found.lastUsed !== null && (use.lastUsed === null || found.lastUsed > use.lastUsed);
      use = {
        sessions: use.sessions + found.sessions,
        ...(newer ? { lastUsed: found.lastUsed, session: found.session } : { lastUsed: use.lastUsed, session: use.session }),
      };
    }
    const fm = note.frontmatter;
    const archived = isArchivedSkill(vault, note.path, fm);
    const version = Number(fm.version);
    const first = history.length > 0 ? new Date(history[history.length - 1].time * 1000) : clock.now;
    // As the dream pass counts it: from the later of its last use and its first commit.
    const idle = staleness(new Date(Math.max(use.lastUsed ? Date.parse(use.lastUsed) : 0, first.getTime())), clock.now, staleDays);
    const problem = note.problem
      ? (note.problemMessage ?? note.problem)
      : note.lucidType !== 'skill'
        ? 'not a skill note (its type is not skill)'
        : note.violations.length > 0
          ? note.violations.map((v) => `${v.field}: ${v.message}`).join('; ')
          : null;
    rows.push({
      path: note.path,
      name: text(fm.name) ?? basenameOf(note.path),
      version: Number.isInteger(version) && version >= 1 ? version : null,
      trigger: text(fm.trigger),
      lastUpdated: text(fm.last_updated),
      lastUsed: use.lastUsed,
      lastUsedSession: use.session,
      uses: use.sessions,
      molts: history.filter((c) => c.op === 'molt').length,
      status: archived ? 'archived' : (text(fm.status) ?? 'active'),
      archived,
      idleDays: idle.days,
      stale: !archived && idle.stale,
      problem,
    });
  }
  rows.sort((a, b) => a.name.localeCompare(b.name) || a.path.localeCompare(b.path));
  return { skills: rows, staleDays, now: clock.now.toISOString(), nowSource: clock.source };
}

/**
 * The vault path of the skill called `name`: `skills/<name>.md`, else the archived
 * `skills/archive/<name>.md`; null when neither is a file. `listing`: the vault's files when the
 * caller has just listed them (a page that also resolves links), so the vault is not listed twice.
 */
export async function findSkillPath(vault: Vault, name: string, listing?: VaultFile[]): Promise<string | null> {
  if (!/^[^/\\\0]{1,200}$/.test(name) || name === '.' || name === '..') return null;
  const files = new Set((listing ?? (await vault.listFiles())).map((f) => f.path));
  for (const folder of [vault.layout.skills, vault.layout.skillsArchive]) {
    const path = `${folder}/${name}.md`;
    if (files.has(path)) return path;
  }
  return null;
}
