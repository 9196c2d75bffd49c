import { writeNote, writeNoteInputSchema, writeNoteResultSchema } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** write_note: a note created or changed whole, in one commit. */
export function registerWriteNote({ vault, register, tool, use }: ToolContext): void {
  register(
    'write_note',
    {
      title: 'Write a note',
      description:
        'Create a note, or change it whole, in one commit; for a small change use edit_note. create refuses a path that exists. A stale expected_hash is a conflict: your version goes to the inbox. Invalid front matter is refused with why; a secret goes to the inbox, masked. To delete a note, propose_to_inbox with action delete.',
      inputSchema: writeNoteInputSchema,
      outputSchema: writeNoteResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    tool('write_note', async (args) => {
      use(args.session);
      const result = await writeNote(vault, args);
      return reply({ ...result }, result.status !== 'written');
    }),
  );
}
