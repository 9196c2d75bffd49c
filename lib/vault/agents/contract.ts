import { z } from 'zod';
import { VaultError, type VaultErrorCode } from '../errors';
import { SESSION_ID_PATTERN } from '../ids';
import { PROPOSAL_ACTIONS, SESSION_OUTCOMES } from '../notes/schema';
import { NOTE_EDIT_OPERATIONS } from '../notes/note-edits';

/**
 * The agent contract: what each of the memory protocol's ten tools takes and returns, as zod
 * schemas. The MCP server registers these schemas, the CLI verbs check their arguments with them,
 * and the operations parse their input with them, so a bad input gets the same sentence and the
 * same field from all three. Every literal list of the protocol (outcomes, proposal actions,
 * write modes, statuses, inbox flags) and the shape of a session's observations live here once.
 */

type Issue = { path?: PropertyKey[]; input?: unknown };

/** The top-level input field an issue is about (`fields.status` → `fields`). */
function fieldOf(issue: Issue): string {
  return issue.path && issue.path.length > 0 ? String(issue.path[0]) : 'input';
}

/** `a, b or c`. */
function orList(values: readonly unknown[]): string {
  const words = values.map(String);
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

const required = (issue: Issue) => `${fieldOf(issue)} is required.`;
const notText = (issue: Issue) => (issue.input === undefined ? required(issue) : `${fieldOf(issue)} must be text.`);

/** Required text: not blank, at most `max` characters. */
function requiredText(max: number) {
  return z
    .string({ error: notText })
    .min(1, { error: required, abort: true })
    .refine((value) => value.trim() !== '', { error: required, abort: true })
    .max(max, { error: (issue) => `${fieldOf(issue)} is longer than ${max} characters.` });
}

/** Optional text of at most `max` characters. */
function optionalText(max: number) {
  return z
    .string({ error: notText })
    .max(max, { error: (issue) => `${fieldOf(issue)} is longer than ${max} characters.` })
    .optional();
}

/** One of `values`, refused with `<field> must be a, b or c.` */
function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: (issue) => `${fieldOf(issue)} must be ${orList(values)}.` });
}

/** A whole number from 1 to `max`. */
function countUpTo(max: number) {
  const message = (issue: Issue) => `${fieldOf(issue)} must be a whole number from 1 to ${max}.`;
  return z.number({ error: message }).int({ error: message }).min(1, { error: message }).max(max, { error: message });
}

// ---------------------------------------------------------------------------------------------
// The literal lists

// The vault format's own vocabulary (outcomes, proposal actions) lives with the note schemas in
// notes/schema.ts; the contract builds its refusals on those lists.

/** How a session ended. */
const sessionOutcomeSchema = oneOf(SESSION_OUTCOMES);

/** What an inbox proposal asks a person to do to its target. */
const proposalActionSchema = oneOf(PROPOSAL_ACTIONS);

/** How `write_note` changes a note. */
const writeModeSchema = oneOf(['create', 'replace', 'append', 'set_fields']);
/** The write modes, as a plain list. */
export const WRITE_MODES = writeModeSchema.options;

/** Where an agent's write ended up: in the note, or in the inbox (a conflict, or a possible secret). */
const writeStatusSchema = z.enum(['written', 'conflict', 'possible_secret']);

/** Where an agent's proposal ended up: proposed, or proposed masked because it held a secret. */
const proposeStatusSchema = z.enum(['proposed', writeStatusSchema.enum.possible_secret]);

/** The inbox flags Lucid sets: a write that conflicted, and a write that held a secret. */
export const inboxFlagSchema = z.enum({ conflict: 'conflict', secret: 'possible-secret' });
/** An inbox flag Lucid sets. */
export type InboxFlag = z.infer<typeof inboxFlagSchema>;
/** The inbox flags by name (`INBOX_FLAGS.secret` is `possible-secret`). */
export const INBOX_FLAGS = inboxFlagSchema.enum;

// ---------------------------------------------------------------------------------------------
// Fields shared by several tools

/** The sentence for a value that is not a session id. */
export function notASessionId(value: unknown): string {
  return `"${String(value).slice(0, 80)}" is not a session id; use the id start_session returned (like 20261130-140112-claude-code-k3tq).`;
}

const sessionField = requiredText(100)
  .regex(SESSION_ID_PATTERN, { error: (issue) => notASessionId(issue.input) })
  .describe('The session id start_session returned.');
const reasonField = requiredText(1000).describe('Why, in one short line: the commit message and the changelog line.');
const projectFilter = optionalText(300);

const MAX_CONTENT = 1_000_000;
/** Note content: refused as too large (not as invalid) above 1 MB. */
const noteContent = z
  .string({ error: notText })
  .refine((value) => value.length <= MAX_CONTENT, { message: 'content is larger than 1 MB; split it into several notes.', params: { code: 'too_large' } });

const PROPERTY_NAME = /^[^\s:#][^:#\n]*$/;
const scalar = z.union([z.string(), z.number(), z.boolean()]);
/** A front-matter value an agent may set: text, a number, true/false, a list of those, or null (remove it). */
const fieldValue = z.union([scalar, z.null(), z.array(scalar)], {
  error: (issue) =>
    `Property ${String(issue.path?.[1] ?? '')} must be text, a number, true/false, a list of those, or null to remove it: front matter is flat.`,
});
const propertyFields = z.record(z.string().regex(PROPERTY_NAME).max(100), fieldValue, {
  error: (issue) =>
    issue.code === 'invalid_key' ? `"${String(issue.input).slice(0, 40)}" is not a property name.` : 'fields must be an object of properties.',
});

// ---------------------------------------------------------------------------------------------
// start_session

/** What `start_session` takes. */
export const startSessionInputSchema = z.object({
  agent: requiredText(100).describe('Your name as an agent, e.g. "claude-code"; you write as agent:<slug of it>.'),
  task: requiredText(1000).describe('What you are about to do, in one sentence.'),
  project: projectFilter.describe(
    'The project\'s name, alias, title or note path, e.g. "atlas" or "projects/atlas.md" (any note, typed or not). Left out: a project the task names.',
  ),
  repo: optionalText(500).describe("The code repository you work in (remote URL or path), matched against projects' repo field."),
});

/**
 * One note an agent should read before it starts, and why (one short sentence). The last related
 * session also carries its `summary` and `next_steps`, read from its note.
 */
export const readFirstItemSchema = z.object({
  path: z.string(),
  title: z.string(),
  type: z.string().nullable(),
  why: z.string(),
  summary: z.string().optional(),
  next_steps: z.array(z.string()).optional(),
});
/** One note an agent should read before it starts, and why. */
export type ReadFirstItem = z.infer<typeof readFirstItemSchema>;

/** An inbox proposal a person settled: what it proposed and who proposed it; `yours` when this agent did. */
const settledProposalSchema = z.object({
  inbox_path: z.string(),
  action: z.string().nullable(),
  target: z.string().nullable(),
  proposed_by: z.string().nullable(),
  yours: z.boolean(),
});

/** The edit a revert undid: its id (null for a commit Lucid did not make), commit, actor, op, time, reason and paths. */
const undoneEditSchema = z.object({
  edit: z.string().nullable(),
  commit: z.string().nullable(),
  actor: z.string().nullable(),
  op: z.string().nullable(),
  at: z.string().nullable(),
  reason: z.string(),
  paths: z.array(z.string()),
});

/** The kinds of correction a person makes, each reported at the note it is about. */
const CORRECTION_KINDS = ['edited', 'uncommitted', 'reverted', 'rejected', 'accepted_by_hand', 'moved'] as const;

/**
 * One thing a person did to a note, or to a proposal about it: `edited` (a commit of theirs),
 * `uncommitted` (saved on disk, not committed yet), `reverted` (an edit undone, by Lucid or by
 * `git revert`), `rejected` (a proposal rejected or deleted from the inbox), `accepted_by_hand` (a
 * proposal deleted in the commit that changed its target) or `moved` (a proposal moved out of the
 * inbox). `reason` is the person's own words: a Lucid commit's reason, a plain commit's subject and
 * body. `lines` are changed lines (`+ added`, `- removed`, secrets masked): of the uncommitted edit,
 * or of the edit a revert undid.
 */
export const correctionSchema = z.object({
  kind: z.enum(CORRECTION_KINDS),
  by: z.string(),
  at: z.string(),
  reason: z.string(),
  /** The Lucid op, `commit` for a plain git commit, null when not committed. */
  op: z.string().nullable(),
  /** The commit (12 hex digits), null when not committed. */
  commit: z.string().nullable(),
  undid: undoneEditSchema.optional(),
  proposal: settledProposalSchema.optional(),
  moved_to: z.string().optional(),
  /** What happened to the file: modified, added, deleted or renamed (from `renamed_from`). */
  status: z.enum(['modified', 'added', 'deleted', 'renamed']).optional(),
  renamed_from: z.string().optional(),
  lines: z.array(z.string()).optional(),
  /** Changed lines left out of `lines`. */
  more_lines: z.number().int().optional(),
});
/** One thing a person did to a note. */
export type Correction = z.infer<typeof correctionSchema>;

/**
 * What people did to one note since the agent's last session, newest first. `exists` tells whether
 * the note is there now; `yours` whether this agent wrote it (or made the proposal) before.
 */
export const noteCorrectionsSchema = z.object({
  path: z.string(),
  exists: z.boolean(),
  yours: z.boolean(),
  changes: z.array(correctionSchema),
  /** Changes to this note left out of `changes`. */
  more_changes: z.number().int(),
});
/** What people did to one note. */
export type NoteCorrections = z.infer<typeof noteCorrectionsSchema>;

/** A commit that only added many files (the vault's first import, Lucid's snapshot), in one line. */
const importSummarySchema = z.object({
  commit: z.string(),
  by: z.string(),
  at: z.string(),
  reason: z.string(),
  /** Notes it added. */
  notes: z.number().int(),
  /** Files it added, notes included. */
  files: z.number().int(),
  examples: z.array(z.string()),
});

/**
 * How people corrected the vault since the agent's previous session ended (`since`; null when it
 * has none, then the last 14 days count): the notes they changed, grouped by note, the note
 * changed most recently first; imports in one line each; and how many notes were left out.
 */
export const sinceLastSessionSchema = z.object({
  since: z.string().nullable(),
  previous_session: z.string().nullable(),
  corrections: z.array(noteCorrectionsSchema),
  /** Notes people changed that `corrections` leaves out (it lists at most 20). */
  more_notes: z.number().int(),
  /** People's commits not read at all (at most 1,000 are): older than those reported. */
  more_commits: z.number().int(),
  imports: z.array(importSummarySchema),
  /** Imports left out of `imports` (it lists at most 5). */
  more_imports: z.number().int(),
});
/** How people corrected the vault since the agent's previous session ended. */
export type SinceLastSession = z.infer<typeof sinceLastSessionSchema>;

/** What `start_session` returns: the session id and what to read first. */
export const startSessionResultSchema = z.object({
  session: z.string(),
  actor: z.string(),
  /** Where end_session will write the session note. */
  session_note: z.string(),
  task: z.string(),
  /** The matched project note (by the project argument, the repo, or a name in the task), or null. */
  project: z.string().nullable(),
  /** At most 12 notes, in reading order: project, decisions, sessions, skills, then notes search ranks best. */
  read_first: z.array(readFirstItemSchema),
  since_last_session: sinceLastSessionSchema,
  /** Sentences about what could not be matched, for the agent. */
  notes: z.array(z.string()),
});
/** What `start_session` returns. */
export type StartSessionResult = z.infer<typeof startSessionResultSchema>;

// ---------------------------------------------------------------------------------------------
// search_notes and read_note

/** What `search_notes` takes. */
export const searchNotesInputSchema = z.object({
  query: requiredText(500).describe('A question or keywords, e.g. "why did we pick postgres".'),
  type: optionalText(50).describe("Only notes of this type: person, project, decision, session, skill, report, or a vault's own type."),
  project: projectFilter.describe('Only notes of this project (its name or note path).'),
  limit: countUpTo(50).optional().describe('At most this many results (default 20).'),
});

/** What the library's search takes: the tool's input, and what the CLI and the dashboard add. */
export const searchNotesOptionsSchema = searchNotesInputSchema.extend({
  folder: optionalText(1024).describe('Only notes under this folder.'),
  includeSystem: z.boolean().optional().describe('Also search the changelog, the inbox, evaluations and AGENTS.md.'),
  limit: countUpTo(200).optional().describe('At most this many results (default 20).'),
});

/** What `search_notes` returns: ranked notes with snippets (matches marked « »). */
export const searchNotesResultSchema = z.object({
  query: z.string(),
  project: z.string().nullable(),
  results: z.array(z.object({ path: z.string(), title: z.string(), type: z.string().nullable(), score: z.number(), snippet: z.string() })),
});
/** What `search_notes` returns. */
export type SearchNotesResult = z.infer<typeof searchNotesResultSchema>;

/** How many characters of a body read_note returns when the agent names no `max_chars`. */
export const READ_NOTE_DEFAULT_CHARS = 20_000;
/** The most characters of a body one read_note returns. */
const READ_NOTE_MAX_CHARS = 100_000;

/** A character offset into a note's body: a whole number from 0. */
const bodyOffset = z
  .number({ error: (issue) => `${fieldOf(issue)} must be a whole number from 0.` })
  .int({ error: (issue) => `${fieldOf(issue)} must be a whole number from 0.` })
  .min(0, { error: (issue) => `${fieldOf(issue)} must be a whole number from 0.` });

/** What `read_note` takes. */
export const readNoteInputSchema = z.object({
  path: requiredText(1024).describe(
    'The note: a path ("decisions/use-postgres.md"), file name, title, alias ("Jane Doe") or wikilink ("[[Jane Doe#Role]]"), resolved as Obsidian does.',
  ),
  section: optionalText(500).describe('Only the section under this heading (its text, e.g. "Decisions"; "Parent#Child" for a heading under another).'),
  offset: bodyOffset
    .optional()
    .describe("Start at this character of the body: the next_offset a previous read returned (default: the start, or the section's start)."),
  max_chars: countUpTo(READ_NOTE_MAX_CHARS)
    .optional()
    .describe(`At most this many characters of the body (default ${READ_NOTE_DEFAULT_CHARS.toLocaleString('en-US')}).`),
});
/** What `read_note` takes. */
export type ReadNoteInput = z.input<typeof readNoteInputSchema>;

/** A note a read_note result names, with its title. */
const titledPath = { path: z.string(), title: z.string() };

/**
 * What `read_note` returns. `hash` is always the sha256 of the whole file's bytes (whatever part of
 * the body came back), to pass as expected_hash when writing. `body` is the part from `offset` to
 * `end` (characters of the body); `next_offset` is where the next part starts (null: nothing more).
 */
export const readNoteResultSchema = z.object({
  path: z.string(),
  title: z.string(),
  type: z.string().nullable(),
  /** How the note was found: its path, a link's resolution (file name), its title or an alias. */
  matched_by: z.enum(['path', 'link', 'title', 'alias']),
  /** Other notes with the same title or alias, when it was found by one (at most 5). */
  other_matches: z.array(z.object(titledPath)),
  frontmatter: z.record(z.string(), z.unknown()),
  body: z.string(),
  hash: z.string(),
  /** The file's size in bytes, and the body's length in characters. */
  size: z.number(),
  total_chars: z.number(),
  offset: z.number(),
  end: z.number(),
  next_offset: z.number().nullable(),
  /** The heading whose section this is, or null for the whole body. */
  section: z.string().nullable(),
  headings: z.array(z.object({ level: z.number(), text: z.string(), offset: z.number() })),
  more_headings: z.number(),
  links: z.array(z.object({ raw: z.string(), target: z.string(), resolved: z.string().nullable(), title: z.string().nullable() })),
  more_links: z.number(),
  backlinks: z.array(z.object({ from: z.string(), line: z.number(), title: z.string() })),
  more_backlinks: z.number(),
  problem: z.string().nullable(),
  violations: z.array(z.object({ field: z.string(), message: z.string() })),
});
/** What `read_note` returns. */
export type ReadNoteResult = z.infer<typeof readNoteResultSchema>;

// ---------------------------------------------------------------------------------------------
// write_note

/**
 * What `write_note` takes. Content is required for create, replace and append; fields for
 * set_fields; expected_hash for replace.
 */
export const writeNoteInputSchema = z
  .object({
    session: sessionField,
    path: requiredText(1024).describe('The note\'s path in the vault, ending in .md, e.g. "projects/atlas.md".'),
    mode: writeModeSchema.describe(
      'create (a new note; refused if the path exists), replace (the whole note; needs expected_hash), append (add at the end) or set_fields (front matter only).',
    ),
    content: noteContent.optional().describe('The markdown: for create and replace the whole note, front matter included; for append the text to add.'),
    fields: propertyFields.optional().describe('Front-matter properties to set, e.g. {"status": "done"}; null removes one. Links as "[[folder/note]]".'),
    expected_hash: z
      .string({ error: notText })
      .regex(/^[0-9a-f]{64}$/, { error: 'expected_hash must be the 64-character sha256 read_note returned.' })
      .optional()
      .describe('The hash read_note returned for the version you changed; required for replace.'),
    reason: reasonField,
  })
  .superRefine((input, ctx) => {
    const { mode, content } = input;
    if (mode !== 'set_fields' && (content === undefined || (mode === 'append' && content.trim() === ''))) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: `content is required for mode ${mode}.` });
    }
    if (mode === 'set_fields' && (!input.fields || Object.keys(input.fields).length === 0)) {
      ctx.addIssue({ code: 'custom', path: ['fields'], message: 'fields is required for mode set_fields (e.g. {"status": "done"}).' });
    }
    if (mode === 'replace' && !input.expected_hash) {
      ctx.addIssue({ code: 'custom', path: ['expected_hash'], message: 'replace needs expected_hash: read_note the note first and pass the hash it returns.' });
    }
  });
/** What `write_note` takes. */
export type WriteNoteInput = z.input<typeof writeNoteInputSchema>;

/** What `write_note` returns; `hash` is the note's new sha256 (written) or its current one (conflict). */
export const writeNoteResultSchema = z.object({
  status: writeStatusSchema,
  path: z.string(),
  edit_id: z.string(),
  commit: z.string(),
  hash: z.string().nullable(),
  inbox_path: z.string().nullable(),
  message: z.string(),
});
/** What `write_note` returns. */
export type WriteNoteResult = z.infer<typeof writeNoteResultSchema>;

// ---------------------------------------------------------------------------------------------
// edit_note

/** How `edit_note` changes a note. */
const editOperationSchema = oneOf(NOTE_EDIT_OPERATIONS);
/** The edit_note operations, as a plain list. */
export const EDIT_OPERATIONS = editOperationSchema.options;

/** Which of edit_note's optional fields each operation takes. */
const EDIT_FIELDS: Record<(typeof NOTE_EDIT_OPERATIONS)[number], readonly ('find' | 'replace' | 'expected_replacements' | 'heading' | 'content')[]> = {
  find_replace: ['find', 'replace', 'expected_replacements'],
  replace_section: ['heading', 'content'],
  insert_before_heading: ['heading', 'content'],
  insert_after_heading: ['heading', 'content'],
  prepend: ['content'],
  append: ['content'],
};

/**
 * What `edit_note` takes. find and replace for find_replace (expected_replacements defaults to 1);
 * heading for the heading operations; content for all but find_replace (it may be empty for
 * replace_section, which then clears the section). A field the operation does not use is refused,
 * so a misplaced argument is never silently ignored.
 */
export const editNoteInputSchema = z
  .object({
    session: sessionField,
    path: requiredText(1024).describe('The note\'s path, e.g. "projects/atlas.md".'),
    operation: editOperationSchema.describe('replace_section: the text under heading; prepend: after the front matter.'),
    find: noteContent.optional().describe('find_replace: the exact text to find, matched literally.'),
    replace: noteContent.optional().describe('find_replace: its replacement; empty deletes it.'),
    expected_replacements: countUpTo(10_000).optional().describe('find_replace: how often find occurs (default 1); another count changes nothing.'),
    heading: optionalText(500).describe(
      'The heading line with its level, e.g. "## Status" (once in the note); its section runs to the next heading of its level or higher.',
    ),
    content: noteContent.optional().describe("The text to insert, or the section's new text without its heading line."),
    expected_hash: z
      .string({ error: notText })
      .regex(/^[0-9a-f]{64}$/, { error: 'expected_hash must be the 64-character sha256 read_note returned.' })
      .optional()
      .describe('The hash read_note returned; if the note changed since, the edit goes to the inbox.'),
    reason: reasonField,
  })
  .superRefine((input, ctx) => {
    const uses = EDIT_FIELDS[input.operation];
    for (const field of ['find', 'replace', 'expected_replacements', 'heading', 'content'] as const) {
      if (input[field] !== undefined && !uses.includes(field)) {
        const hint = field === 'content' && input.operation === 'find_replace' ? ' (the new text of find_replace is replace)' : '';
        ctx.addIssue({ code: 'custom', path: [field], message: `${field} is not used by ${input.operation}${hint}; leave it out.` });
      }
    }
    if (input.operation === 'find_replace') {
      if (input.find === undefined || input.find === '') ctx.addIssue({ code: 'custom', path: ['find'], message: 'find is required for find_replace.' });
      if (input.replace === undefined)
        ctx.addIssue({ code: 'custom', path: ['replace'], message: 'replace is required for find_replace (empty deletes the text).' });
      return;
    }
    if (uses.includes('heading') && (input.heading === undefined || input.heading.trim() === '')) {
      ctx.addIssue({ code: 'custom', path: ['heading'], message: `heading is required for ${input.operation}, e.g. "## Status".` });
    }
    const blank = input.content === undefined || (input.operation !== 'replace_section' && input.content.trim() === '');
    if (blank) ctx.addIssue({ code: 'custom', path: ['content'], message: `content is required for ${input.operation}.` });
  });
/** What `edit_note` takes. */
export type EditNoteInput = z.input<typeof editNoteInputSchema>;

/**
 * What `edit_note` returns: write_note's result, {@link writeNoteResultSchema} (`hash` is the
 * note's new sha256, or its current one on a conflict).
 */
export type EditNoteResult = WriteNoteResult;

// ---------------------------------------------------------------------------------------------
// propose_to_inbox

/** What `propose_to_inbox` takes; content may be empty only for delete. */
export const proposeInputSchema = z
  .object({
    session: sessionField,
    target: requiredText(1024).describe('The note the proposal is about, e.g. "projects/atlas.md".'),
    action: proposalActionSchema.describe(`${orList(PROPOSAL_ACTIONS).replace('update', 'update (whole new note)')}.`),
    content: noteContent.default('').describe('The proposed text: for update the whole new note, front matter included; empty for delete.'),
    reason: reasonField,
    confidence: z
      .number({ error: 'confidence must be between 0 and 1.' })
      .min(0, { error: 'confidence must be between 0 and 1.' })
      .max(1, { error: 'confidence must be between 0 and 1.' })
      .optional()
      .describe('How sure you are, from 0 to 1.'),
  })
  .superRefine((input, ctx) => {
    if (input.action !== 'delete' && input.content.trim() === '') {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'content is required (the proposed text).' });
    }
  });
/** What `propose_to_inbox` takes. */
export type ProposeInput = z.input<typeof proposeInputSchema>;

/** What `propose_to_inbox` returns. */
export const proposeResultSchema = z.object({
  status: proposeStatusSchema,
  inbox_path: z.string(),
  target: z.string(),
  action: proposalActionSchema,
  flag: inboxFlagSchema.nullable(),
  edit_id: z.string(),
  commit: z.string(),
  message: z.string(),
});
/** What `propose_to_inbox` returns. */
export type ProposeResult = z.infer<typeof proposeResultSchema>;

// ---------------------------------------------------------------------------------------------
// record_decision

/** What `record_decision` takes. */
export const recordDecisionInputSchema = z.object({
  session: sessionField,
  project: requiredText(300).describe('The project\'s name or note path, e.g. "atlas".'),
  title: requiredText(200).describe('The decision in a few words, e.g. "Use Postgres for the ledger".'),
  decision: requiredText(20_000).describe('What was decided (markdown).'),
  rationale: requiredText(20_000).describe('Why: the reasons and what was weighed (markdown).'),
  replaces: optionalText(1024).describe('The decision this one replaces (its path, e.g. "decisions/atlas-use-mysql.md").'),
});
/** What `record_decision` takes. */
export type RecordDecisionInput = z.input<typeof recordDecisionInputSchema>;

/** What `record_decision` returns. */
export const recordDecisionResultSchema = z.object({
  status: writeStatusSchema.exclude(['conflict']),
  path: z.string(),
  superseded: z.string().nullable(),
  edit_id: z.string(),
  commit: z.string(),
  hash: z.string().nullable(),
  inbox_path: z.string().nullable(),
  message: z.string(),
});
/** What `record_decision` returns. */
export type RecordDecisionResult = z.infer<typeof recordDecisionResultSchema>;

// ---------------------------------------------------------------------------------------------
// molt_skill

/** What `molt_skill` takes. */
export const moltSkillInputSchema = z.object({
  session: sessionField,
  name: requiredText(100).describe('The skill\'s name in [a-z0-9-], e.g. "triage-flaky-tests".'),
  content: requiredText(200_000).describe('The procedure in markdown, without front matter.'),
  trigger: optionalText(500).describe('When an agent should use it, e.g. "when CI fails intermittently"; required for a new skill.'),
  reason: reasonField,
});
/** What `molt_skill` takes. */
export type MoltSkillInput = z.input<typeof moltSkillInputSchema>;

/** What `molt_skill` returns. */
export const moltSkillResultSchema = z.object({
  status: writeStatusSchema,
  path: z.string(),
  name: z.string(),
  version: z.number(),
  previous_version: z.number(),
  edit_id: z.string(),
  commit: z.string(),
  hash: z.string().nullable(),
  inbox_path: z.string().nullable(),
  message: z.string(),
});
/** What `molt_skill` returns. */
export type MoltSkillResult = z.infer<typeof moltSkillResultSchema>;

// ---------------------------------------------------------------------------------------------
// end_session

/**
 * What Lucid observed a session doing, in the order it first did each thing: its queries, the
 * notes it read, the notes it wrote, its inbox proposals, the skills it read, and the times of its
 * first search and first write.
 */
export const sessionObservationsSchema = z.object({
  searched: z.array(z.string()),
  read: z.array(z.string()),
  touched: z.array(z.string()),
  inbox: z.array(z.string()),
  skills_used: z.array(z.string()),
  first_search: z.string().nullable(),
  /** When the session first read a note or a skill (absent from notes written before it was observed). */
  first_read: z.string().nullable().optional(),
  first_write: z.string().nullable(),
});
/** What Lucid observed a session doing. */
export type SessionObservations = z.infer<typeof sessionObservationsSchema>;

/** Next steps as a list, or as text with one step per line (a leading `-` or `*` dropped). */
const nextSteps = z
  .union(
    [
      z.array(z.string().max(500, { error: 'next_steps: each step is at most 500 characters.' })).max(50, { error: 'next_steps has more than 50 steps.' }),
      z.string().max(5000),
    ],
    {
      error: 'next_steps must be a list of steps, or text with one step per line.',
    },
  )
  .transform((steps) =>
    typeof steps === 'string'
      ? steps
          .split('\n')
          .map((s) => s.replace(/^\s*[-*]\s*/, '').trim())
          .filter(Boolean)
      : steps,
  );

/** What `end_session` takes. */
export const endSessionInputSchema = z.object({
  session: sessionField,
  summary: requiredText(20_000).describe('What you did and learned, for the next agent and for people (markdown).'),
  outcome: sessionOutcomeSchema.default('done').describe(`${orList(SESSION_OUTCOMES).replace('done', 'done (default)')}.`),
  next_steps: nextSteps.optional().describe('What should happen next, one step per item.'),
});
/** What `end_session` takes. */
export type EndSessionInput = z.input<typeof endSessionInputSchema>;

/** What `end_session` returns: the session note and what was observed. */
export const endSessionResultSchema = z.object({
  session: z.string(),
  path: z.string(),
  outcome: sessionOutcomeSchema,
  edit_id: z.string(),
  commit: z.string(),
  observed: sessionObservationsSchema,
  message: z.string(),
});
/** What `end_session` returns. */
export type EndSessionResult = z.infer<typeof endSessionResultSchema>;

// ---------------------------------------------------------------------------------------------
// move_note

/** What `move_note` takes. */
export const moveNoteInputSchema = z.object({
  session: sessionField,
  from: requiredText(1024).describe('The note to move, e.g. "notes/atlas.md".'),
  to: requiredText(1024).describe('Its new path, ending in .md, e.g. "projects/atlas.md"; must not exist.'),
  reason: reasonField,
});
/** What `move_note` takes. */
export type MoveNoteInput = z.input<typeof moveNoteInputSchema>;

/** What `move_note` returns: the commit, the moved note's hash, and the notes whose links were rewritten (with how many). */
export const moveNoteResultSchema = z.object({
  from: z.string(),
  to: z.string(),
  edit_id: z.string(),
  commit: z.string(),
  hash: z.string().nullable(),
  rewritten: z.array(z.object({ path: z.string(), links: z.number() })),
  message: z.string(),
});
/** What `move_note` returns. */
export type MoveNoteResult = z.infer<typeof moveNoteResultSchema>;

// ---------------------------------------------------------------------------------------------
// dream_candidates

/** What `dream_candidates` takes. */
export const dreamCandidatesInputSchema = z.object({
  stale_days: countUpTo(36_500).optional().describe('Days without use before a skill is stale (default 60).'),
});
/** What `dream_candidates` takes. */
export type DreamCandidatesInput = z.input<typeof dreamCandidatesInputSchema>;

/** What `dream_candidates` returns: the dream pass's findings, the top of each list (see `message` for what was left out). */
export const dreamCandidatesResultSchema = z.object({
  skills: z.number(),
  duplicates: z.array(z.object({ a: z.string(), b: z.string(), score: z.number(), evidence: z.array(z.string()) })),
  stale: z.array(z.object({ skill: z.string(), last_used: z.string().nullable(), days: z.number() })),
  inconsistent: z.array(z.object({ skill: z.string(), field: z.string(), problem: z.string() })),
  message: z.string(),
});
/** What `dream_candidates` returns. */
export type DreamCandidatesResult = z.infer<typeof dreamCandidatesResultSchema>;

// ---------------------------------------------------------------------------------------------
// Checking an input

/** Why an input was refused: the sentence, the top-level field, and the error code it maps to. */
export interface InputProblem {
  code: Extract<VaultErrorCode, 'invalid_input' | 'too_large'>;
  message: string;
  field?: string;
}

/** The first problem of a failed parse, as the sentence every consumer reports. */
export function inputProblem(error: z.ZodError): InputProblem {
  const issue = error.issues[0];
  if (!issue) return { code: 'invalid_input', message: 'The input is not valid.' };
  const params = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined) : undefined;
  return {
    code: params?.code === 'too_large' ? 'too_large' : 'invalid_input',
    message: issue.message,
    ...(issue.path.length > 0 ? { field: String(issue.path[0]) } : {}),
  };
}

/**
 * Parses an operation's input with its contract schema; a refused input throws a VaultError
 * (`invalid_input`, or `too_large` for content over 1 MB) with the sentence and `{ field }`.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problem = inputProblem(parsed.error);
  throw new VaultError(problem.code, problem.message, problem.field ? { field: problem.field } : undefined);
}
