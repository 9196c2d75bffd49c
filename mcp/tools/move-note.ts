import { moveNote, moveNoteInputSchema, moveNoteResultSchema } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** move_note: a note moved or renamed, every link to it rewritten. */
export function registerMoveNote({ vault, register, tool, use }: ToolContext): void {
  register(
    'move_note',
    {
      title: 'Move or rename a note',
      description:
        'Move or rename a note in one commit, rewriting every link that reached it (wikilinks, embeds, markdown and front-matter links) so each link still leads where it did; the changelog, a log, keeps its links as written. Refused, nothing changed, if to exists or a linking note cannot be rewritten. To delete, propose_to_inbox with action delete.',
      inputSchema: moveNoteInputSchema,
      outputSchema: moveNoteResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    tool('move_note', async (args) => {
      use(args.session);
      const result = await moveNote(vault, args);
      return reply({ ...result });
    }),
  );
}
