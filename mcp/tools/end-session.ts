import { endSession, endSessionInputSchema, endSessionResultSchema } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** end_session: the session note, with what Lucid observed. */
export function registerEndSession({ vault, register, tool, ended }: ToolContext): void {
  register(
    'end_session',
    {
      title: 'End the session',
      description:
        'Call this when you are done. Writes your session note: your summary, the outcome, next steps and what Lucid observed (searches, notes read and written, proposals, skills read).',
      inputSchema: endSessionInputSchema,
      outputSchema: endSessionResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('end_session', async (args) => {
      const result = await endSession(vault, args);
      ended(result.session);
      return reply({ ...result });
    }),
  );
}
