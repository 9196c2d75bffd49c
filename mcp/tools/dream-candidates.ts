import { dreamCandidatesForAgent, dreamCandidatesInputSchema, dreamCandidatesResultSchema } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** dream_candidates: the dream pass's findings, changing nothing. */
export function registerDreamCandidates({ vault, register, tool }: ToolContext): void {
  register(
    'dream_candidates',
    {
      title: 'Find duplicate and stale skills',
      description:
        "The dream pass's findings, changing nothing: skill pairs that look like the same procedure (score, evidence), skills unused for long, inconsistent fields. Merge a pair by molting the first with both procedures' steps.",
      inputSchema: dreamCandidatesInputSchema,
      outputSchema: dreamCandidatesResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('dream_candidates', async (args) => reply({ ...(await dreamCandidatesForAgent(vault, args)) })),
  );
}
