/**
 * The memory protocol in plain words: written to AGENTS.md by `lucid init`, sent by the MCP
 * server as its instructions, and quoted in the README. Tool names are a contract.
 */
export function memoryProtocol(layout: { inbox: string; sessions: string; skills: string; decisions: string; changelog: string }): string {
  return `# How agents use this vault as memory

This vault is shared memory for people and AI agents. People read and correct it in Obsidian;
agents use it through Lucid (the MCP server \`lucid mcp\`, or the \`lucid\` CLI). Every write is
checked against the note types, written atomically, logged in \`${layout.changelog}\` and committed
to git, so every change can be seen and reverted.

## The protocol

1. **Start**: call \`start_session\` with your agent name and the task. It returns your session id
   and what to read first: the project (named in the task, or by \`project\` or \`repo\`), its
   current decisions, the last sessions on the same work (the newest with its summary and next
   steps), the skills whose trigger fits the task, the notes search ranks best for the task, and
   what people changed since your last session,
   grouped by note, newest first, each with who, when and their own words: notes they edited
   (also edits saved on disk and not committed yet), edits they reverted, and your proposals they
   rejected, accepted by hand or moved. Read those first. A person's edit is an instruction:
   follow the note as it is now, never redo what they reverted or rejected.
2. **Search before you assume**: \`search_notes\` takes plain questions; \`read_note\` finds a
   note by path, title, alias or \`[[link]]\` and returns it with its content hash, its links and
   its backlinks. Follow links that matter. A long note comes in parts (\`next_offset\`, or one
   \`section\`): never replace a note with a part of it; edit that part, or read it all first.
3. **Write what you know**: to change part of a note (a fact, a line, a section) use
   \`edit_note\`: \`find_replace\` (literal text, with the number of places it occurs),
   \`replace_section\` (the text under a heading such as \`## Status\`), \`insert_before_heading\`,
   \`insert_after_heading\`, \`prepend\` or \`append\`; everything else in the note stays as it was.
   Do not rewrite a whole note to change a few lines. \`write_note\` creates a note (it refuses a
   path that exists), replaces it whole, appends or sets its fields. Pass the \`expected_hash\`
   you read to either tool: if the note
   changed since, your version goes to the inbox instead of overwriting; read the note again.
   To rename or move a note use \`move_note\` (\`from\`, \`to\`): it rewrites the links to it.
   Decisions go through \`record_decision\` (it supersedes the one it replaces).
4. **Send what you are unsure of to the inbox**: \`propose_to_inbox\` (folder \`${layout.inbox}/\`).
   A person accepts, edits or rejects it. Deleting a note always goes this way (action \`delete\`).
   Never put secrets in notes: Lucid never commits them; a write that holds one goes to the inbox
   with the secret masked.
5. **Keep your procedures as skills**: \`molt_skill\` creates or improves a note in
   \`${layout.skills}/\`; each change raises its version and is a reviewable commit.
   \`dream_candidates\` lists skills that duplicate each other or went unused: merge a pair by
   molting the first with the steps of both.
6. **End**: call \`end_session\` with a summary, the outcome and next steps. It writes your session
   note to \`${layout.sessions}/\` with what you searched, read and touched. A session you leave
   without ending it is ended for you, as abandoned.

## Rules

- One fact per note where you can; link notes with \`[[wikilinks]]\`.
- Give a short, honest reason with every write: it is the commit message and the changelog line.
- Do not edit \`${layout.changelog}\`, \`.lucid/\` or \`.obsidian/\`; Lucid refuses it anyway.
- If a tool says a note is invalid, fix the fields it names rather than working around them.
`;
}
