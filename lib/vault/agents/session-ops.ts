import { oneLine } from '../text';
import { END_SESSION_TRAILER } from '../git/commit-message';
import { VaultError, isVaultError } from '../errors';
import { composeNote } from '../notes/frontmatter';
import { formatDate, formatTime, newSessionId } from '../ids';
import { sessionNoteParts } from './session-note';
import { describeSecrets, maskSecrets } from '../write/secrets';
import { createSessionState, readOpenSession, removeSessionState, requireOpenSession, summarizeObservations, type SessionOwner } from './sessions';
import { NoteLookup } from './note-lookup';
import { knownProjectNames, lookUpProject } from './project-lookup';
import { readFirst } from './read-first';
import { sinceLastSession } from './corrections';
import type { Vault } from '../vault';
import type { EditResult } from '../write/edit-types';
import { agentSlug, commitAs } from './common';
import { parseInput } from './contract';
import { endSessionInputSchema, type EndSessionInput, type EndSessionResult } from './contract-write';
import { startSessionInputSchema, type StartSessionResult } from './contract-read';
import type { z } from 'zod';

/**
 * The task's search hits start_session looks through: what the read-first list ranks (the next ten
 * only when the first leave room), and where projects kept without the type show.
 */
const TASK_HITS = 10;
const MORE_TASK_HITS = 20;

/** Input of {@link startSession}: the tool's input, and which process holds the session. */
export type StartSessionInput = z.input<typeof startSessionInputSchema> & { owner?: SessionOwner };

/**
 * Starts a session: a new id (`YYYYMMDD-HHMMSS-<slug>-<4>`), its open state in `.lucid/sessions/`,
 * and what the protocol says to read first, with what people changed since this agent's last session.
 * Writes nothing to the vault.
 */
export async function startSession(vault: Vault, given: StartSessionInput): Promise<StartSessionResult> {
  const input = parseInput(startSessionInputSchema, given);
  const agent = oneLine(input.agent, 100);
  const task = maskSecrets(oneLine(input.task, 500)).text;
  const slug = agentSlug(agent);
  const now = vault.clock();
  // One listing (a memory read while the vault is watched) and one search for the task serve the
  // project match, what to read first and what changed since; only the notes they point at are read.
  const lookup = new NoteLookup(vault, await vault.listFiles());
  const hits = await lookup.search(task, { limit: TASK_HITS });
  const finding = await lookUpProject(lookup, { project: input.project, repo: input.repo, task }, hits);
  const project = finding.match;
  const messages: string[] = [];
  if ((input.project || input.repo) && (finding.by === null || finding.by === 'task')) {
    const names = await knownProjectNames(lookup);
    messages.push(
      `No project note matches ${[input.project && `project "${input.project}"`, input.repo && `repo "${input.repo}"`].filter(Boolean).join(' or ')}. ` +
        (names.length > 0 ? `Known projects: ${names.slice(0, 20).join(', ')}.` : 'The vault has no project notes yet.') +
        ` To add one, write_note ${vault.layout.projects}/<name>.md with type: project, name and status.`,
    );
  }
  let id = '';
  for (let attempt = 0; attempt < 5; attempt += 1) {
    id = newSessionId(now, slug, vault.ids);
    try {
      createSessionState(vault, {
        id,
        agent,
        slug,
        task,
        project: project?.note.path ?? null,
        repo: input.repo ? oneLine(input.repo, 500) : null,
        started: formatTime(now),
        owner: given.owner ?? { kind: 'library' },
      });
      break;
    } catch (error) {
      if (!isVaultError(error, 'conflict') || attempt === 4) throw error;
    }
  }
  const { items: readFirstItems, notes: readFirstNotes } = await readFirst(lookup, {
    task,
    project: finding,
    excludeSession: id,
    hits,
    moreHits: () => lookup.search(task, { limit: MORE_TASK_HITS }),
  });
  messages.push(...readFirstNotes);
  const since = await sinceLastSession(lookup, { slug, now, excludeSession: id });
  if (readFirstItems.length === 0) messages.push('Nothing in the vault matches this task yet: search_notes with your own words before you assume.');
  return {
    session: id,
    actor: `agent:${slug}`,
    session_note: `${vault.layout.sessions}/${id}.md`,
    task,
    project: project?.note.path ?? null,
    read_first: readFirstItems,
    since_last_session: since,
    notes: messages,
  };
}

/**
 * Ends a session: writes `sessions/<id>.md` with the summary, the outcome, the next steps and what
 * was observed (queries, notes read, notes touched, inbox proposals, skills read, the times of the
 * first search and the first write), as one commit; then forgets the open state. Secrets in the
 * summary are masked. Ending a session twice is refused.
 */
export async function endSession(vault: Vault, given: EndSessionInput): Promise<EndSessionResult> {
  return endSessionAs(vault, given, true);
}

/** {@link endSession}; `called`: the session called end_session (its commit says so), rather than Lucid ending it as abandoned. */
async function endSessionAs(vault: Vault, given: EndSessionInput, called: boolean): Promise<EndSessionResult> {
  const input = parseInput(endSessionInputSchema, given);
  const session = requireOpenSession(vault, input.session);
  const outcome = input.outcome;
  const summaryMasked = maskSecrets(input.summary.trim());
  const steps = (input.next_steps ?? []).map((s) => maskSecrets(oneLine(s, 500))).filter((s) => s.text !== '');
  const secrets = [...summaryMasked.findings, ...steps.flatMap((s) => s.findings)];
  const observed = summarizeObservations(session.events);
  const now = vault.clock();
  const path = `${vault.layout.sessions}/${session.id}.md`;
  const { data, body } = sessionNoteParts({
    agent: session.slug,
    task: session.task,
    started: session.started,
    ended: now,
    outcome,
    project: session.project,
    machine: session.machine ?? vault.machine,
    observed,
    summary: summaryMasked.text,
    nextSteps: steps.map((s) => s.text),
  });
  const text = composeNote({ ...data, created: formatTime(now), updated: formatDate(now) }, body);
  let result: EditResult;
  try {
    result = await commitAs(vault, session, {
      op: 'create',
      path,
      reason:
        outcome === 'abandoned' ? 'session abandoned: the client went away without end_session' : `session ${outcome}: ${oneLine(summaryMasked.text, 120)}`,
      changes: [{ path, content: text, expectedHash: null }],
      trailers: called ? [[...END_SESSION_TRAILER]] : undefined,
    });
  } catch (error) {
    if (isVaultError(error, 'conflict')) {
      removeSessionState(vault, session.id);
      throw new VaultError('conflict', `Session ${session.id} has already ended (its note is ${path}).`);
    }
    throw error;
  }
  removeSessionState(vault, session.id);
  const masked = secrets.length > 0 ? ` Your summary held what looks like ${describeSecrets(secrets)}; it was masked before the commit.` : '';
  return {
    session: session.id,
    path,
    outcome,
    edit_id: result.editId,
    commit: result.commit,
    observed,
    message: `Session ${session.id} ended (${outcome}); its note is ${path}.${masked}`,
  };
}

/** Ends the open sessions `ids` as abandoned, each with what was observed; returns the notes written. */
export async function abandonSessions(vault: Vault, ids: readonly string[], why = 'The client went away without calling end_session.'): Promise<string[]> {
  const written: string[] = [];
  for (const id of ids) {
    const open = readOpenSession(vault, id);
    // A session another machine opened (a folder both share) is that machine's to end, never this one's.
    if (!open || (open.machine !== undefined && open.machine !== vault.machine)) continue;
    try {
      const result = await endSessionAs(
        vault,
        {
          session: id,
          outcome: 'abandoned',
          summary: `Abandoned: ${why} The properties list what Lucid observed during the session.`,
        },
        false,
      );
      written.push(result.path);
    } catch (error) {
      if (!isVaultError(error, 'conflict') && !isVaultError(error, 'not_found')) throw error;
    }
  }
  return written;
}
