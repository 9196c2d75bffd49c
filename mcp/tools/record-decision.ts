import { recordDecision, recordDecisionInputSchema, recordDecisionResultSchema } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** record_decision: a project's decision as a decision note. */
export function registerRecordDecision({ vault, register, tool, use }: ToolContext): void {
  register(
    'record_decision',
    {
      title: 'Record a decision',
      description: "Record a project's decision and why, as a decision note. With replaces, the old decision is marked superseded in the same commit.",
      inputSchema: recordDecisionInputSchema,
      outputSchema: recordDecisionResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('record_decision', async (args) => {
      use(args.session);
      const result = await recordDecision(vault, args);
      return reply({ ...result }, result.status !== 'written');
    }),
  );
}
