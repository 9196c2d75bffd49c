import { proposeInputSchema, proposeResultSchema, proposeToInbox } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** propose_to_inbox: a change for a person to accept, edit or reject. */
export function registerProposeToInbox({ vault, register, tool, use }: ToolContext): void {
  register(
    'propose_to_inbox',
    {
      title: 'Propose a change to the inbox',
      description:
        'Send a change you are not sure of to the inbox, for a person to accept, edit or reject. Deleting a note goes through here too (action delete).',
      inputSchema: proposeInputSchema,
      outputSchema: proposeResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('propose_to_inbox', async (args) => {
      use(args.session);
      const result = await proposeToInbox(vault, args);
      return reply({ ...result });
    }),
  );
}
