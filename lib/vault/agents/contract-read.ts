// The agent contract's reading tools (contract.ts says what the contract is): start_session,
// search_notes, read_note and dream_candidates.
import { z } from 'zod';
import { countUpTo, fieldOf, optionalText, projectFilter, requiredText } from './contract';

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
