import { VaultError, isVaultError } from '../errors';
import { editFrontmatter, parseFrontmatter, type FrontmatterData, type ParsedFrontmatter } from '../notes/frontmatter';
import { formatDate, formatTime } from '../ids';
import { appendToNote } from '../notes/note-edits';
import { isLucidType } from '../notes/schema';
import { MASK } from '../write/secret-rules';
import { describeSecrets, maskSecrets, refusedSecret, type SecretFinding } from '../write/secrets';
import { requireOpenSession, type OpenSession } from './sessions';
import type { Vault } from '../vault';
import { assertAgentWritable, type Note } from '../notes/note';
import type { ComposedText, EditRequest } from '../write/edit-types';
import { commitAs, readIfExists, safeReason, versionWithHash } from './common';
import { parseInput } from './contract';
import { writeNoteInputSchema, type WriteNoteInput, type WriteNoteResult } from './contract-write';
import {
  agentWriteTarget,
  alreadyExists,
  asCommitted,
  committedVersion,
  fileConflict,
  neverCommitted,
  proposeSecret,
  secretToInbox,
  withBom,
  writtenResult,
} from './write-shared';

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

/**
 * Appends a section at the end of a note's text as edit_note's append does (one implementation,
 * appendToNote): after one blank line, in the note's line ending, every byte already there kept.
 * An accepted inbox append joins the same way.
 */
export function appendToText(text: string, section: string): string {
  return appendToNote(text, section);
}

/**
 * The fields Lucid sets on a note it writes: `updated` (and `extra`, e.g. `created` on create) when
 * the note is one of Lucid's types once `fields` are applied; none on any other note, which
 * never gets a field it did not ask for.
 */
function stampsFor(
  now: Date,
  data: FrontmatterData,
  fields: Record<string, unknown> | undefined,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const type = fields && Object.hasOwn(fields, 'type') ? fields.type : data.type;
  return isLucidType(type) ? { ...extra, updated: formatDate(now) } : {};
}

/**
 * The note's new text for a mode, with `updated` (and on create `created`) set on a note of
 * Lucid's types, and the front matter it has. `parsed` is the current text's front matter when the
 * write path already parsed it under the lock, so composing parses nothing again.
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
  // One parse of the text whose properties change, reused by the edit (editFrontmatter refuses one that does not parse).
  const edit = (text: string, known: ParsedFrontmatter, extra?: Record<string, unknown>): ComposedText => {
    const edited = editFrontmatter(text, { ...fields, ...(known.ok ? stampsFor(now, known.data, fields, extra) : {}) }, known);
    return { text: edited.text, frontmatter: edited.data };
  };
  switch (mode) {
    case 'create': {
      const text = content ?? '';
      const own = parseFrontmatter(text);
      if (!own.ok) throw new VaultError('invalid_frontmatter', `${own.error} Fix the front matter of your content.`);
      const created = own.data.created === undefined && fields?.created === undefined ? { created: formatTime(now) } : {};
      return edit(text, own, created);
    }
    case 'replace':
      return edit(content ?? '', parseFrontmatter(content ?? ''));
    case 'append': {
      const edited = edit(current ?? '', parsed ?? parseFrontmatter(current ?? ''));
      return { text: appendToText(edited.text, content ?? ''), frontmatter: edited.frontmatter };
    }
    case 'set_fields':
      return edit(current ?? '', parsed ?? parseFrontmatter(current ?? ''));
  }
}

const OP_OF: Record<WriteNoteInput['mode'], 'create' | 'update' | 'append'> = { create: 'create', replace: 'update', append: 'append', set_fields: 'update' };

/**
 * Writes a note for an agent: `create` (content is the whole note), `replace` (the whole note;
 * `expected_hash` required), `append` (content added at the end) or `set_fields` (properties
 * changed line by line; null removes one). Paths are confined to the vault; the inbox, session
 * notes and skills have their own tools. Schema violations are refused with field and reason.
 * `create` on a path that exists is refused (code `conflict`) with the note's hash, and nothing
 * goes to the inbox. A stale `expected_hash` is a conflict: nothing is overwritten and the agent's
 * version goes to the inbox (flag `conflict`); without `expected_hash`, append and set_fields are
 * applied to the note as it is under the vault lock, since they commute. `updated` (and on create
 * `created`) is set only on notes of Lucid's types. Content that looks like a secret is never
 * committed: the write goes to the inbox, masked, with flag `possible-secret`.
 */
export async function writeNote(vault: Vault, given: WriteNoteInput): Promise<WriteNoteResult> {
  const input = parseInput(writeNoteInputSchema, given);
  const session = requireOpenSession(vault, input.session);
  // Before anything is filed: a path becomes an inbox name, a commit subject and a changelog line.
  const path = agentWriteTarget(vault, input.path);
  const mode = input.mode;
  const reason = safeReason(input.reason);
  const fields = withRemovals(input.fields);
  const content = input.content;

  const maskedContent = typeof content === 'string' ? maskSecrets(content) : { text: content, findings: [] as SecretFinding[] };
  const maskedFields = maskFields(fields);
  const secrets = [...maskedContent.findings, ...maskedFields.findings];
  if (secrets.length > 0) {
    const current = await readIfExists(vault, path);
    if (current && mode === 'create') throw alreadyExists(current);
    if (current) assertAgentWritable(current);
    // The proposal is a commit by the agent: composed on a committed version, never on a person's uncommitted text.
    const base = current ? await committedVersion(vault, path, input.expected_hash) : null;
    if (current && !base) throw neverCommitted(path);
    const action = mode === 'append' ? 'append' : current ? 'update' : 'create';
    const proposed =
      mode === 'append' ? (maskedContent.text ?? '') : composeWrite(vault, mode, base?.text ?? null, maskedContent.text, maskedFields.fields).text;
    return proposeSecret(
      vault,
      session,
      { target: path, action, content: proposed, reason, current: current && base ? asCommitted(current, base) : null, secrets },
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
    if (current && mode === 'create') throw alreadyExists(current);
    if (current) assertAgentWritable(current);
    if (!current && mode !== 'create') {
      throw new VaultError('not_found', `${path} does not exist. Use mode create to make it${mode === 'replace' ? '' : ' (content is the whole note)'}.`, {
        field: 'path',
      });
    }
    if (current && mode !== 'create' && input.expected_hash !== undefined && current.hash !== input.expected_hash) {
      return conflictToInbox(vault, session, { path, mode, current, content, fields, expectedHash: input.expected_hash, reason });
    }
    const composed = withBom(mode === 'append' || mode === 'set_fields' ? current : null, composeWrite(vault, mode, current?.text ?? null, content, fields));
    // Validated by the write path with the front matter composed here: no second parse.
    change = { path, content: () => composed, expectedHash: current ? current.hash : null };
  }
  try {
    const result = await commitAs(vault, session, { op: OP_OF[mode], path, reason, changes: [change] });
    return writtenResult(vault, session, path, result, `${mode === 'create' ? 'Created' : mode === 'append' ? 'Appended to' : 'Updated'} ${path}`);
  } catch (error) {
    const refused = refusedSecret(error);
    if (refused) {
      return secretToInbox(vault, session, {
        path,
        reason,
        refused,
        propose: (now) => ({
          action: mode === 'append' ? 'append' : now ? 'update' : 'create',
          content:
            mode === 'append' || !now ? (content ?? '') : composeWrite(vault, mode === 'create' ? 'replace' : mode, now.text ?? '', content, fields).text,
        }),
      });
    }
    if (!isVaultError(error, 'conflict')) throw error;
    const now = await readIfExists(vault, path);
    // A create that lost a race: the note another writer made is the agent's to read, not a person's to merge.
    if (mode === 'create')
      throw now ? alreadyExists(now) : new VaultError('conflict', `${path} was made and deleted while you wrote it; nothing was written. Try again.`);
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
    mode: Exclude<WriteNoteInput['mode'], 'create'>;
    current: Note;
    content?: string;
    fields?: Record<string, unknown>;
    expectedHash?: string;
    reason: string;
  },
): Promise<WriteNoteResult> {
  const { path, mode, current } = input;
  const basedOn = input.expectedHash ? await versionWithHash(vault, path, input.expectedHash) : null;
  // Fields are set on the version the agent read, else on HEAD's: never on the disk's, which may hold a person's uncommitted text.
  const head = mode === 'set_fields' && basedOn === null ? await committedVersion(vault, path) : null;
  if (mode === 'set_fields' && basedOn === null && !head) throw neverCommitted(path);
  const base = basedOn ?? head?.raw ?? '';
  return fileConflict(vault, session, {
    path,
    current,
    expectedHash: input.expectedHash,
    reason: input.reason,
    action: mode === 'append' ? 'append' : 'update',
    proposed: mode === 'append' ? (input.content ?? '') : composeWrite(vault, mode, base, input.content, input.fields).text,
    basedOn,
  });
}
