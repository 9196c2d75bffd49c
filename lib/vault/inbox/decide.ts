import { VaultError, isVaultError } from '../errors';
import { describeSecrets, findAddedSecrets } from '../write/secrets';
import type { FileChange } from '../write/edit-types';
import type { Vault } from '../vault';
import { safeReason } from '../agents/common';
import { findItem, plainResult, readTarget, targetChangedSince } from './detail';
import { hasConflictMarkers } from './parse';
import type { AcceptInput, AcceptResult, InboxItem, RejectInput, RejectResult } from './types';

/**
 * The words an accept's reason carries, in parentheses after the item's id, when the person
 * applied their own text (edited or merged) instead of the proposal as it was: the sessions page and
 * the changelog tell an edited accept from a plain one by it ({@link isEditedAccept}).
 */
export const EDITED_ACCEPT_MARKER = 'edited before accepting';

/** Whether a commit or changelog entry is an accept whose text the person edited (its reason holds {@link EDITED_ACCEPT_MARKER}). */
export function isEditedAccept(entry: { op: string | null; reason: string }): boolean {
  return entry.op === 'accept' && entry.reason.includes(`(${EDITED_ACCEPT_MARKER})`);
}

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * The person who decides: the vault's own. Another `human:<name>` only through the demo's entry
 * points ({@link acceptInboxItemAs}, {@link rejectInboxItemAs}), which lib/vault/index.ts does not
 * export: a caller of the public functions can never decide in someone else's name.
 */
function deciderOf(vault: Vault, input: object, person?: string): string {
  if (person !== undefined) {
    if (!/^human:\S/.test(person)) {
      throw new VaultError('invalid_input', 'Only a person (human:<name>) accepts or rejects an inbox item.', { field: 'person' });
    }
    return person;
  }
  const given = (input as { person?: unknown }).person;
  if (given !== undefined && given !== vault.person) {
    throw new VaultError('forbidden', `Inbox items are decided as ${vault.person}, the person at this vault; nothing changed.`, { field: 'person' });
  }
  return vault.person;
}

function checkAcceptInput(input: AcceptInput): void {
  if (!input || typeof input.id !== 'string') throw new VaultError('invalid_input', 'Give the id of the inbox item to accept.', { field: 'id' });
  if (input.text !== undefined && typeof input.text !== 'string')
    throw new VaultError('invalid_input', 'text must be the note text to apply.', { field: 'text' });
  const expected = input.expectedTargetHash;
  if (expected !== undefined && expected !== null && (typeof expected !== 'string' || !SHA256.test(expected))) {
    throw new VaultError('invalid_input', 'expectedTargetHash must be the sha256 the item showed as currentHash (64 hex digits), or null.', {
      field: 'expectedTargetHash',
    });
  }
  if (input.reason !== undefined && typeof input.reason !== 'string') throw new VaultError('invalid_input', 'reason must be text.', { field: 'reason' });
}

/** The reason of an accept: the item's id and proposer, the edited marker when it applies, the person's words or else the proposer's. */
function acceptReason(item: InboxItem, edited: boolean, given: string | undefined): string {
  const words = (given ?? '').trim() || item.reason;
  return safeReason(`${item.id} from ${item.proposedBy}${edited ? ` (${EDITED_ACCEPT_MARKER})` : ''}${words ? `: ${words}` : ''}`);
}

/** The same error with a sentence saying that nothing changed and how to go on (the schema's message kept). */
function nothingChanged(error: unknown, item: InboxItem): unknown {
  if (!isVaultError(error)) return error;
  const how: Partial<Record<string, string>> = {
    schema_violation: `Nothing changed. Edit the proposal so that it fits (the Edit button, or lucid inbox accept ${item.id} --text-file FILE), or reject it.`,
    invalid_frontmatter: `Nothing changed. Fix the front matter in an edited version (the Edit button, or lucid inbox accept ${item.id} --text-file FILE), or reject it.`,
    conflict: `Nothing changed. Show the item again (lucid inbox show ${item.id}) and decide on what is there now.`,
  };
  const extra = how[error.code];
  return extra ? new VaultError(error.code, `${error.message} ${extra}`, error.details) : error;
}

/**
 * Accepts an inbox item: applies it to its target and removes the inbox note in one commit (op
 * `accept`) made as the person, with the proposing session's `Lucid-Session` trailer and a reason
 * that names the item and, when `text` was given, carries {@link EDITED_ACCEPT_MARKER}.
 *
 * - `text` is the person's version of the target's whole new text (what `result` or `merge.text`
 *   shows; for append the note with the section added), refused while it holds conflict markers.
 * - When the target changed since the proposal (`base_blob`; for a create, a note now exists there)
 *   a plain accept is refused as `conflict`: the person merges first and passes the merged `text`. A
 *   delete of a changed target needs `expectedTargetHash` (the person saw what goes).
 * - `expectedTargetHash` (the detail's currentHash) guards the target: a stale one is a `conflict`.
 *   It is required with `text` (`invalid_input` without it): the text was made from what the hash names.
 * - The new text is validated against its type as agent writes are; what looks like a secret added
 *   to the target is refused (`forbidden`). A `possible-secret` item holds its proposal masked, so a
 *   plain accept writes the masked text: the secret itself was never stored and is never committed.
 * - An item with a `problem` cannot be accepted (reject it). A person's uncommitted version of the
 *   target is committed as theirs first by the write path; nothing changes when anything is refused.
 */
export function acceptInboxItem(vault: Vault, input: AcceptInput): Promise<AcceptResult> {
  return acceptInboxItemAs(vault, input);
}

/**
 * {@link acceptInboxItem} as `person` (`human:<name>`): the demo's team members decide in their own
 * names. Internal to lib/vault and the demo (not exported from lib/vault/index.ts).
 */
export async function acceptInboxItemAs(vault: Vault, input: AcceptInput, person?: string): Promise<AcceptResult> {
  checkAcceptInput(input);
  const actor = deciderOf(vault, input, person);
  const { item, hash } = await findItem(vault, input.id);
  if (item.problem) throw new VaultError('invalid_input', item.problem, { path: item.path });
  if (input.text !== undefined && item.action === 'delete') {
    throw new VaultError('invalid_input', `${item.id} proposes to delete ${item.target}: there is no text to edit. Accept it as it is, or reject it.`, {
      field: 'text',
    });
  }
  if (input.text !== undefined && hasConflictMarkers(input.text)) {
    throw new VaultError(
      'invalid_input',
      'The text still holds conflict markers (lines starting with <<<<<<<, =======, ||||||| or >>>>>>>). Resolve each conflict, keeping the lines that should stay and removing the markers, then accept again; nothing changed.',
      { field: 'text' },
    );
  }
  if (input.text !== undefined && input.expectedTargetHash === undefined) {
    // The person's text was made from the target as they saw it: without that hash a save landing
    // since would be committed as theirs and then replaced by text that lacks it.
    throw new VaultError(
      'invalid_input',
      `Accepting your own text needs the hash of ${item.target} you made it from (expectedTargetHash: the currentHash lucid inbox show ${item.id} printed, --target-hash on the command line). Nothing changed.`,
      { field: 'expectedTargetHash' },
    );
  }
  const now = await readTarget(vault, item.target);
  if (input.expectedTargetHash !== undefined && input.expectedTargetHash !== now.hash) {
    throw new VaultError(
      'conflict',
      `${item.target} changed since you looked at it${now.hash === null ? ' (it is absent now)' : ''}. Nothing changed; show the item again (lucid inbox show ${item.id}) and decide on what is there now.`,
      { path: item.target, currentHash: now.hash },
    );
  }
  if (item.action === 'delete' && now.hash === null) {
    throw new VaultError('conflict', `${item.target} is already gone. Nothing changed; reject ${item.id}.`, { path: item.target });
  }
  const changed = targetChangedSince(item, now);
  if (changed && input.text === undefined && !(item.action === 'delete' && input.expectedTargetHash !== undefined)) {
    throw new VaultError(
      'conflict',
      item.action === 'delete'
        ? `${item.target} changed since ${item.proposedBy} proposed to delete it. Nothing changed; look at it as it is now (lucid inbox show ${item.id}), then accept with its current hash (--target-hash) or reject.`
        : item.action === 'create'
          ? `${item.target} exists by now, created since ${item.proposedBy} proposed it. Nothing changed; merge the two (lucid inbox show ${item.id} shows the merge) and accept the merged text (--text-file), or reject.`
          : `${item.target} changed since ${item.proposedBy} proposed this. Nothing changed; both changes must be merged: lucid inbox show ${item.id} shows the three-way merge; resolve it and accept the merged text (--text-file), or reject.`,
      { path: item.target, currentHash: now.hash },
    );
  }
  const plain = plainResult(item, now.text);
  const written = item.action === 'delete' ? null : (input.text ?? plain);
  if (item.action !== 'delete' && written === null) throw new VaultError('invalid_input', `${item.id} holds no proposed text. Reject it.`);
  const edited = input.text !== undefined && input.text !== plain;
  let content: string | null = written;
  if (content !== null) {
    const added = findAddedSecrets(now.text, content);
    if (added.length > 0) {
      throw new VaultError(
        'forbidden',
        `The text to accept holds what looks like ${describeSecrets(added)} (${added.map((f) => f.masked).join(', ')}). Lucid never commits secrets: keep it in a secret manager and refer to it by name, then accept again; nothing changed.`,
        { path: item.target },
      );
    }
    if (now.bom && !content.startsWith('\uFEFF')) content = `\uFEFF${content}`;
  }
  const changes: FileChange[] = [
    { path: item.target, content, expectedHash: now.hash },
    { path: item.path, content: null, expectedHash: hash },
  ];
  try {
    const result = await vault.edit({
      actor,
      op: 'accept',
      path: item.target,
      reason: acceptReason(item, edited, input.reason),
      session: item.session ?? undefined,
      changes,
    });
    return { editId: result.editId, commit: result.commit, target: item.target, edited };
  } catch (error) {
    throw nothingChanged(error, item);
  }
}

/**
 * Rejects an inbox item: removes its note in one commit (op `reject`) made as the person, with
 * their reason (may be empty) and the proposing session's `Lucid-Session` trailer; the subject is
 * the target, so the changelog line reads "reject <target>". The proposing agent's next
 * start_session reports the rejection with the reason. Items with a problem can be rejected too.
 */
export function rejectInboxItem(vault: Vault, input: RejectInput): Promise<RejectResult> {
  return rejectInboxItemAs(vault, input);
}

/** {@link rejectInboxItem} as `person` (`human:<name>`), for the demo only (not exported from lib/vault/index.ts). */
export async function rejectInboxItemAs(vault: Vault, input: RejectInput, person?: string): Promise<RejectResult> {
  if (!input || typeof input.id !== 'string') throw new VaultError('invalid_input', 'Give the id of the inbox item to reject.', { field: 'id' });
  if (input.reason !== undefined && typeof input.reason !== 'string') throw new VaultError('invalid_input', 'reason must be text.', { field: 'reason' });
  const actor = deciderOf(vault, input, person);
  const { item, hash } = await findItem(vault, input.id);
  try {
    const result = await vault.edit({
      actor,
      op: 'reject',
      path: item.problem ? item.path : item.target,
      reason: safeReason(input.reason ?? ''),
      session: item.session ?? undefined,
      changes: [{ path: item.path, content: null, expectedHash: hash }],
    });
    return { editId: result.editId, commit: result.commit };
  } catch (error) {
    throw nothingChanged(error, item);
  }
}
