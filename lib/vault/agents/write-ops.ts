import { VaultError, isVaultError } from '../errors';
import { editFrontmatter, parseFrontmatter, type ParsedFrontmatter } from '../notes/frontmatter';
import { formatDate, formatTime } from '../ids';
import { trailingLineBreaksStart } from '../text';
import { normalizeNotePath } from '../notes/paths';
import { MASK } from '../write/secret-rules';
import { assertNoSecret, describeSecrets, maskSecrets, refusedSecret, type SecretFinding } from '../write/secrets';
import { requireOpenSession, type OpenSession } from './sessions';
import type { Vault } from '../vault';
import { assertAgentWritable, type Note } from '../notes/note';
import type { ComposedText, EditRequest } from '../write/edit-types';
import { blobOfNote, blobOfText, commitAs, folderOf, observeWrites, readIfExists, safeReason, savedPersonSentence, versionWithHash } from './common';
import { fileProposal, fileSecretProposal } from './inbox-ops';
import { INBOX_FLAGS, parseInput, writeNoteInputSchema, type WriteNoteInput, type WriteNoteResult } from './contract';

/** The properties to set, with null (remove it) as undefined, which is how setFrontmatterFields removes one. */
function withRemovals(fields: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return fields && Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, value === null ? undefined : value]));
}

/**
 * The fields with secrets masked, each value scanned together with its key name (`api_key: <hex>`
 * is caught as `api_key = <hex>` in content is) and each key on its own.
 */
function maskFields(fields: Record<string, unknown> | undefined): { fields: Record<string, unknown> | undefined; findings: SecretFinding[] } {
  if (!fields) return { fields, findings: [] };
  const findings: SecretFinding[] = [];
  const mask = (key: string, v: unknown): unknown => {
    if (typeof v === 'string') {
      const joined = maskSecrets(`${key}: ${v}`);
      if (joined.findings.length === 0) return v;
      findings.push(...joined.findings);
      if (joined.text.startsWith(`${key}: `)) return joined.text.slice(key.length + 2);
      const alone = maskSecrets(v);
      return alone.findings.length > 0 ? alone.text : MASK;
    }
    if (Array.isArray(v)) return v.map((item) => mask(key, item));
    if (v !== null && typeof v === 'object') return maskObject(v as Record<string, unknown>);
    return v;
  };
  const maskObject = (object: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(object)) {
      const name = maskSecrets(key);
      findings.push(...name.findings);
      out[name.text] = mask(key, value);
    }
    return out;
  };
  const out = maskObject(fields);
  return { fields: out, findings };
}

/** Appends a section at the end of a note's text, after one blank line (an accepted inbox append joins the same way). */
export function appendToText(text: string, section: string): string {
  const eol = /\r\n/.test(text) ? '\r\n' : '\n';
  let body = section.replace(/^(\r?\n)+/, '').replace(/\r?\n/g, '\n');
  if (!body.endsWith('\n')) body += '\n';
  return `${text.slice(0, trailingLineBreaksStart(text))}${eol}${eol}${eol === '\n' ? body : body.replace(/\n/g, '\r\n')}`;
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
export async function writeNote(vault: Vault, given: WriteNoteInput): Promise<WriteNoteResult> {
  const input = parseInput(writeNoteInputSchema, given);
  const session = requireOpenSession(vault, input.session);
  const path = normalizeNotePath(input.path, { forWrite: true });
  // Before anything is filed: a path becomes an inbox name, a commit subject and a changelog line.
  assertNoSecret('path', path);
  const mode = input.mode;
  const folder = folderOf(vault, path);
  if (folder === 'inbox') throw new VaultError('forbidden', `${path} is in the inbox: use propose_to_inbox to send a proposal.`, { field: 'path' });
  if (folder === 'sessions') throw new VaultError('forbidden', `${path} is a session note: end_session writes it.`, { field: 'path' });
  if (folder === 'skills')
    throw new VaultError('forbidden', `${path} is a skill: use molt_skill, which raises its version and records the molt.`, { field: 'path' });
  const reason = safeReason(input.reason);
  const fields = withRemovals(input.fields);
  const content = input.content;

  const maskedContent = typeof content === 'string' ? maskSecrets(content) : { text: content, findings: [] as SecretFinding[] };
  const maskedFields = maskFields(fields);
  const secrets = [...maskedContent.findings, ...maskedFields.findings];
  if (secrets.length > 0) {
    const current = await readIfExists(vault, path);
    if (current) assertAgentWritable(current);
    const action = mode === 'append' ? 'append' : current ? 'update' : 'create';
    const proposed =
      mode === 'append' ? (maskedContent.text ?? '') : composeWrite(vault, mode, current?.text ?? null, maskedContent.text, maskedFields.fields).text;
    return proposeSecret(
      vault,
      session,
      { target: path, action, content: proposed, reason, current, secrets },
      `your ${maskedContent.findings.length > 0 ? 'content' : 'fields'} held what looks like ${describeSecrets(secrets)}`,
    );
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
      throw new VaultError('not_found', `${path} does not exist. Use mode create to make it${mode === 'replace' ? '' : ' (content is the whole note)'}.`, {
        field: 'path',
      });
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
      message: `${mode === 'create' ? 'Created' : mode === 'append' ? 'Appended to' : 'Updated'} ${path} (edit ${result.editId}, commit ${result.commit.slice(0, 7)}).${savedPersonSentence(vault, result)}`,
    };
  } catch (error) {
    const refused = refusedSecret(error);
    if (refused) return secretToInbox(vault, session, { path, mode, content, fields, reason, refused });
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
  input: {
    path: string;
    mode: WriteNoteInput['mode'];
    current: Note;
    content?: string;
    fields?: Record<string, unknown>;
    expectedHash?: string;
    reason: string;
  },
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
  const why =
    mode === 'create'
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

/**
 * A write the write path refused because of a secret found under the lock: one the edit completes
 * with the note's neighbouring lines (a value appended after `password = `, a key's body after its
 * BEGIN line), or one in a person's uncommitted version of the note, which Lucid will not commit.
 * The agent's version goes to the inbox with the secret masked; the reply says why, masked.
 */
async function secretToInbox(
  vault: Vault,
  session: OpenSession,
  input: {
    path: string;
    mode: WriteNoteInput['mode'];
    content?: string;
    fields?: Record<string, unknown>;
    reason: string;
    refused: NonNullable<ReturnType<typeof refusedSecret>>;
  },
): Promise<WriteNoteResult> {
  const { path, mode, refused } = input;
  const current = await readIfExists(vault, path);
  const proposed = refused.mask(
    mode === 'append' || !current
      ? (input.content ?? '')
      : composeWrite(vault, mode === 'create' ? 'replace' : mode, current.text ?? '', input.content, input.fields).text,
  );
  const action = mode === 'append' ? 'append' : current ? 'update' : 'create';
  const kinds = describeSecrets(refused.findings);
  if (refused.where === 'edit') {
    return proposeSecret(
      vault,
      session,
      {
        target: path,
        action,
        content: proposed,
        reason: input.reason,
        current,
        secrets: refused.findings,
        also: 'The secret was completed by the lines already in the note next to the change.',
      },
      `with the lines next to it in the note, your change makes what looks like ${kinds}`,
    );
  }
  const { path: inboxPath, result } = await fileProposal(vault, session, {
    target: path,
    action,
    content: proposed,
    reason: input.reason,
    flag: INBOX_FLAGS.conflict,
    baseBlob: current ? blobOfNote(current) : undefined,
    explanation: `${refused.path} has uncommitted changes, made outside Lucid, that hold what looks like ${kinds}. Lucid never commits secrets, so it neither saved those changes nor wrote ${session.actor}'s change over them. This is ${session.actor}'s change: remove the secret from the note (keep it in a secret manager), then apply it.`,
  });
  return {
    status: 'conflict',
    path,
    edit_id: result.editId,
    commit: result.commit,
    hash: current?.hash ?? null,
    inbox_path: inboxPath,
    message: `${path} was not written: ${refused.path === path ? 'the note' : refused.path} has uncommitted changes, made outside Lucid, that hold what looks like ${kinds}, and Lucid never commits secrets, so it neither saved them nor wrote over them. Your change is in the inbox at ${inboxPath} (flag: conflict) for a person to apply once the secret is gone. Do not retry until then, and never copy the secret.`,
  };
}

/** Files an agent's write that held a secret (masked) as an inbox proposal; `why` says what was found, for the reply. */
async function proposeSecret(vault: Vault, session: OpenSession, proposal: Parameters<typeof fileSecretProposal>[2], why: string): Promise<WriteNoteResult> {
  const { path: inboxPath, result } = await fileSecretProposal(vault, session, proposal);
  return {
    status: 'possible_secret',
    path: proposal.target,
    edit_id: result.editId,
    commit: result.commit,
    hash: proposal.current?.hash ?? null,
    inbox_path: inboxPath,
    message: `${proposal.target} was not written: ${why}, and secrets are never committed. Your version, with the secret masked, is in the inbox at ${inboxPath} (flag: possible-secret) for a person to review. Write again without the secret (name where it is kept instead).`,
  };
}
