import { VaultError } from '../errors';
import { normalizeNotePath } from '../notes/paths';
import { assertNoSecret, describeSecrets, type refusedSecret } from '../write/secrets';
import type { OpenSession } from './sessions';
import type { Vault } from '../vault';
import type { ComposedText, EditResult } from '../write/edit-types';
import type { Note } from '../notes/note';
import type { ProposalAction } from '../notes/schema';
import { showFile } from '../git/repo';
import { hashBytes } from '../notes/frontmatter';
import { blobOfText, folderOf, observeWrites, readIfExists, savedPersonSentence, versionWithHash } from './common';
import { fileProposal, fileSecretProposal } from './inbox-ops';
import { INBOX_FLAGS } from './contract';
import type { WriteNoteResult } from './contract-write';

// What write_note and edit_note share: where an agent may write, and how a write that cannot be
// committed (a stale hash, a secret) goes to the inbox instead.

/**
 * The note path an agent's write names, normalized; refused when it holds what looks like a
 * secret (it becomes an inbox name, a commit subject and a changelog line) or lies in the inbox,
 * the session notes or the skills, which have their own tools.
 */
export function agentWriteTarget(vault: Vault, given: string): string {
  const path = normalizeNotePath(given, { forWrite: true });
  assertNoSecret('path', path);
  const folder = folderOf(vault, path);
  if (folder === 'inbox') throw new VaultError('forbidden', `${path} is in the inbox: use propose_to_inbox to send a proposal.`, { field: 'path' });
  if (folder === 'sessions') throw new VaultError('forbidden', `${path} is a session note: end_session writes it.`, { field: 'path' });
  if (folder === 'skills')
    throw new VaultError('forbidden', `${path} is a skill: use molt_skill, which raises its version and records the molt.`, { field: 'path' });
  return path;
}

/** The note's text as written back: its byte-order mark, if it had one, kept. */
export function withBom(note: { bom: boolean } | null, composed: ComposedText): ComposedText {
  return note?.bom && !composed.text.startsWith('\uFEFF') ? { ...composed, text: `\uFEFF${composed.text}` } : composed;
}

/** A committed version of a note: its text without the byte-order mark, and whether it had one. */
export interface CommittedVersion {
  text: string;
  bom: boolean;
  /** The file's bytes as committed, BOM included: what a proposal's base_blob names. */
  raw: string;
}

/**
 * The committed version of `path` an agent's proposal is composed on: the one its `expectedHash`
 * names when Lucid still has it, else the one at HEAD; null when the note was never committed.
 * Never the file on disk: a person's uncommitted text there must not go into a commit by an agent
 * (filing a proposal is such a commit).
 */
export async function committedVersion(vault: Vault, path: string, expectedHash?: string): Promise<CommittedVersion | null> {
  const raw = (expectedHash ? await versionWithHash(vault, path, expectedHash) : null) ?? (await showFile(vault.repo, 'HEAD', path));
  if (raw === null) return null;
  return { text: raw.replace(/^\uFEFF/, ''), bom: raw.startsWith('\uFEFF'), raw };
}

/**
 * The note as a proposal composed on `base` sees it: the committed text instead of the disk's, so
 * the proposal's base_blob (fileSecretProposal takes it from the note) names that version.
 */
export function asCommitted(note: Note, base: CommittedVersion): Note {
  return { ...note, text: base.text, bom: base.bom, hash: hashBytes(Buffer.from(base.raw, 'utf8')) };
}

/** The refusal of a proposal whose note has no committed version: only a person's uncommitted text to compose on. */
export function neverCommitted(path: string): VaultError {
  return new VaultError(
    'conflict',
    `${path} has never been committed: its text is a person's, not yet saved in git, and Lucid does not put it into a commit of yours. Nothing was written and nothing went to the inbox. Ask a person to commit ${path}, or write without the secret.`,
    { path },
  );
}

/**
 * The refusal of a create whose path is taken: it names the note and its hash and says how to
 * change it instead. Nothing goes to the inbox: the agent chose the wrong mode, no person need merge.
 */
export function alreadyExists(note: Note): VaultError {
  return new VaultError(
    'conflict',
    `${note.path} ("${note.title}") already exists, with hash ${note.hash}; nothing was written. To change it, use edit_note for a part, or write_note mode replace with expected_hash ${note.hash} for the whole note (read_note it first). To keep both, create it under another path.`,
    { field: 'path', path: note.path, currentHash: note.hash },
  );
}

/**
 * A write based on a version the note no longer has: nothing is overwritten, and the agent's version
 * (`proposed`, composed on `basedOn` when that version is still known) goes to the inbox, flagged
 * `conflict`, for a person to merge.
 */
export async function fileConflict(
  vault: Vault,
  session: OpenSession,
  input: { path: string; current: Note; expectedHash?: string; reason: string; action: 'update' | 'append'; proposed: string; basedOn: string | null },
): Promise<WriteNoteResult> {
  const { path, current } = input;
  const basedOn = input.basedOn !== null ? blobOfText(input.basedOn) : null;
  const why = `${path} changed since ${session.actor} read it (expected hash ${(input.expectedHash ?? '').slice(0, 12)}…, now ${current.hash.slice(0, 12)}…)`;
  const { path: inboxPath, result } = await fileProposal(vault, session, {
    target: path,
    action: input.action,
    content: input.proposed,
    reason: input.reason,
    flag: INBOX_FLAGS.conflict,
    // Only the version the agent's expected_hash named. Unknown, base_blob is left out: the note's
    // current blob would make the inbox's accept see "unchanged" and apply the stale version blindly.
    ...(basedOn !== null ? { baseBlob: basedOn } : {}),
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

/** Files an agent's write that held a secret (masked) as an inbox proposal; `why` says what was found, for the reply. */
export async function proposeSecret(
  vault: Vault,
  session: OpenSession,
  proposal: Parameters<typeof fileSecretProposal>[2],
  why: string,
): Promise<WriteNoteResult> {
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

/**
 * A write the write path refused because of a secret found under the lock: one the edit completes
 * with the note's neighbouring lines (a value appended after `password = `, a key's body after its
 * BEGIN line), or one in a person's uncommitted version of the note, which Lucid will not commit.
 * The agent's version (`propose`, given the note as it is now) goes to the inbox with the secret
 * masked; the reply says why, masked.
 */
export async function secretToInbox(
  vault: Vault,
  session: OpenSession,
  input: {
    path: string;
    reason: string;
    refused: NonNullable<ReturnType<typeof refusedSecret>>;
    propose: (committed: CommittedVersion | null) => { action: ProposalAction; content: string };
  },
): Promise<WriteNoteResult> {
  const { path, refused } = input;
  const current = await readIfExists(vault, path);
  // Composed on the committed version, never on the disk's, which may hold a person's uncommitted text (and here its secret).
  const committed = current ? await committedVersion(vault, path) : null;
  if (current && !committed) throw neverCommitted(path);
  const { action, content } = input.propose(committed);
  const proposed = refused.mask(content);
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
        current: current && committed ? asCommitted(current, committed) : null,
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
    baseBlob: committed ? blobOfText(committed.raw) : undefined,
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

/**
 * The reply to a write that was committed, after noting the write on the session: `done` says what
 * was done to `path` ("Appended to notes/a.md"); the reply adds the edit, the commit and any person's
 * version saved first.
 */
export function writtenResult(vault: Vault, session: OpenSession, path: string, result: EditResult, done: string): WriteNoteResult {
  observeWrites(vault, session, [path], result.editId);
  return {
    status: 'written',
    path,
    edit_id: result.editId,
    commit: result.commit,
    hash: result.hashes[path] ?? null,
    inbox_path: null,
    message: `${done} (edit ${result.editId}, commit ${result.commit.slice(0, 7)}).${savedPersonSentence(vault, result)}`,
  };
}
