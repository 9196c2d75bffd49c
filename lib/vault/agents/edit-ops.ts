import { VaultError, isVaultError } from '../errors';
import { editFrontmatter, parseFrontmatter, type ParsedFrontmatter } from '../notes/frontmatter';
import { formatDate } from '../ids';
import { applyNoteEdit, type NoteEdit } from '../notes/note-edits';
import { assertAgentWritable } from '../notes/note';
import { isLucidType } from '../notes/schema';
import { describeSecrets, maskSecrets, refusedSecret } from '../write/secrets';
import { requireOpenSession, type OpenSession } from './sessions';
import type { Vault } from '../vault';
import type { ComposedText } from '../write/edit-types';
import { commitAs, readIfExists, safeReason, versionWithHash } from './common';
import { parseInput } from './contract';
import { editNoteInputSchema, type EditNoteInput, type EditNoteResult } from './contract-write';
import {
  agentWriteTarget,
  asCommitted,
  committedVersion,
  fileConflict,
  neverCommitted,
  proposeSecret,
  secretToInbox,
  withBom,
  writtenResult,
} from './write-shared';

/**
 * A note's text after an edit, with `updated` set when the note is one of Lucid's types (and no
 * field added to any other note), and the front matter it has, so the write path validates it
 * without parsing it again. `text` is without its byte-order mark; `parsed` is its front matter
 * when the write path already parsed it under the lock. An edit of the body only leaves the front
 * matter's bytes as they were, so that front matter is not parsed again.
 */
function composeEdit(vault: Vault, path: string, text: string, edit: NoteEdit, parsed?: ParsedFrontmatter | null): ComposedText {
  const now = vault.clock();
  const result = applyNoteEdit(path, text, edit);
  const known = result.bodyOnly ? (parsed ?? parseFrontmatter(text)) : parseFrontmatter(result.text);
  if (!known.ok) {
    const whose = result.bodyOnly ? `${path} has front matter that does not parse` : `Your edit breaks the front matter of ${path}`;
    const recover = result.bodyOnly
      ? ` A person must fix its front matter; until then, send your change through propose_to_inbox.`
      : ' Send an edit that keeps the front matter valid.';
    throw new VaultError('invalid_frontmatter', `${whose}: ${known.error} Nothing was changed.${recover}`, { path });
  }
  if (!isLucidType(known.data.type)) return { text: result.text, frontmatter: known.data };
  if (!result.bodyOnly) {
    const stamped = editFrontmatter(result.text, { updated: formatDate(now) }, known);
    return { text: stamped.text, frontmatter: stamped.data };
  }
  // The stamp goes on the text as it was (its front matter already parsed), then the edited body after it.
  const stamped = editFrontmatter(text, { updated: formatDate(now) }, known);
  const body = result.text.slice(known.parts.bodyStart);
  return { text: `${stamped.text.slice(0, stamped.text.length - known.parts.body.length)}${body}`, frontmatter: stamped.data };
}

/** {@link composeEdit} for a whole file's text, its byte-order mark kept. */
function composeFile(vault: Vault, path: string, file: { text: string; bom: boolean }, edit: NoteEdit, parsed?: ParsedFrontmatter | null): ComposedText {
  return withBom(file, composeEdit(vault, path, file.text, edit, parsed));
}

/** What the reply says was done. */
function doneSentence(path: string, edit: NoteEdit): string {
  const heading = `"${(edit.heading ?? '').trim()}"`;
  switch (edit.operation) {
    case 'find_replace': {
      const n = edit.expectedReplacements ?? 1;
      return `Replaced ${n === 1 ? 'the one occurrence' : `all ${n} occurrences`} of find in ${path}`;
    }
    case 'replace_section':
      return `Replaced the section ${heading} of ${path}`;
    case 'insert_before_heading':
      return `Inserted the content before ${heading} in ${path}`;
    case 'insert_after_heading':
      return `Inserted the content after ${heading} in ${path}`;
    case 'prepend':
      return `Prepended the content to ${path}`;
    case 'append':
      return `Appended the content to ${path}`;
  }
}

/**
 * edit_note: changes one part of a note for an agent, leaving every other byte as it was (the byte-
 * order mark, the line endings, which inserted text takes, and the final line break, present or
 * missing): `find_replace` (literal text, refused unless it occurs exactly `expected_replacements`
 * times, default 1), `replace_section` (the text under a heading such as `## Status`, up to the next
 * heading of the same or a higher level), `insert_before_heading`, `insert_after_heading` (right
 * after the heading line), `prepend` (after the front matter) and `append`. A heading must occur
 * once outside code blocks; a missing or repeated one is refused with the note's headings or the
 * line numbers. The edit is computed under the vault lock on the note as it is then, and is one
 * commit with its changelog line, validated against the note's type; notes of Lucid's types get
 * `updated`, others no field. A stale `expected_hash` sends the agent's version (the edit applied to
 * the version it read) to the inbox, as write_note does; so does new text that looks like a secret,
 * masked.
 */
export async function editNote(vault: Vault, given: EditNoteInput): Promise<EditNoteResult> {
  const input = parseInput(editNoteInputSchema, given);
  const session = requireOpenSession(vault, input.session);
  const path = agentWriteTarget(vault, input.path);
  const reason = safeReason(input.reason);
  const edit: NoteEdit = {
    operation: input.operation,
    find: input.find,
    replace: input.replace,
    expectedReplacements: input.expected_replacements,
    heading: input.heading,
    content: input.content,
  };
  const missing = () =>
    new VaultError('not_found', `${path} does not exist; edit_note changes a note that exists. Use write_note mode create to make it.`, { field: 'path' });

  const maskedContent = maskSecrets(edit.content ?? '');
  const maskedReplace = maskSecrets(edit.replace ?? '');
  const secrets = [...maskedContent.findings, ...maskedReplace.findings];
  if (secrets.length > 0) {
    const current = await readIfExists(vault, path);
    if (!current) throw missing();
    assertAgentWritable(current);
    // The proposal is a commit by the agent: composed on a committed version, never on a person's uncommitted text.
    const base = await committedVersion(vault, path, input.expected_hash);
    if (!base) throw neverCommitted(path);
    const masked = {
      ...edit,
      ...(edit.content !== undefined ? { content: maskedContent.text } : {}),
      ...(edit.replace !== undefined ? { replace: maskedReplace.text } : {}),
    };
    return proposeSecret(
      vault,
      session,
      {
        target: path,
        action: 'update',
        content: composeFile(vault, path, base, masked).text,
        reason,
        current: asCommitted(current, base),
        secrets,
      },
      `your ${maskedContent.findings.length > 0 ? 'content' : 'replace'} held what looks like ${describeSecrets(secrets)}`,
    );
  }

  try {
    const result = await commitAs(vault, session, {
      op: edit.operation === 'append' ? 'append' : 'update',
      path,
      reason,
      changes: [
        {
          path,
          // Computed under the vault lock, on the bytes it writes over; with expected_hash, only if they are the ones the agent read.
          content: (now, parsed) => {
            if (!now) throw missing();
            return composeFile(vault, path, { text: now.text ?? '', bom: now.bom }, edit, parsed);
          },
          expectedHash: input.expected_hash,
        },
      ],
    });
    return writtenResult(vault, session, path, result, doneSentence(path, edit));
  } catch (error) {
    const refused = refusedSecret(error);
    if (refused) {
      return secretToInbox(vault, session, {
        path,
        reason,
        refused,
        propose: (now) => ({ action: 'update', content: now ? composeFile(vault, path, now, edit).text : '' }),
      });
    }
    if (!isVaultError(error, 'conflict') || input.expected_hash === undefined) throw error;
    return staleEdit(vault, session, { path, edit, reason, expectedHash: input.expected_hash });
  }
}

/**
 * An edit based on a version the note no longer has: the edit applied to that version (when Lucid
 * still has it, else to the note as it is now) goes to the inbox for a person to merge. When it
 * applies to neither, nothing is filed and the agent is told to read the note again.
 */
async function staleEdit(
  vault: Vault,
  session: OpenSession,
  input: { path: string; edit: NoteEdit; reason: string; expectedHash: string },
): Promise<EditNoteResult> {
  const { path, edit, expectedHash } = input;
  const current = await readIfExists(vault, path);
  if (!current) throw new VaultError('not_found', `${path} was deleted since you read it; nothing was written.`, { field: 'path' });
  assertAgentWritable(current);
  const basedOn = await versionWithHash(vault, path, expectedHash);
  // The fallback is the version at HEAD, not the disk's: a person's uncommitted text must not go into the agent's proposal commit.
  const head = await committedVersion(vault, path);
  const asVersion = (raw: string) => ({ text: raw.replace(/^\uFEFF/, ''), bom: raw.startsWith('\uFEFF') });
  const bases: { text: string; bom: boolean; basedOn: string | null }[] = [];
  if (basedOn !== null) bases.push({ ...asVersion(basedOn), basedOn });
  if (head) bases.push({ ...asVersion(head.raw), basedOn: null });
  let failure: unknown = null;
  for (const base of bases) {
    let proposed: string;
    try {
      proposed = composeFile(vault, path, base, edit).text;
    } catch (error) {
      if (!isVaultError(error)) throw error;
      failure ??= error;
      continue;
    }
    return fileConflict(vault, session, {
      path,
      current,
      expectedHash,
      reason: input.reason,
      action: 'update',
      proposed,
      basedOn: base.basedOn,
    });
  }
  if (failure === null) throw neverCommitted(path);
  throw new VaultError(
    'conflict',
    `${path} changed since you read it (expected hash ${expectedHash.slice(0, 12)}…, now ${current.hash.slice(0, 12)}…), and your edit does not apply to it: ${(failure as Error).message} Nothing was written and nothing went to the inbox. read_note ${path} again and redo your edit on the current version (hash ${current.hash}).`,
    { path, currentHash: current.hash },
  );
}
