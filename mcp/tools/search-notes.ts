import { searchNotes, searchNotesInputSchema, searchNotesResultSchema } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** search_notes: ranked notes with snippets, recorded in the open sessions. */
export function registerSearchNotes({ vault, register, tool, stillOpen }: ToolContext): void {
  register(
    'search_notes',
    {
      title: 'Search notes',
      description: 'Search the vault with a question in plain words: ranked notes with snippets (matches marked « »). Search before you assume.',
      inputSchema: searchNotesInputSchema,
      outputSchema: searchNotesResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('search_notes', async (args) => {
      const result = await searchNotes(vault, args, stillOpen());
      return reply({ ...result });
    }),
  );
}
