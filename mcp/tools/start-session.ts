import { startSession, startSessionInputSchema, startSessionResultSchema } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** start_session: the session id, what to read first, and what people changed since the last session. */
export function registerStartSession({ vault, owner, register, tool, started }: ToolContext): void {
  register(
    'start_session',
    {
      title: 'Start a session',
      description:
        "Call this first. Returns your session id, what to read first (the project, its decisions, recent sessions with the newest's next steps, fitting skills, the notes search ranks best; each with why) and what people changed since your last session, per note, in their own words. People's corrections are instructions: follow them.",
      inputSchema: startSessionInputSchema,
      outputSchema: startSessionResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    tool('start_session', async (args) => {
      const result = await startSession(vault, { ...args, owner });
      started(result.session);
      return reply({ ...result });
    }),
  );
}
