import type { FrontmatterData } from '../notes/frontmatter';
import { noteLink } from '../notes/note-formats';
import { formatTime } from '../ids';
import type { SessionOutcome } from '../notes/schema';
import type { SessionObservations } from './contract-write';

/** What a session note records (VAULT-FORMAT, type session). */
export interface SessionNoteInput {
  agent: string;
  task: string;
  started: Date | string;
  ended: Date | string;
  outcome: SessionOutcome;
  /** Vault path of the project note. */
  project?: string | null;
  /** The machine the session ran on (`machine`, an extension of VAULT-FORMAT's session type). */
  machine?: string | null;
  /** What Lucid observed during the session (skills_used: vault paths of the skills read). */
  observed: SessionObservations;
  summary: string;
  nextSteps: string[];
}

const asTime = (value: Date | string): string => (typeof value === 'string' ? value : formatTime(value));

/**
 * A session note's properties and body: the task as title, the summary, what changed (touched
 * notes and inbox proposals) and the next steps. The caller adds `created` and `updated`.
 */
export function sessionNoteParts(input: SessionNoteInput): { data: FrontmatterData; body: string } {
  const { observed } = input;
  const data: FrontmatterData = {
    type: 'session',
    agent: input.agent,
    task: input.task,
    started: asTime(input.started),
    ended: asTime(input.ended),
    outcome: input.outcome,
    project: input.project ? noteLink(input.project) : undefined,
    machine: input.machine || undefined,
    searched: observed.searched,
    read: observed.read,
    touched: observed.touched,
    inbox: observed.inbox.length > 0 ? observed.inbox : undefined,
    skills_used: observed.skills_used.length > 0 ? observed.skills_used.map(noteLink) : undefined,
    first_search: observed.first_search ?? undefined,
    first_read: observed.first_read ?? undefined,
    first_write: observed.first_write ?? undefined,
  };
  const lines = [`# ${input.task}`, '', input.summary.trim(), ''];
  if (observed.touched.length > 0 || observed.inbox.length > 0) {
    lines.push('## Changed', '');
    for (const p of observed.touched) lines.push(`- ${p.endsWith('.md') ? noteLink(p) : `\`${p}\``}`);
    for (const p of observed.inbox) lines.push(`- proposed ${noteLink(p)} (in the inbox, waiting for a person)`);
    lines.push('');
  }
  if (input.nextSteps.length > 0) lines.push('## Next steps', '', ...input.nextSteps.map((n) => `- ${n}`), '');
  return { data, body: lines.join('\n') };
}
