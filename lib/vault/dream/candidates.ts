import { parseInput } from '../agents/contract';
import { dreamCandidatesInputSchema, type DreamCandidatesInput, type DreamCandidatesResult } from '../agents/contract-read';
import type { Vault } from '../vault';
import { findDreamCandidates } from './find';

/** How many entries of each list an agent gets. */
const TOP = 10;
/** How many evidence sentences per pair. */
const EVIDENCE = 3;

/**
 * The dream pass's findings for an agent (MCP `dream_candidates`): the best duplicate pairs with
 * their score and evidence, the longest-unused skills and the inconsistent fields, ten of each at
 * most, and a message saying what was left out and how to act: a better merged text is written
 * with molt_skill on the survivor; archiving the other and fixing fields is a person's (the
 * dashboard's Dream page, or `lucid dream --apply`). Changes nothing.
 */
export async function dreamCandidatesForAgent(vault: Vault, given: DreamCandidatesInput = {}): Promise<DreamCandidatesResult> {
  const input = parseInput(dreamCandidatesInputSchema, given);
  const f = await findDreamCandidates(vault, { staleDays: input.stale_days });
  if (f.skills === 0) {
    return { skills: 0, duplicates: [], stale: [], inconsistent: [], message: 'No skills yet: nothing to tidy. Write one with molt_skill.' };
  }
  const left = [
    f.duplicates.length > TOP ? `${f.duplicates.length - TOP} more pairs` : '',
    f.stale.length > TOP ? `${f.stale.length - TOP} more stale skills` : '',
    f.inconsistent.length > TOP ? `${f.inconsistent.length - TOP} more inconsistent fields` : '',
  ].filter(Boolean);
  const hint =
    f.duplicates.length > 0
      ? 'For a pair, read both and molt_skill the first (a) with one procedure holding the steps of both; a person then archives b (Dream page or lucid dream --apply).'
      : 'Nothing to merge.';
  return {
    skills: f.skills,
    duplicates: f.duplicates.slice(0, TOP).map((d) => ({ a: d.a, b: d.b, score: d.score, evidence: d.evidence.slice(0, EVIDENCE) })),
    stale: f.stale.slice(0, TOP).map((s) => ({ skill: s.skill, last_used: s.lastUsed, days: s.days })),
    inconsistent: f.inconsistent.slice(0, TOP).map((i) => ({ skill: i.skill, field: i.field, problem: i.problem })),
    message: `${hint}${left.length > 0 ? ` Not shown: ${left.join(', ')}.` : ''}`,
  };
}
