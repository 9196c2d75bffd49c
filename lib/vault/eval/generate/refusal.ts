import { leakOf } from '../leak';
import type { Thesaurus } from '../thesaurus';
import type { Candidate } from './candidate';
import { rephraseWith } from './phrasing';

/** How a candidate ended under the leak rule: a question (maybe reworded with a thesaurus), or refused and why. */
export type Phrased = { question: string; paraphrasedWith?: string } | { refused: string };

/**
 * The question a candidate becomes under the leak rule (`leakOf`): its first wording that
 * contains neither its gold notes' titles and aliases nor its answers; else one reworded with the
 * thesaurus (recorded as `paraphrasedWith`) unless the candidate says it cannot be; else refused,
 * with the reason of its first wording.
 */
export function phraseCandidate(candidate: Candidate, gold: { title: string; aliases: string[] }[], thesaurus: Thesaurus | null): Phrased {
  const names = gold.map((n) => ({ title: n.title, aliases: n.aliases }));
  const leaks = (question: string) => leakOf(question, names, candidate.answers);
  for (const wording of candidate.phrasings) if (!leaks(wording)) return { question: wording };
  if (thesaurus && candidate.reword !== false) {
    const avoid = [...names.flatMap((n) => [n.title, ...n.aliases]), ...candidate.answers];
    for (const wording of candidate.phrasings) {
      const reworded = rephraseWith(thesaurus, wording, avoid, leaks);
      if (reworded) return { question: reworded, paraphrasedWith: thesaurus.name };
    }
  }
  return { refused: leaks(candidate.phrasings[0]) ?? 'gives its answer away' };
}
