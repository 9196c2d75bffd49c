'use server';

import { z } from 'zod';
import { gatedAction } from '@/lib/server/action';
import { fetchSession, fetchSessionsPage } from '@/lib/server/data-sessions';
import { SESSION_ID_PATTERN } from '@/lib/vault';

const daySchema = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'A date as YYYY-MM-DD.')
  .refine((day) => !Number.isNaN(Date.parse(`${day}T00:00:00Z`)), 'A date as YYYY-MM-DD.');
const sessionIdSchema = z.string().regex(SESSION_ID_PATTERN, 'A session id: YYYYMMDD-HHMMSS-<agent>-<4 letters>.');

const listSessionsSchema = z
  .object({
    agent: z
      .string()
      .regex(/^[a-z0-9-]{1,64}$/)
      .optional(),
    project: z.string().min(1).max(1000).optional(),
    outcome: z.enum(['done', 'partial', 'abandoned', 'open']).optional(),
    since: daySchema.optional(),
    until: daySchema.optional(),
    cursor: sessionIdSchema.optional(),
    machine: z.string().min(1).max(64).optional(),
    person: z.string().min(1).max(200).optional(),
  })
  .strict();

/** One page of sessions, newest first, filtered (the first page polls, so open sessions show live). */
export const listSessionsAction = gatedAction(listSessionsSchema, (input) => fetchSessionsPage(input));

/** One session with its commits, reads, inbox items, skills and protocol check; null when there is none. */
export const sessionDetailAction = gatedAction(z.object({ id: sessionIdSchema }).strict(), ({ id }) => fetchSession(id));
