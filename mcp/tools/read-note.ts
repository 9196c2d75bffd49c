import { readNoteForAgent, readNoteInputSchema, readNoteResultSchema } from '../../lib/vault';
import type { ToolContext } from './context';
import { reply } from './reply';

/** read_note: a note by path, name, title, alias or wikilink, a part at a time. */
export function registerReadNote({ vault, register, tool, stillOpen }: ToolContext): void {
  register(
    'read_note',
    {
      title: 'Read a note',
      description:
        "Read a note by path, file name, title, alias or [[wikilink]] (a miss names the closest notes). Returns front matter, body (20,000 characters at a time: pass next_offset as offset, or a heading as section), headings, links and backlinks with titles, and the whole file's hash for expected_hash. Never replace a note with a part you read.",
      inputSchema: readNoteInputSchema,
      outputSchema: readNoteResultSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    tool('read_note', async (args) => {
      const result = await readNoteForAgent(vault, args, stillOpen());
      return reply({ ...result });
    }),
  );
}
