// The agent contract's tools that change the vault or end a session (contract.ts says what the
// contract is): write_note, edit_note, propose_to_inbox, record_decision, molt_skill, end_session, move_note.
import { z } from 'zod';
import { PROPOSAL_ACTIONS, SESSION_OUTCOMES } from '../notes/schema';
import { NOTE_EDIT_OPERATIONS } from '../notes/note-edits';
import {
  countUpTo,
  inboxFlagSchema,
  notText,
  noteContent,
  oneOf,
  optionalText,
  orList,
  propertyFields,
  proposalActionSchema,
  proposeStatusSchema,
  reasonField,
  requiredText,
  sessionField,
  sessionOutcomeSchema,
  writeModeSchema,
  writeStatusSchema,
} from './contract';

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
