import { VaultError, isVaultError } from '../errors';
import { editFrontmatter, parseFrontmatter, type ParsedFrontmatter } from '../notes/frontmatter';
import { formatDate, formatTime } from '../ids';
import { normalizeNotePath } from '../notes/paths';
import { describeSecrets, maskSecrets, type SecretFinding } from '../write/secrets';
import { requireOpenSession, type OpenSession } from './sessions';
import { type Vault } from '../vault';
import { assertAgentWritable, type Note } from '../notes/note';
import { type ComposedText, type EditRequest } from '../write/edit-types';
import {
  INBOX_FLAGS,
  blobOfNote,
  blobOfText,
  commitAs,
  folderOf,
  observeWrites,
  readIfExists,
  requireText,
  safeReason,
  versionWithHash,
} from './common';
import { type WriteStatus, fileProposal, fileSecretProposal } from './inbox-ops';

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
function withBom(note: { bom: boolean } | null, composed: ComposedText): ComposedText {
  return note?.bom && !composed.text.startsWith('\uFEFF') ? { ...composed, text: `\uFEFF${composed.text}` } : composed;
}

/**
 * The note's new text for a mode, with `updated` (and on create `created`) set, and the front
 * matter it has. `parsed` is the current text's front matter when the write path already parsed
 * it under the lock, so composing parses nothing again.
 */
function composeWrite(
  vault: Vault,
  mode: WriteNoteInput['mode'],
  current: string | null,
  content: string | undefined,
  fields: Record<string, unknown> | undefined,
  parsed?: ParsedFrontmatter,
): ComposedText {
  const now = vault.clock();
  const stamp = { updated: formatDate(now) };
  const edit = (text: string, changes: Record<string, unknown>, known?: ParsedFrontmatter): ComposedText => {
    const edited = editFrontmatter(text, changes, known);
    return { text: edited.text, frontmatter: edited.data };
  };
  switch (mode) {
    case 'create': {
      const text = content ?? '';
      const own = parseFrontmatter(text);
      if (!own.ok) throw new VaultError('invalid_frontmatter', `${own.error} Fix the front matter of your content.`);
      const created = own.data.created === undefined && fields?.created === undefined ? { created: formatTime(now) } : {};
      return edit(text, { ...fields, ...created, ...stamp }, own);
    }
    case 'replace':
      return edit(content ?? '', { ...fields, ...stamp });
    case 'append': {
      const edited = edit(current ?? '', { ...fields, ...stamp }, parsed);
      return { text: appendToText(edited.text, content ?? ''), frontmatter: edited.frontmatter };
    }
    case 'set_fields':
      return edit(current ?? '', { ...fields, ...stamp }, parsed);
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
    const proposed = mode === 'append' ? (maskedContent.text ?? '') : composeWrite(vault, mode, current?.text ?? null, maskedContent.text, maskedFields.fields).text;
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

  // Without an expected hash, an append or a field change is composed only under the vault lock,
  // on the note as it is then (read and parsed once there), so concurrent writers never conflict.
  const live = input.expected_hash === undefined && (mode === 'append' || mode === 'set_fields');
  let current: Note | null = null;
  let change: EditRequest['changes'][number];
  if (live) {
    change = {
      path,
      content: (now, parsed) => {
        if (!now) throw new VaultError('not_found', `${path} does not exist. Use mode create to make it (content is the whole note).`, { field: 'path' });
        return withBom(now, composeWrite(vault, mode, now.text, content, fields, parsed));
      },
    };
  } else {
    current = await readIfExists(vault, path);
    if (current) assertAgentWritable(current);
    if (!current && mode !== 'create') {
      throw new VaultError('not_found', `${path} does not exist. Use mode create to make it${mode === 'replace' ? '' : ' (content is the whole note)'}.`, { field: 'path' });
    }
    const stale = (current && mode === 'create') || (input.expected_hash !== undefined && current && current.hash !== input.expected_hash);
    if (stale && current) return conflictToInbox(vault, session, { path, mode, current, content, fields, expectedHash: input.expected_hash, reason });
    const composed = withBom(mode === 'append' || mode === 'set_fields' ? current : null, composeWrite(vault, mode, current?.text ?? null, content, fields));
    // Validated by the write path with the front matter composed here: no second parse.
    change = { path, content: () => composed, expectedHash: current ? current.hash : null };
  }
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
    proposed = composeWrite(vault, mode === 'create' ? 'replace' : mode, base, input.content, input.fields).text;
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
