import type { CommitIndex } from '../git/commit-index';
import type { FrontmatterData } from '../notes/frontmatter';
import { isUnderFolded } from '../notes/protected';
import type { Vault } from '../vault';

/**
 * Days without a session naming a skill in `skills_used` before the skill counts as stale: the
 * skills page and the dream pass use this one default.
 */
export const DEFAULT_STALE_DAYS = 60;

const DAY_MS = 86_400_000;

/**
 * The vault's clock for staleness: the time of its newest commit (the last one the commit index
 * holds), or the vault's own clock when it has no commit yet. A vault nobody touched for months
 * is judged by when it was last in use, so its skills do not all turn stale at once, and a vault
 * made with a fixed date (the demo, a test) gives the same answer on any day. `index`: the commit
 * index when the caller has just brought it up to date.
 */
export async function vaultNow(vault: Vault, index?: CommitIndex): Promise<{ now: Date; source: 'newest-commit' | 'clock' }> {
  const [newest] = (index ?? (await vault.commits())).list({ limit: 1 });
  return newest ? { now: new Date(newest.time * 1000), source: 'newest-commit' } : { now: vault.clock(), source: 'clock' };
}

/**
 * Whole days from `since` to `now` (never negative), and whether they reach `staleDays`. `since` is
 * when a session last used the skill, or, for a skill no session used, when it was first written.
 */
export function staleness(since: Date, now: Date, staleDays = DEFAULT_STALE_DAYS): { days: number; stale: boolean } {
  const days = Math.max(0, Math.floor((now.getTime() - since.getTime()) / DAY_MS));
  return { days, stale: days >= staleDays };
}

/** Whether a skill is archived: in the archive folder, or with `status: archived`. */
export function isArchivedSkill(vault: Vault, path: string, frontmatter: FrontmatterData): boolean {
  return isUnderFolded(path, vault.layout.skillsArchive) || frontmatter.status === 'archived';
}
