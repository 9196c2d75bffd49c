import type { ProposalAction } from '../notes/schema';
import { VaultError, isVaultError } from '../errors';
import { blobId } from '../git/repo';
import { inboxNotePath, inboxNoteText, noteLink } from '../notes/note-formats';
import { basenameOf, normalizeVaultPath } from '../notes/paths';
import { assertNoSecret, describeSecrets, maskSecrets, type SecretFinding } from '../write/secrets';
import { observationTime, observeSession, requireOpenSession, type OpenSession } from './sessions';
import type { Vault } from '../vault';
import type { EditResult } from '../write/edit-types';
import type { Note } from '../notes/note';
import { blobOfNote, commitAs, folderOf, readIfExists, safeReason } from './common';
import { INBOX_FLAGS, parseInput, type InboxFlag } from './contract';
import { proposeInputSchema, type ProposeInput, type ProposeResult } from './contract-write';

interface ProposalSpec {
  target: string;
  action: ProposalAction;
  content: string;
  reason: string;
  confidence?: number;
  flag?: InboxFlag;
  baseBlob?: string;
  explanation: string;
}

/** Writes one inbox proposal (a fresh name when another took it in the same second) and records it. */
export async function fileProposal(vault: Vault, session: OpenSession, spec: ProposalSpec): Promise<{ path: string; result: EditResult }> {
  for (let attempt = 1; attempt <= 50; attempt += 1) {
    const now = vault.clock();
    const path = inboxNotePath(vault.layout.inbox, now, basenameOf(spec.target), vault.ids);
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
export function fileSecretProposal(
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
    explanation: `${secretExplanation(session, spec.target, spec.current !== null, spec.secrets)}${spec.also ? ` ${spec.also}` : ''}`,
  });
}

function secretExplanation(session: OpenSession, target: string, exists: boolean, findings: SecretFinding[]): string {
  return `${session.actor} wrote this for ${targetRef(target, exists)}, but it held what looks like ${describeSecrets(findings)}. Lucid never commits secrets, so it masked ${findings.length === 1 ? 'it' : 'them'} and put the change here for a person to review. Keep the secret in a secret manager and refer to it by name.`;
}

/**
 * The target as the explanation names it: a link to a note that exists, the path as code for one a create
 * would make, so that a pending proposal is never reported as a broken link.
 */
function targetRef(target: string, exists: boolean): string {
  if (exists) return noteLink(target);
  const longest = Math.max(0, ...[...target.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${target} ${fence}` : `${fence}${target}${fence}`;
}

/**
 * Sends a proposal to the inbox for a person to accept, edit or reject (nothing in the inbox is
 * applied without a person). `update` proposals hold the whole proposed note and are checked
 * against its type's rules; update, append and delete record the target's blob as `base_blob`.
 * Content that looks like a secret is masked and the proposal flagged `possible-secret`.
 */
export async function proposeToInbox(vault: Vault, given: ProposeInput): Promise<ProposeResult> {
  const input = parseInput(proposeInputSchema, given);
  const session = requireOpenSession(vault, input.session);
  const target = normalizeVaultPath(input.target, { forWrite: true });
  // The target names the proposal's file and goes into its commit message and changelog line.
  assertNoSecret('inbox target', target);
  const reason = safeReason(input.reason);
  const content = input.content;
  if (folderOf(vault, target) === 'inbox') throw new VaultError('forbidden', 'A proposal cannot target the inbox itself.');
  const current = target.toLowerCase().endsWith('.md') ? await readIfExists(vault, target) : null;
  let baseBlob: string | undefined;
  if (input.action !== 'create') {
    let bytes: Buffer;
    try {
      bytes = await vault.readFileBytes(target);
    } catch (error) {
      if (isVaultError(error, 'not_found')) {
        throw new VaultError(
          'not_found',
          `${target} does not exist, so it cannot be ${input.action === 'delete' ? 'deleted' : 'changed'}; propose action create instead.`,
          { field: 'target' },
        );
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
    ? secretExplanation(session, target, input.action !== 'create', masked.findings)
    : `${session.actor} proposes to ${input.action} ${targetRef(target, input.action !== 'create')}${confidence}: ${reason}`;
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
