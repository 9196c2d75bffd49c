import { editNote, editNoteInputSchema, writeNoteResultSchema } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** edit_note: part of a note changed, every other byte kept. */
export function registerEditNote({ vault, register, tool, use }: ToolContext): void {
  register(
    'edit_note',
    {
      title: 'Edit part of a note',
      description:
        'Change part of a note in one commit, every other byte kept: find_replace (literal, expected count), replace_section, insert before or after a heading, prepend, append. Prefer it to rewriting a note. A stale expected_hash sends your edit to the inbox. To delete a note, propose_to_inbox with action delete.',
      inputSchema: editNoteInputSchema,
      outputSchema: writeNoteResultSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    tool('edit_note', async (args) => {
      use(args.session);
      const result = await editNote(vault, args);
      return reply({ ...result }, result.status !== 'written');
    }),
  );
}
