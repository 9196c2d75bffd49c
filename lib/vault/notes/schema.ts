import { z } from 'zod';
import type { FrontmatterData } from './frontmatter';

/** Lucid's note types, as the `type` field names them. */
export const NOTE_TYPES = ['person', 'project', 'decision', 'session', 'skill', 'inbox', 'report', 'eval-run'] as const;
export type NoteType = (typeof NOTE_TYPES)[number];

/** How a session ended (a session note's `outcome`). */
export const SESSION_OUTCOMES = ['done', 'partial', 'abandoned'] as const;
/** How a session ended: `done`, `partial` or `abandoned`. */
export type SessionOutcome = (typeof SESSION_OUTCOMES)[number];

/** What an inbox proposal asks a person to do to its target (an inbox note's `action`). */
export const PROPOSAL_ACTIONS = ['create', 'update', 'append', 'delete'] as const;
/** What an inbox proposal asks: `create`, `update` (the whole new note), `append` or `delete`. */
export type ProposalAction = (typeof PROPOSAL_ACTIONS)[number];

/** True when a front-matter `type` is one of Lucid's (a vault's own types are left alone). */
export function isLucidType(value: unknown): value is NoteType {
  return typeof value === 'string' && (NOTE_TYPES as readonly string[]).includes(value);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const LINK = /^\[\[[^\]\n]+\]\]$/;

const text = z.string().trim().min(1, 'must not be empty');
const date = z.string().regex(DATE, 'must be a date like 2026-11-30');
const time = z.string().regex(TIME, 'must be a time with offset like 2026-11-30T14:02:00+01:00');
const link = z.string().regex(LINK, 'must be a link like "[[folder/note]]"');
const links = z.array(link);
const stringList = z.array(z.string());
const common = {
  tags: z.union([stringList, z.string()]).optional(),
  aliases: z.union([stringList, z.string()]).optional(),
  created: z.string().optional(),
  updated: z.string().optional(),
};

const personSchema = z.looseObject({ ...common, name: text, role: z.string().optional(), projects: links.optional(), email: z.string().optional() });
const projectSchema = z.looseObject({
  ...common,
  name: text,
  status: z.enum(['active', 'paused', 'done']),
  owner: link.optional(),
  repo: z.string().optional(),
  summary: z.string().optional(),
});
const decisionSchema = z.looseObject({
  ...common,
  date,
  project: link,
  status: z.enum(['proposed', 'accepted', 'superseded']),
  replaces: link.optional(),
  superseded_by: link.optional(),
  people: links.optional(),
});
const sessionSchema = z.looseObject({
  ...common,
  agent: text,
  task: text,
  started: time,
  ended: time,
  outcome: z.enum(SESSION_OUTCOMES),
  project: link.optional(),
  searched: stringList.optional(),
  read: stringList.optional(),
  touched: stringList.optional(),
  inbox: stringList.optional(),
  skills_used: links.optional(),
  first_search: time.optional(),
  first_read: time.optional(),
  first_write: time.optional(),
});
const skillSchema = z.looseObject({
  ...common,
  name: text,
  version: z.number().int('must be a whole number').min(1, 'must be 1 or more'),
  trigger: text,
  last_updated: z.string().regex(DATE, 'must be a date like 2026-11-30').or(time),
  status: z.enum(['active', 'archived']).optional(),
  merged_into: link.optional(),
  replaces: links.optional(),
});
const inboxSchema = z.looseObject({
  ...common,
  proposed_by: text,
  action: z.enum(PROPOSAL_ACTIONS),
  target: text,
  reason: text,
  created: time,
  session: link.optional(),
  confidence: z.number().min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional(),
  base_blob: z
    .string()
    .regex(/^[0-9a-f]{40,64}$/, 'must be a git blob id')
    .optional(),
  flag: z.string().optional(),
});
const reportSchema = z.looseObject({ ...common, period_start: date, period_end: date, author: z.string().optional() });
const evalRunSchema = z.looseObject({
  ...common,
  date,
  question_set: text,
  questions: z.number().int().min(0),
  vault_commit: text,
  k: z.number().int().min(1),
  budget_tokens: z.number().int().min(1),
});

const SCHEMAS: Record<NoteType, z.ZodType> = {
  person: personSchema,
  project: projectSchema,
  decision: decisionSchema,
  session: sessionSchema,
  skill: skillSchema,
  inbox: inboxSchema,
  report: reportSchema,
  'eval-run': evalRunSchema,
};

/** One broken rule of a note: which note, which field, and why, in words. */
export interface Violation {
  path: string;
  field: string;
  message: string;
}

/**
 * Checks a note's properties against its type's rules. Notes whose `type` is not one of Lucid's
 * have no rules here and produce no violations. A skill's `name` must equal its file name.
 */
export function validateFrontmatter(path: string, data: FrontmatterData): Violation[] {
  const type = data.type;
  if (!isLucidType(type)) return [];
  const result = SCHEMAS[type].safeParse(data);
  const violations: Violation[] = [];
  if (!result.success) {
    for (const issue of result.error.issues) {
      const field = issue.path.length > 0 ? String(issue.path[0]) : 'type';
      violations.push({ path, field, message: describeIssue(type, field, data[field], issue) });
    }
  }
  if (type === 'skill' && typeof data.name === 'string') {
    const fileName = path.slice(path.lastIndexOf('/') + 1).replace(/\.md$/i, '');
    if (data.name !== fileName) {
      violations.push({ path, field: 'name', message: `name must equal the file name ("${fileName}")` });
    }
  }
  return violations;
}

function describeIssue(type: NoteType, field: string, value: unknown, issue: z.core.$ZodIssue): string {
  if (value === undefined) return `${field} is required for a ${type} note`;
  if (issue.code === 'invalid_value') {
    return `${field} must be one of ${issue.values.map((v) => String(v)).join(', ')} (found ${JSON.stringify(value)})`;
  }
  if (issue.code === 'invalid_type') return `${field} must be ${issue.expected === 'array' ? 'a list' : `a ${issue.expected}`}`;
  return `${field} ${issue.message}`;
}
