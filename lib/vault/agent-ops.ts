import { oneLine } from './changelog';
import { VaultError, isVaultError } from './errors';
import { composeNote, hashBytes, parseFrontmatter, setFrontmatterFields, splitNote, type FrontmatterData } from './frontmatter';
import { blobId, showFile } from './git';
import { formatDate, formatTime, newSessionId, slugify } from './ids';
import { inboxNotePath, inboxNoteText, noteLink, sessionNoteParts } from './note-formats';
import { basenameOf, normalizeNotePath, normalizeVaultPath } from './paths';
import { describeSecrets, maskSecrets, type SecretFinding } from './secrets';
import {
  createSessionState,
  observationTime,
  observeSession,
  readOpenSession,
  removeSessionState,
  requireOpenSession,
  summarizeObservations,
  type OpenSession,
  type SessionObservations,
  type SessionOwner,
} from './sessions';
import {
  matchProject,
  notePathFromInput,
  projectNames,
  readFirst,
  resolveLinkValue,
  sinceLastSession,
  type ReadFirstItem,
  type SinceLastSession,
} from './session-context';
import { assertAgentWritable, type EditRequest, type EditResult, type Note, type Vault } from './vault';

/**
 * The memory protocol's operations, shared by the MCP server and the CLI: every write goes through
 * {@link Vault.edit} as `agent:<slug>` with the session's id (one commit, one changelog line, the
 * `Lucid-Session` trailer), secrets never reach a commit, and a write that would overwrite a change
 * it did not see goes to the inbox instead. Inputs and results use the tool contract's field names.
 */


/** The inbox flags Lucid sets. */
export const INBOX_FLAGS = { conflict: 'conflict', secret: 'possible-secret' } as const;

function requireText(value: unknown, field: string, max = 10_000): string {
  if (typeof value !== 'string' || value.trim() === '') throw new VaultError('invalid_input', `${field} is required.`, { field });
  if (value.length > max) throw new VaultError('invalid_input', `${field} is longer than ${max} characters.`, { field });
  return value;
}

/** The slug of an agent's name (`Claude Code` → `claude-code`); `agent:` in front is ignored. */
export function agentSlug(agent: string): string {
  const slug = slugify(agent.replace(/^agent:/i, '')).replace(/-+$/, '');
  if (!slug) throw new VaultError('invalid_input', 'agent must contain letters or digits, e.g. "claude-code".', { field: 'agent' });
  return slug;
}

function today(vault: Vault): string {
  return formatDate(vault.clock());
}

async function commitAs(vault: Vault, session: OpenSession, request: Omit<EditRequest, 'actor' | 'session'>): Promise<EditResult> {
  return vault.edit({ ...request, actor: session.actor, session: session.id });
}

function observeWrites(vault: Vault, session: OpenSession, paths: string[], editId: string): void {
  const at = observationTime(vault);
  for (const path of paths) observeSession(vault, session.id, { kind: 'write', path, at, edit: editId });
}

async function readIfExists(vault: Vault, path: string): Promise<Note | null> {
  try {
    return await vault.readNote(path);
  } catch (error) {
    if (isVaultError(error, 'not_found')) return null;
    throw error;
  }
}

function blobOfText(text: string): string {
  return blobId(Buffer.from(text, 'utf8'));
}

/** The git blob id of a note's file as it is on disk (its byte-order mark included). */
function blobOfNote(note: Note): string | undefined {
  return note.text === null ? undefined : blobOfText(`${note.bom ? '\uFEFF' : ''}${note.text}`);
}

/** The text of the version of `path` whose sha256 is `sha256`: the file now, or one of its last commits. */
async function versionWithHash(vault: Vault, path: string, sha256: string): Promise<string | null> {
  for (const commit of await vault.history(path, 30)) {
    const text = await showFile(vault.repo, commit.sha, path);
    if (text !== null && hashBytes(Buffer.from(text, 'utf8')) === sha256) return text;
  }
  return null;
}

/** Masks secrets in a one-line reason (it becomes a commit message and a changelog line). */
function safeReason(reason: string): string {
  return maskSecrets(oneLine(reason)).text;
}

function folderOf(vault: Vault, path: string): 'inbox' | 'sessions' | 'skills' | null {
  const under = (folder: string) => path === folder || path.startsWith(`${folder}/`);
  if (under(vault.layout.inbox)) return 'inbox';
  if (under(vault.layout.sessions)) return 'sessions';
  if (under(vault.layout.skills)) return 'skills';
  return null;
}

// ---------------------------------------------------------------------------------------------
// Sessions

/** Input of {@link startSession}. */
export interface StartSessionInput {
  agent: string;
  task: string;
  project?: string | null;
  repo?: string | null;
  owner?: SessionOwner;
}

/** What `start_session` returns: the session id and what to read first. */
export interface StartSessionResult {
  session: string;
  actor: string;
  /** Where end_session will write the session note. */
  session_note: string;
  task: string;
  /** The matched project note, or null. */
  project: string | null;
  read_first: ReadFirstItem[];
  since_last_session: SinceLastSession;
  /** Sentences about what could not be matched, for the agent. */
  notes: string[];
}

/**
 * Starts a session: a new id (`YYYYMMDD-HHMMSS-<slug>-<4>`), its open state in `.lucid/sessions/`,
 * and what the protocol says to read first, with what people changed since this agent's last session.
 * Writes nothing to the vault.
 */
export async function startSession(vault: Vault, input: StartSessionInput): Promise<StartSessionResult> {
  const agent = oneLine(requireText(input.agent, 'agent', 100), 100);
  const task = maskSecrets(oneLine(requireText(input.task, 'task', 1000), 500)).text;
  const slug = agentSlug(agent);
  const now = vault.clock();
  // One walk of the vault serves the project match, what to read first and what changed since.
  const files = await vault.listFiles();
  const notes = await vault.listNotes(files);
  const resolver = await vault.linkResolver(files);
  const project = matchProject(notes, { project: input.project, repo: input.repo });
  const messages: string[] = [];
  if (!project && (input.project || input.repo)) {
    const names = projectNames(notes);
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
        owner: input.owner ?? { kind: 'library' },
      });
      break;
    } catch (error) {
      if (!isVaultError(error, 'conflict') || attempt === 4) throw error;
    }
  }
  const readFirstItems = await readFirst(vault, { task, project, excludeSession: id, notes, resolver });
  const since = await sinceLastSession(vault, { slug, now, excludeSession: id, notes });
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

/** Input of {@link endSession}. */
export interface EndSessionInput {
  session: string;
  summary: string;
  outcome?: 'done' | 'partial' | 'abandoned';
  next_steps?: string[];
}

/** What `end_session` returns: the session note and what was observed. */
export interface EndSessionResult {
  session: string;
  path: string;
  outcome: 'done' | 'partial' | 'abandoned';
  edit_id: string;
  commit: string;
  observed: {
    searched: string[];
    read: string[];
    touched: string[];
    inbox: string[];
    skills_used: string[];
    first_search: string | null;
    first_write: string | null;
  };
  message: string;
}

function observedOf(o: SessionObservations): EndSessionResult['observed'] {
  return { searched: o.searched, read: o.read, touched: o.touched, inbox: o.inbox, skills_used: o.skillsUsed, first_search: o.firstSearch, first_write: o.firstWrite };
}

/**
 * Ends a session: writes `sessions/<id>.md` with the summary, the outcome, the next steps and what
 * was observed (queries, notes read, notes touched, inbox proposals, skills read, the times of the
 * first search and the first write), as one commit; then forgets the open state. Secrets in the
 * summary are masked. Ending a session twice is refused.
 */
export async function endSession(vault: Vault, input: EndSessionInput): Promise<EndSessionResult> {
  const session = requireOpenSession(vault, input.session);
  const outcome = input.outcome ?? 'done';
  if (!['done', 'partial', 'abandoned'].includes(outcome)) throw new VaultError('invalid_input', 'outcome must be done, partial or abandoned.', { field: 'outcome' });
  const summaryMasked = maskSecrets(requireText(input.summary, 'summary', 20_000).trim());
  const steps = (input.next_steps ?? []).map((s) => maskSecrets(oneLine(String(s), 500))).filter((s) => s.text !== '');
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
    searched: observed.searched,
    read: observed.read,
    touched: observed.touched,
    inbox: observed.inbox,
    skillsUsed: observed.skillsUsed,
    firstSearch: observed.firstSearch,
    firstWrite: observed.firstWrite,
    summary: summaryMasked.text,
    nextSteps: steps.map((s) => s.text),
  });
  const text = composeNote({ ...data, created: formatTime(now), updated: formatDate(now) }, body);
  let result: EditResult;
  try {
    result = await commitAs(vault, session, {
      op: 'create',
      path,
      reason: outcome === 'abandoned' ? 'session abandoned: the client went away without end_session' : `session ${outcome}: ${oneLine(summaryMasked.text, 120)}`,
      changes: [{ path, content: text, expectedHash: null }],
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
    observed: observedOf(observed),
    message: `Session ${session.id} ended (${outcome}); its note is ${path}.${masked}`,
  };
}

// ---------------------------------------------------------------------------------------------
// Reading

/** What `read_note` returns. */
export interface ReadNoteResult {
  path: string;
  title: string;
  type: string | null;
  frontmatter: FrontmatterData;
  body: string;
  /** sha256 of the file's bytes: pass it as expected_hash when writing. */
  hash: string;
  links: { raw: string; target: string; resolved: string | null }[];
  backlinks: { from: string; line: number }[];
  problem: string | null;
  violations: { field: string; message: string }[];
}

/** Reads a note for an agent, with its hash, outgoing links (resolved) and backlinks; records the read. Writes nothing. */
export async function readNoteForAgent(vault: Vault, path: string, observeIn: readonly string[] = []): Promise<ReadNoteResult> {
  const note = await vault.readNote(notePathFromInput(requireText(path, 'path', 1024)));
  const links = await vault.resolveLinks(note);
  const backlinks = await vault.backlinks(note.path);
  const at = observationTime(vault);
  const isSkill = note.lucidType === 'skill' || note.path.startsWith(`${vault.layout.skills}/`);
  for (const id of observeIn) observeSession(vault, id, { kind: isSkill ? 'skill' : 'read', path: note.path, at });
  return {
    path: note.path,
    title: note.title,
    type: note.type,
    frontmatter: note.frontmatter,
    body: note.problem && note.problem !== 'invalid_frontmatter' ? '' : note.body,
    hash: note.hash,
    links: links.map(({ link, resolved }) => ({ raw: link.raw, target: link.target, resolved })),
    backlinks: backlinks.map((b) => ({ from: b.from, line: b.line })),
    problem: note.problem ? `${note.problem}: ${note.problemMessage}` : null,
    violations: note.violations.map((v) => ({ field: v.field, message: v.message })),
  };
}

/** Input of {@link searchNotes}. */
export interface SearchNotesInput {
  query: string;
  type?: string;
  /** A project's name or path. */
  project?: string;
  /** Only notes under this folder. */
  folder?: string;
  /** Also search the changelog, the inbox and evaluations. */
  includeSystem?: boolean;
  limit?: number;
}

/** What `search_notes` returns. */
export interface SearchNotesResult {
  query: string;
  project: string | null;
  results: { path: string; title: string; type: string | null; score: number; snippet: string }[];
}

/** Ranked notes with snippets for a question; records the query. */
export async function searchNotes(vault: Vault, input: SearchNotesInput, observeIn: readonly string[] = []): Promise<SearchNotesResult> {
  const query = requireText(input.query, 'query', 500);
  let project: string | null = null;
  if (input.project) {
    const notes = await vault.listNotes();
    const match = matchProject(notes, { project: input.project });
    if (!match) {
      throw new VaultError('not_found', `No project note matches "${input.project}". Known projects: ${projectNames(notes).join(', ') || 'none'}.`, { field: 'project' });
    }
    project = match.note.path;
  }
  const hits = await vault.search(query, {
    type: input.type || undefined,
    project: project ?? undefined,
    folder: input.folder || undefined,
    includeSystem: input.includeSystem,
    limit: input.limit,
  });
  const at = observationTime(vault);
  const recorded = maskSecrets(oneLine(query, 200)).text;
  for (const id of observeIn) observeSession(vault, id, { kind: 'search', query: recorded, at });
  return { query, project, results: hits.map((h) => ({ path: h.path, title: h.title, type: h.type, score: Math.round(h.score * 1000) / 1000, snippet: h.snippet })) };
}

// ---------------------------------------------------------------------------------------------
// Writing

/** Where an agent's write ended up. */
export type WriteStatus = 'written' | 'conflict' | 'possible_secret';

/** Input of {@link proposeToInbox}. */
export interface ProposeInput {
  session: string;
  target: string;
  action: 'create' | 'update' | 'append' | 'delete';
  content: string;
  reason: string;
  confidence?: number;
}

/** What `propose_to_inbox` returns. */
export interface ProposeResult {
  status: 'proposed' | 'possible_secret';
  inbox_path: string;
  target: string;
  action: string;
  flag: string | null;
  edit_id: string;
  commit: string;
  message: string;
}

interface ProposalSpec {
  target: string;
  action: 'create' | 'update' | 'append' | 'delete';
  content: string;
  reason: string;
  confidence?: number;
  flag?: string;
  baseBlob?: string;
  explanation: string;
}

/** Writes one inbox proposal (a fresh name when another took it in the same second) and records it. */
async function fileProposal(vault: Vault, session: OpenSession, spec: ProposalSpec): Promise<{ path: string; result: EditResult }> {
  for (let attempt = 1; attempt <= 50; attempt += 1) {
    const now = vault.clock();
    const path = inboxNotePath(vault.layout.inbox, now, basenameOf(spec.target), attempt);
    if (await readIfExists(vault, path)) continue;
    const text = inboxNoteText({
      proposedBy: session.actor,
      action: spec.action,
      target: spec.target,
      reason: spec.reason,
      now,
      session: session.id,
      sessionsFolder: vault.layout.sessions,
      confidence: spec.confidence,
      baseBlob: spec.baseBlob,
      flag: spec.flag,
      explanation: spec.explanation,
      content: spec.content,
    });
    try {
      const result = await commitAs(vault, session, { op: 'create', path, reason: spec.reason, changes: [{ path, content: text, expectedHash: null }] });
      observeSession(vault, session.id, { kind: 'inbox', path, at: observationTime(vault), edit: result.editId });
      return { path, result };
    } catch (error) {
      if (!isVaultError(error, 'conflict')) throw error;
    }
  }
  throw new VaultError('conflict', 'Could not find a free inbox name; try again.');
}

/**
 * Files a write that held a secret as an inbox proposal instead: its secrets already masked, flagged
 * `possible-secret`, based on the note as it is now, with a sentence on why for the person.
 */
function fileSecretProposal(
  vault: Vault,
  session: OpenSession,
  spec: { target: string; action: ProposalSpec['action']; content: string; reason: string; current: Note | null; secrets: SecretFinding[]; also?: string },
): Promise<{ path: string; result: EditResult }> {
  return fileProposal(vault, session, {
    target: spec.target,
    action: spec.action,
    content: spec.content,
    reason: spec.reason,
    flag: INBOX_FLAGS.secret,
    baseBlob: spec.current ? blobOfNote(spec.current) : undefined,
    explanation: `${secretExplanation(session, spec.target, spec.secrets)}${spec.also ? ` ${spec.also}` : ''}`,
  });
}

function secretExplanation(session: OpenSession, target: string, findings: SecretFinding[]): string {
  return `${session.actor} wrote this for ${noteLink(target)}, but it held what looks like ${describeSecrets(findings)}. Lucid never commits secrets, so it masked ${findings.length === 1 ? 'it' : 'them'} and put the change here for a person to review. Keep the secret in a secret manager and refer to it by name.`;
}

/**
 * Sends a proposal to the inbox for a person to accept, edit or reject (nothing in the inbox is
 * applied without a person). `update` proposals hold the whole proposed note and are checked
 * against its type's rules; update, append and delete record the target's blob as `base_blob`.
 * Content that looks like a secret is masked and the proposal flagged `possible-secret`.
 */
export async function proposeToInbox(vault: Vault, input: ProposeInput): Promise<ProposeResult> {
  const session = requireOpenSession(vault, input.session);
  const target = normalizeVaultPath(requireText(input.target, 'target', 1024), { forWrite: true });
  if (!['create', 'update', 'append', 'delete'].includes(input.action)) {
    throw new VaultError('invalid_input', 'action must be create, update, append or delete.', { field: 'action' });
  }
  const reason = safeReason(requireText(input.reason, 'reason', 1000));
  if (input.confidence !== undefined && !(input.confidence >= 0 && input.confidence <= 1)) {
    throw new VaultError('invalid_input', 'confidence must be between 0 and 1.', { field: 'confidence' });
  }
  const content = typeof input.content === 'string' ? input.content : '';
  if (input.action !== 'delete' && content.trim() === '') throw new VaultError('invalid_input', 'content is required (the proposed text).', { field: 'content' });
  if (folderOf(vault, target) === 'inbox') throw new VaultError('forbidden', 'A proposal cannot target the inbox itself.');
  const current = target.toLowerCase().endsWith('.md') ? await readIfExists(vault, target) : null;
  let baseBlob: string | undefined;
  if (input.action !== 'create') {
    let bytes: Buffer;
    try {
      bytes = await vault.readFileBytes(target);
    } catch (error) {
      if (isVaultError(error, 'not_found')) {
        throw new VaultError('not_found', `${target} does not exist, so it cannot be ${input.action === 'delete' ? 'deleted' : 'changed'}; propose action create instead.`, { field: 'target' });
      }
      throw error;
    }
    baseBlob = blobId(bytes);
  } else if (current) {
    throw new VaultError('conflict', `${target} already exists; read it and propose action update (the whole new note) or append.`, { field: 'target' });
  }
  const masked = maskSecrets(content);
  if (masked.findings.length === 0 && (input.action === 'create' || input.action === 'update') && target.toLowerCase().endsWith('.md')) {
    vault.validateText(target, masked.text);
  }
  const flag = masked.findings.length > 0 ? INBOX_FLAGS.secret : undefined;
  const confidence = input.confidence === undefined ? '' : ` (confidence ${input.confidence})`;
  const explanation = flag
    ? secretExplanation(session, target, masked.findings)
    : `${session.actor} proposes to ${input.action} ${noteLink(target)}${confidence}: ${reason}`;
  const { path, result } = await fileProposal(vault, session, {
    target,
    action: input.action,
    content: masked.text,
    reason,
    confidence: input.confidence,
    flag,
    baseBlob,
    explanation,
  });
  return {
    status: flag ? 'possible_secret' : 'proposed',
    inbox_path: path,
    target,
    action: input.action,
    flag: flag ?? null,
    edit_id: result.editId,
    commit: result.commit,
    message: flag
      ? `Proposed in ${path}, but your content held what looks like ${describeSecrets(masked.findings)}: it was masked and the proposal flagged possible-secret. Never put secrets in notes.`
      : `Proposed in ${path}; a person will accept, edit or reject it.`,
  };
}

/** Input of {@link writeNote}. */
export interface WriteNoteInput {
  session: string;
  path: string;
  mode: 'create' | 'replace' | 'append' | 'set_fields';
  content?: string;
  /** Front-matter properties to set; null removes one. */
  fields?: Record<string, unknown>;
  expected_hash?: string;
  reason: string;
}

/** What `write_note` returns. */
export interface WriteNoteResult {
  status: WriteStatus;
  path: string;
  edit_id: string;
  commit: string;
  /** The note's new sha256 (written), or its current one (conflict). */
  hash: string | null;
  inbox_path: string | null;
  message: string;
}

function checkFields(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (fields === undefined) return undefined;
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw new VaultError('invalid_input', 'fields must be an object of properties.', { field: 'fields' });
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (!/^[^\s:#][^:#\n]*$/.test(key) || key.length > 100) throw new VaultError('invalid_input', `"${key.slice(0, 40)}" is not a property name.`, { field: 'fields' });
    const scalar = (v: unknown) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
    if (!(scalar(value) || (Array.isArray(value) && value.every((v) => scalar(v) && v !== null)))) {
      throw new VaultError('invalid_input', `Property ${key} must be text, a number, true/false, a list of those, or null to remove it: front matter is flat.`, { field: 'fields' });
    }
    out[key] = value === null ? undefined : value;
  }
  return out;
}

function maskFields(fields: Record<string, unknown> | undefined): { fields: Record<string, unknown> | undefined; findings: SecretFinding[] } {
  if (!fields) return { fields, findings: [] };
  const findings: SecretFinding[] = [];
  const mask = (v: unknown): unknown => {
    if (typeof v === 'string') {
      const m = maskSecrets(v);
      findings.push(...m.findings);
      return m.text;
    }
    return Array.isArray(v) ? v.map(mask) : v;
  };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = mask(value);
  return { fields: out, findings };
}

/** Appends a section at the end of a note's text, after one blank line. */
function appendToText(text: string, section: string): string {
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  let body = section.replace(/^(\r?\n)+/, '').replace(/\r?\n/g, '\n');
  if (!body.endsWith('\n')) body += '\n';
  return `${text.replace(/(\r?\n)*$/, eol)}${eol}${eol === '\n' ? body : body.replace(/\n/g, '\r\n')}`;
}

/** The note's text as written back: its byte-order mark, if it had one, kept. */
function withBom(note: { bom: boolean } | null, text: string): string {
  return note?.bom && !text.startsWith('\uFEFF') ? `\uFEFF${text}` : text;
}

/** The note's new text for a mode, with `updated` (and on create `created`) set. */
function composeWrite(vault: Vault, mode: WriteNoteInput['mode'], current: string | null, content: string | undefined, fields: Record<string, unknown> | undefined): string {
  const now = vault.clock();
  const stamp = { updated: formatDate(now) };
  switch (mode) {
    case 'create': {
      const text = content ?? '';
      const parsed = parseFrontmatter(text);
      if (!parsed.ok) throw new VaultError('invalid_frontmatter', `${parsed.error} Fix the front matter of your content.`);
      const created = parsed.data.created === undefined && fields?.created === undefined ? { created: formatTime(now) } : {};
      return setFrontmatterFields(text, { ...fields, ...created, ...stamp });
    }
    case 'replace':
      return setFrontmatterFields(content ?? '', { ...fields, ...stamp });
    case 'append':
      return appendToText(setFrontmatterFields(current ?? '', { ...fields, ...stamp }), content ?? '');
    case 'set_fields':
      return setFrontmatterFields(current ?? '', { ...fields, ...stamp });
  }
}

const OP_OF: Record<WriteNoteInput['mode'], 'create' | 'update' | 'append'> = { create: 'create', replace: 'update', append: 'append', set_fields: 'update' };

/**
 * Writes a note for an agent: `create` (content is the whole note; refused when it exists),
 * `replace` (the whole note; `expected_hash` required), `append` (content added at the end) or
 * `set_fields` (properties changed line by line; null removes one). Paths are confined to the
 * vault; the inbox, session notes and skills have their own tools. Schema violations are refused
 * with field and reason. A stale `expected_hash` is a conflict: nothing is overwritten and the
 * agent's version goes to the inbox (flag `conflict`); without `expected_hash`, append and
 * set_fields are applied to the note as it is under the vault lock, since they commute. Content that looks like a secret is never
 * committed: the write goes to the inbox, masked, with flag `possible-secret`.
 */
export async function writeNote(vault: Vault, input: WriteNoteInput): Promise<WriteNoteResult> {
  const session = requireOpenSession(vault, input.session);
  const path = normalizeNotePath(requireText(input.path, 'path', 1024), { forWrite: true });
  const mode = input.mode;
  if (!(mode in OP_OF)) throw new VaultError('invalid_input', 'mode must be create, replace, append or set_fields.', { field: 'mode' });
  const folder = folderOf(vault, path);
  if (folder === 'inbox') throw new VaultError('forbidden', `${path} is in the inbox: use propose_to_inbox to send a proposal.`, { field: 'path' });
  if (folder === 'sessions') throw new VaultError('forbidden', `${path} is a session note: end_session writes it.`, { field: 'path' });
  if (folder === 'skills') throw new VaultError('forbidden', `${path} is a skill: use molt_skill, which raises its version and records the molt.`, { field: 'path' });
  const reason = safeReason(requireText(input.reason, 'reason', 1000));
  const fields = checkFields(input.fields);
  const content = input.content;
  if (mode !== 'set_fields' && (typeof content !== 'string' || (mode === 'append' && content.trim() === ''))) {
    throw new VaultError('invalid_input', `content is required for mode ${mode}.`, { field: 'content' });
  }
  if (mode === 'set_fields' && (!fields || Object.keys(fields).length === 0)) {
    throw new VaultError('invalid_input', 'fields is required for mode set_fields (e.g. {"status": "done"}).', { field: 'fields' });
  }
  if (mode === 'replace' && !input.expected_hash) {
    throw new VaultError('invalid_input', 'replace needs expected_hash: read_note the note first and pass the hash it returns.', { field: 'expected_hash' });
  }
  if (input.expected_hash !== undefined && !/^[0-9a-f]{64}$/.test(input.expected_hash)) {
    throw new VaultError('invalid_input', 'expected_hash must be the 64-character sha256 read_note returned.', { field: 'expected_hash' });
  }
  if (typeof content === 'string' && content.length > 1_000_000) throw new VaultError('too_large', 'content is larger than 1 MB; split it into several notes.');

  const maskedContent = typeof content === 'string' ? maskSecrets(content) : { text: content, findings: [] as SecretFinding[] };
  const maskedFields = maskFields(fields);
  const secrets = [...maskedContent.findings, ...maskedFields.findings];
  if (secrets.length > 0) {
    const current = await readIfExists(vault, path);
    if (current) assertAgentWritable(current);
    const action = mode === 'append' ? 'append' : current ? 'update' : 'create';
    const proposed = mode === 'append' ? (maskedContent.text ?? '') : composeWrite(vault, mode, current?.text ?? null, maskedContent.text, maskedFields.fields);
    const { path: inboxPath, result } = await fileSecretProposal(vault, session, { target: path, action, content: proposed, reason, current, secrets });
    return {
      status: 'possible_secret',
      path,
      edit_id: result.editId,
      commit: result.commit,
      hash: current?.hash ?? null,
      inbox_path: inboxPath,
      message: `${path} was not written: your ${maskedContent.findings.length > 0 ? 'content' : 'fields'} held what looks like ${describeSecrets(secrets)}, and secrets are never committed. Your version, with the secret masked, is in the inbox at ${inboxPath} (flag: possible-secret) for a person to review. Write again without the secret (name where it is kept instead).`,
    };
  }

  const live = input.expected_hash === undefined && (mode === 'append' || mode === 'set_fields');
  const current = await readIfExists(vault, path);
  if (current) assertAgentWritable(current);
  if (!current && mode !== 'create') {
    throw new VaultError('not_found', `${path} does not exist. Use mode create to make it${mode === 'replace' ? '' : ' (content is the whole note)'}.`, { field: 'path' });
  }
  const stale = (current && mode === 'create') || (input.expected_hash !== undefined && current && current.hash !== input.expected_hash);
  if (stale && current) return conflictToInbox(vault, session, { path, mode, current, content, fields, expectedHash: input.expected_hash, reason });
  const text = withBom(mode === 'append' || mode === 'set_fields' ? current : null, composeWrite(vault, mode, current?.text ?? null, content, fields));
  vault.validateText(path, text);
  // Without an expected hash, an append or a field change is made on the note as it is under the
  // vault lock, so concurrent writers never conflict with each other.
  const change: EditRequest['changes'][number] = live
    ? {
        path,
        content: (now) => {
          if (!now) throw new VaultError('not_found', `${path} was deleted while you wrote it; nothing was written.`);
          return withBom(now, composeWrite(vault, mode, now.text, content, fields));
        },
      }
    : { path, content: text, expectedHash: current ? current.hash : null };
  try {
    const result = await commitAs(vault, session, { op: OP_OF[mode], path, reason, changes: [change] });
    observeWrites(vault, session, [path], result.editId);
    return {
      status: 'written',
      path,
      edit_id: result.editId,
      commit: result.commit,
      hash: result.hashes[path] ?? null,
      inbox_path: null,
      message: `${mode === 'create' ? 'Created' : mode === 'append' ? 'Appended to' : 'Updated'} ${path} (edit ${result.editId}, commit ${result.commit.slice(0, 7)}).`,
    };
  } catch (error) {
    if (!isVaultError(error, 'conflict')) throw error;
    const now = await readIfExists(vault, path);
    if (!now) throw new VaultError('conflict', `${path} was deleted while you wrote it; nothing was written.`);
    return conflictToInbox(vault, session, { path, mode, current: now, content, fields, expectedHash: input.expected_hash ?? current?.hash, reason });
  }
}

/** A write that would overwrite a change the agent did not see: its version goes to the inbox. */
async function conflictToInbox(
  vault: Vault,
  session: OpenSession,
  input: { path: string; mode: WriteNoteInput['mode']; current: Note; content?: string; fields?: Record<string, unknown>; expectedHash?: string; reason: string },
): Promise<WriteNoteResult> {
  const { path, mode, current } = input;
  const basedOnText = input.expectedHash ? await versionWithHash(vault, path, input.expectedHash) : null;
  const basedOn = basedOnText !== null ? blobOfText(basedOnText) : null;
  let proposed: string;
  let action: 'update' | 'append';
  if (mode === 'append') {
    action = 'append';
    proposed = input.content ?? '';
  } else {
    action = 'update';
    const base = mode === 'set_fields' && basedOnText !== null ? basedOnText : (current.text ?? '');
    proposed = composeWrite(vault, mode === 'create' ? 'replace' : mode, base, input.content, input.fields);
  }
  const why = mode === 'create'
    ? `${path} already exists`
    : `${path} changed since ${session.actor} read it (expected hash ${(input.expectedHash ?? '').slice(0, 12)}…, now ${current.hash.slice(0, 12)}…)`;
  const { path: inboxPath, result } = await fileProposal(vault, session, {
    target: path,
    action,
    content: proposed,
    reason: input.reason,
    flag: INBOX_FLAGS.conflict,
    baseBlob: basedOn ?? blobOfNote(current),
    explanation: `${why}, so Lucid did not overwrite it. This is ${session.actor}'s version${basedOn ? ', based on the earlier version recorded as base_blob' : ''}: compare it with the note as it is now and merge what is right.`,
  });
  return {
    status: 'conflict',
    path,
    edit_id: result.editId,
    commit: result.commit,
    hash: current.hash,
    inbox_path: inboxPath,
    message: `${why}; nothing was overwritten. Your version is in the inbox at ${inboxPath} (flag: conflict) for a person to merge. read_note ${path} again and redo your change on the current version (hash ${current.hash}).`,
  };
}

// ---------------------------------------------------------------------------------------------
// Decisions and skills

/** Input of {@link recordDecision}. */
export interface RecordDecisionInput {
  session: string;
  /** The project's name or path. */
  project: string;
  title: string;
  decision: string;
  rationale: string;
  /** The decision this one replaces (path or name). */
  replaces?: string;
}

/** What `record_decision` returns. */
export interface RecordDecisionResult {
  status: 'written' | 'possible_secret';
  path: string;
  superseded: string | null;
  edit_id: string;
  commit: string;
  hash: string | null;
  inbox_path: string | null;
  message: string;
}

/**
 * Records a decision as `decisions/<project>-<title>.md` (type decision, status accepted, today's
 * date, the project linked). With `replaces`, the replaced decision gets `status: superseded` and
 * `superseded_by` in the same commit.
 */
export async function recordDecision(vault: Vault, input: RecordDecisionInput): Promise<RecordDecisionResult> {
  const session = requireOpenSession(vault, input.session);
  const notes = await vault.listNotes();
  const project = matchProject(notes, { project: requireText(input.project, 'project', 300) });
  if (!project) {
    throw new VaultError('not_found', `No project note matches "${input.project}". Known projects: ${projectNames(notes).join(', ') || 'none'}. Write the project note first (write_note ${vault.layout.projects}/<name>.md).`, { field: 'project' });
  }
  const title = oneLine(requireText(input.title, 'title', 200), 200);
  const decision = requireText(input.decision, 'decision', 20_000).trim();
  const rationale = requireText(input.rationale, 'rationale', 20_000).trim();
  const projectSlug = slugify(String(project.note.frontmatter.name ?? basenameOf(project.note.path))) || slugify(basenameOf(project.note.path));
  const secrets = [title, decision, rationale].flatMap((t) => maskSecrets(t).findings);
  const mask = (t: string) => maskSecrets(t).text;
  const titleSlug = slugify(mask(title));
  if (!titleSlug) throw new VaultError('invalid_input', 'title must contain letters or digits.', { field: 'title' });
  const path = `${vault.layout.decisions}/${titleSlug.startsWith(`${projectSlug}-`) ? titleSlug : `${projectSlug}-${titleSlug}`}.md`;

  let replaced: Note | null = null;
  if (input.replaces) {
    const { resolver } = await vault.linkGraph();
    const given = input.replaces.trim();
    const asLink = resolveLinkValue(resolver, given.startsWith('[[') ? given : `[[${given.replace(/\.md$/i, '')}]]`, path);
    replaced = notes.find((n) => n.path === (asLink ?? notePathFromInput(given))) ?? null;
    if (!replaced || replaced.lucidType !== 'decision') {
      throw new VaultError('not_found', `replaces: no decision note "${given}". Pass the path read_note or search_notes gave (e.g. ${vault.layout.decisions}/...).`, { field: 'replaces' });
    }
    if (replaced.frontmatter.status === 'superseded') {
      throw new VaultError('conflict', `${replaced.path} is already superseded${typeof replaced.frontmatter.superseded_by === 'string' ? ` by ${replaced.frontmatter.superseded_by}` : ''}; replace the current decision instead.`, { field: 'replaces' });
    }
    if (replaced.path === path) throw new VaultError('invalid_input', 'A decision cannot replace itself; give the new decision another title.', { field: 'title' });
  }
  const now = vault.clock();
  const data: FrontmatterData = {
    type: 'decision',
    date: formatDate(now),
    project: noteLink(project.note.path),
    status: 'accepted',
    replaces: replaced ? noteLink(replaced.path) : undefined,
    created: formatTime(now),
    updated: formatDate(now),
  };
  const lines = [`# ${mask(title)}`, '', '## Decision', '', mask(decision), '', '## Why', '', mask(rationale), ''];
  if (replaced) lines.push(`Replaces ${noteLink(replaced.path)}.`, '');
  const text = composeNote(data, lines.join('\n'));
  const reason = safeReason(`${mask(title)}${replaced ? ` (supersedes ${basenameOf(replaced.path)})` : ''}`);

  if (secrets.length > 0) {
    const { path: inboxPath, result } = await fileSecretProposal(vault, session, {
      target: path,
      action: 'create',
      content: text,
      reason,
      current: null,
      secrets,
      also: replaced ? `It would also mark ${noteLink(replaced.path)} as superseded.` : undefined,
    });
    return {
      status: 'possible_secret',
      path,
      superseded: null,
      edit_id: result.editId,
      commit: result.commit,
      hash: null,
      inbox_path: inboxPath,
      message: `The decision was not recorded: it held what looks like ${describeSecrets(secrets)}, and secrets are never committed. It is in the inbox at ${inboxPath}, masked (flag: possible-secret). Record it again without the secret.`,
    };
  }
  vault.validateText(path, text);
  for (let attempt = 1; ; attempt += 1) {
    const changes: EditRequest['changes'] = [{ path, content: text, expectedHash: null }];
    if (replaced) {
      const current = await vault.readNote(replaced.path);
      if (current.frontmatter.status === 'superseded') throw new VaultError('conflict', `${replaced.path} was superseded meanwhile; read it again.`);
      changes.push({ path: replaced.path, content: setFrontmatterFields(current.text ?? '', { status: 'superseded', superseded_by: noteLink(path), updated: formatDate(now) }), expectedHash: current.hash });
    }
    try {
      const result = await commitAs(vault, session, { op: 'create', path, reason, changes });
      observeWrites(vault, session, changes.map((c) => c.path), result.editId);
      return {
        status: 'written',
        path,
        superseded: replaced?.path ?? null,
        edit_id: result.editId,
        commit: result.commit,
        hash: result.hashes[path] ?? null,
        inbox_path: null,
        message: `Recorded ${path}${replaced ? `; ${replaced.path} is now superseded by it` : ''} (one commit, ${result.commit.slice(0, 7)}).`,
      };
    } catch (error) {
      if (!isVaultError(error, 'conflict')) throw error;
      if (await readIfExists(vault, path)) {
        throw new VaultError('conflict', `${path} already exists. Give this decision another title, or pass replaces: "${path}" to supersede it.`, { field: 'title' });
      }
      if (attempt >= 20) throw error;
    }
  }
}

/** Input of {@link moltSkill}. */
export interface MoltSkillInput {
  session: string;
  name: string;
  /** The skill's text (the body, without front matter). */
  content: string;
  trigger?: string;
  reason: string;
}

/** What `molt_skill` returns. */
export interface MoltSkillResult {
  status: WriteStatus;
  path: string;
  name: string;
  version: number;
  previous_version: number;
  edit_id: string;
  commit: string;
  hash: string | null;
  inbox_path: string | null;
  message: string;
}

/**
 * Creates a skill (version 1; `trigger` required) or molts it (version + 1, `last_updated` today,
 * the body replaced, the trigger when given), committed with op `molt` and the `Lucid-Molt`
 * trailer. Archived skills are refused. If another molt landed since the skill was read, this
 * version goes to the inbox (flag `conflict`).
 */
export async function moltSkill(vault: Vault, input: MoltSkillInput): Promise<MoltSkillResult> {
  const session = requireOpenSession(vault, input.session);
  const name = slugify(requireText(input.name, 'name', 100)).replace(/-+$/, '');
  if (!name) throw new VaultError('invalid_input', 'name must contain letters or digits (it becomes skills/<name>.md).', { field: 'name' });
  const content = requireText(input.content, 'content', 200_000);
  if (parseFrontmatter(content).parts.hasFrontmatter) {
    throw new VaultError('invalid_input', 'content is the skill\'s text without front matter; pass the trigger as trigger.', { field: 'content' });
  }
  const reason = safeReason(requireText(input.reason, 'reason', 1000));
  const trigger = input.trigger === undefined ? undefined : oneLine(input.trigger, 500);
  const path = `${vault.layout.skills}/${name}.md`;
  if (await readIfExists(vault, `${vault.layout.skillsArchive}/${name}.md`)) {
    throw new VaultError('forbidden', `The skill ${name} is archived (${vault.layout.skillsArchive}/${name}.md); molt the skill it was merged into, or choose another name.`, { field: 'name' });
  }
  const current = await readIfExists(vault, path);
  if (current?.problem) throw new VaultError('invalid_frontmatter', `${path} cannot be molted until a person fixes it: ${current.problemMessage}`);
  if (current && current.frontmatter.status === 'archived') {
    throw new VaultError('forbidden', `The skill ${name} is archived${typeof current.frontmatter.merged_into === 'string' ? ` and merged into ${current.frontmatter.merged_into}` : ''}; molt that one instead.`, { field: 'name' });
  }
  if (!current && (!trigger || trigger.trim() === '')) {
    throw new VaultError('invalid_input', `${path} is a new skill: give its trigger (when an agent should use it), e.g. "when CI fails intermittently".`, { field: 'trigger' });
  }
  const from = current ? Number(current.frontmatter.version) : 0;
  if (current && !(Number.isInteger(from) && from >= 1)) {
    throw new VaultError('schema_violation', `${path} has no valid version (found ${JSON.stringify(current.frontmatter.version)}); a person must fix it first.`);
  }
  const to = from + 1;
  const now = vault.clock();
  const maskedContent = maskSecrets(content);
  const maskedTrigger = trigger === undefined ? { text: undefined, findings: [] as SecretFinding[] } : maskSecrets(trigger);
  const compose = (body: string, trig: string | undefined, base: Note | null, version: number): string => {
    const text = body.startsWith('\n') ? body : `\n${body}`;
    const withEnd = text.endsWith('\n') ? text : `${text}\n`;
    if (!base) {
      return composeNote({ type: 'skill', name, version, trigger: trig, last_updated: formatDate(now), status: 'active', created: formatTime(now), updated: formatDate(now) }, withEnd);
    }
    const fields = setFrontmatterFields(base.text ?? '', { version, last_updated: formatDate(now), updated: formatDate(now), ...(trig !== undefined ? { trigger: trig } : {}) });
    return fields.slice(0, splitNote(fields).bodyStart) + withEnd;
  };
  const secrets = [...maskedContent.findings, ...maskedTrigger.findings];
  if (secrets.length > 0) {
    const { path: inboxPath, result } = await fileSecretProposal(vault, session, {
      target: path,
      action: current ? 'update' : 'create',
      content: compose(maskedContent.text, maskedTrigger.text, current, to),
      reason,
      current,
      secrets,
    });
    return {
      status: 'possible_secret',
      path,
      name,
      version: from,
      previous_version: from,
      edit_id: result.editId,
      commit: result.commit,
      hash: current?.hash ?? null,
      inbox_path: inboxPath,
      message: `The skill was not molted: it held what looks like ${describeSecrets(secrets)}, and secrets are never committed. It is in the inbox at ${inboxPath}, masked (flag: possible-secret).`,
    };
  }
  const text = compose(content, trigger, current, to);
  vault.validateText(path, text);
  try {
    const result = await commitAs(vault, session, {
      op: 'molt',
      path,
      reason,
      changes: [{ path, content: text, expectedHash: current ? current.hash : null }],
      trailers: [['Lucid-Molt', `${name} ${from}->${to}`]],
    });
    observeWrites(vault, session, [path], result.editId);
    return {
      status: 'written',
      path,
      name,
      version: to,
      previous_version: from,
      edit_id: result.editId,
      commit: result.commit,
      hash: result.hashes[path] ?? null,
      inbox_path: null,
      message: `${current ? 'Molted' : 'Created'} ${path}: version ${to} (commit ${result.commit.slice(0, 7)}).`,
    };
  } catch (error) {
    if (!isVaultError(error, 'conflict')) throw error;
    const now2 = await readIfExists(vault, path);
    if (!now2) throw error;
    const { path: inboxPath, result } = await fileProposal(vault, session, {
      target: path,
      action: 'update',
      content: text,
      reason,
      flag: INBOX_FLAGS.conflict,
      baseBlob: current ? blobOfNote(current) : undefined,
      explanation: `${path} changed while ${session.actor} molted it, so Lucid did not overwrite it. This is ${session.actor}'s version ${to}: compare and merge.`,
    });
    return {
      status: 'conflict',
      path,
      name,
      version: Number(now2.frontmatter.version) || from,
      previous_version: from,
      edit_id: result.editId,
      commit: result.commit,
      hash: now2.hash,
      inbox_path: inboxPath,
      message: `${path} changed while you molted it; nothing was overwritten. Your version is in the inbox at ${inboxPath} (flag: conflict). read_note ${path} and molt again from the current version.`,
    };
  }
}

/** Ends the open sessions `ids` as abandoned, each with what was observed; returns the notes written. */
export async function abandonSessions(vault: Vault, ids: readonly string[], why = 'The client went away without calling end_session.'): Promise<string[]> {
  const written: string[] = [];
  for (const id of ids) {
    if (!readOpenSession(vault, id)) continue;
    try {
      const result = await endSession(vault, { session: id, outcome: 'abandoned', summary: `Abandoned: ${why} The properties list what Lucid observed during the session.` });
      written.push(result.path);
    } catch (error) {
      if (!isVaultError(error, 'conflict') && !isVaultError(error, 'not_found')) throw error;
    }
  }
  return written;
}
