import { z } from 'zod';
import { VaultError, type VaultErrorCode } from '../errors';
import { SESSION_ID_PATTERN } from '../ids';
import { PROPOSAL_ACTIONS, SESSION_OUTCOMES } from '../notes/schema';

/**
 * The agent contract: what each of the memory protocol's ten tools takes and returns, as zod
 * schemas. The MCP server registers these schemas, the CLI verbs check their arguments with them,
 * and the operations parse their input with them, so a bad input gets the same sentence and the
 * same field from all three. Every literal list of the protocol (outcomes, proposal actions,
 * write modes, statuses, inbox flags) live here once, with the fields several tools share and the
 * parse every consumer calls; each tool's schemas are in contract-read.ts (start_session, search_notes,
 * read_note, dream_candidates) and contract-write.ts (the tools that change the vault or end a session).
 */

type Issue = { path?: PropertyKey[]; input?: unknown };

/** The top-level input field an issue is about (`fields.status` → `fields`). */
export function fieldOf(issue: Issue): string {
  return issue.path && issue.path.length > 0 ? String(issue.path[0]) : 'input';
}

/** `a, b or c`. */
export function orList(values: readonly unknown[]): string {
  const words = values.map(String);
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** The refusal of a missing field. */
const required = (issue: Issue) => `${fieldOf(issue)} is required.`; /** The refusal of a field that is missing or not text. */
export const notText = (issue: Issue) => (issue.input === undefined ? required(issue) : `${fieldOf(issue)} must be text.`);

/** Required text: not blank, at most `max` characters. */
export function requiredText(max: number) {
  return z
    .string({ error: notText })
    .min(1, { error: required, abort: true })
    .refine((value) => value.trim() !== '', { error: required, abort: true })
    .max(max, { error: (issue) => `${fieldOf(issue)} is longer than ${max} characters.` });
}

/** Optional text of at most `max` characters. */
export function optionalText(max: number) {
  return z
    .string({ error: notText })
    .max(max, { error: (issue) => `${fieldOf(issue)} is longer than ${max} characters.` })
    .optional();
}

/** One of `values`, refused with `<field> must be a, b or c.` */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum(values, { error: (issue) => `${fieldOf(issue)} must be ${orList(values)}.` });
}

/** A whole number from 1 to `max`. */
export function countUpTo(max: number) {
  const message = (issue: Issue) => `${fieldOf(issue)} must be a whole number from 1 to ${max}.`;
  return z.number({ error: message }).int({ error: message }).min(1, { error: message }).max(max, { error: message });
}

// ---------------------------------------------------------------------------------------------
// The literal lists

// The vault format's own vocabulary (outcomes, proposal actions) lives with the note schemas in
// notes/schema.ts; the contract builds its refusals on those lists.

/** How a session ended. */
export const sessionOutcomeSchema = oneOf(SESSION_OUTCOMES);

/** What an inbox proposal asks a person to do to its target. */
export const proposalActionSchema = oneOf(PROPOSAL_ACTIONS);

/** How `write_note` changes a note. */
export const writeModeSchema = oneOf(['create', 'replace', 'append', 'set_fields']);
/** The write modes, as a plain list. */
export const WRITE_MODES = writeModeSchema.options;

/** Where an agent's write ended up: in the note, or in the inbox (a conflict, or a possible secret). */
export const writeStatusSchema = z.enum(['written', 'conflict', 'possible_secret']);

/** Where an agent's proposal ended up: proposed, or proposed masked because it held a secret. */
export const proposeStatusSchema = z.enum(['proposed', writeStatusSchema.enum.possible_secret]);

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

/** The session id a tool is called in. */
export const sessionField = requiredText(100)
  .regex(SESSION_ID_PATTERN, { error: (issue) => notASessionId(issue.input) })
  .describe('The session id start_session returned.');
/** The one-line reason of a change. */
export const reasonField = requiredText(1000).describe('Why, in one short line: the commit message and the changelog line.');
/** A project named by name, alias, title or path. */
export const projectFilter = optionalText(300);

const MAX_CONTENT = 1_000_000;
/** Note content: refused as too large (not as invalid) above 1 MB. */
export const noteContent = z
  .string({ error: notText })
  .refine((value) => value.length <= MAX_CONTENT, { message: 'content is larger than 1 MB; split it into several notes.', params: { code: 'too_large' } });

const PROPERTY_NAME = /^[^\s:#][^:#\n]*$/;
const scalar = z.union([z.string(), z.number(), z.boolean()]);
/** A front-matter value an agent may set: text, a number, true/false, a list of those, or null (remove it). */
const fieldValue = z.union([scalar, z.null(), z.array(scalar)], {
  error: (issue) =>
    `Property ${String(issue.path?.[1] ?? '')} must be text, a number, true/false, a list of those, or null to remove it: front matter is flat.`,
});
/** Front-matter fields an agent sets: property names to values. */
export const propertyFields = z.record(z.string().regex(PROPERTY_NAME).max(100), fieldValue, {
  error: (issue) =>
    issue.code === 'invalid_key' ? `"${String(issue.input).slice(0, 40)}" is not a property name.` : 'fields must be an object of properties.',
});

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
