import { VaultError, isVaultError } from '../errors';
import { blobId, runGit } from '../git/repo';
import { decodeNoteBytes, hashBytes } from '../notes/frontmatter';
import type { Vault } from '../vault';
import { appendToText } from '../agents/write-ops';
import { threeWayMerge, unifiedDiff } from './merge';
import { inboxItemPath, readInboxItem } from './queue';
import type { InboxItem, InboxItemDetail } from './types';

/** The target of an item as it is on disk now. */
export interface TargetNow {
  /** The text (byte-order mark removed), or null when the file is absent. */
  text: string | null;
  bom: boolean;
  hash: string | null;
  blob: string | null;
}

/** Reads the target now; an absent file is all nulls, a file that is not UTF-8 text is `binary`. */
export async function readTarget(vault: Vault, target: string): Promise<TargetNow> {
  let bytes: Buffer;
  try {
    bytes = await vault.readFileBytes(target);
  } catch (error) {
    if (isVaultError(error, 'not_found')) return { text: null, bom: false, hash: null, blob: null };
    throw error;
  }
  const decoded = decodeNoteBytes(bytes);
  if (!decoded.ok) throw new VaultError('binary', `${target} is not text (${decoded.message}); accept or reject its proposal in a text editor and git.`);
  return { text: decoded.text, bom: decoded.bom, hash: hashBytes(bytes), blob: blobId(bytes) };
}

/** The text of a git blob, or null when the repository lacks it (or it is not text). */
async function blobText(vault: Vault, blob: string): Promise<string | null> {
  try {
    const text = await runGit(vault.repo, ['cat-file', 'blob', blob]);
    return text.replace(/^\uFEFF/, '');
  } catch {
    return null;
  }
}

/**
 * Whether the target moved away from what the proposal was based on: its blob differs from
 * `base_blob`, or, for a create, a note now exists at the target. An item without `base_blob`
 * whose target exists counts as changed: nothing says what the agent saw, so it is never applied
 * blindly (the person confirms the merge against an empty base, or the hash for a delete).
 */
export function targetChangedSince(item: InboxItem, now: TargetNow): boolean {
  if (item.action === 'create' || item.baseBlob === null) return now.text !== null;
  return now.blob !== item.baseBlob;
}

/** What a plain accept writes to the target (null for delete, and for an item with a problem). */
export function plainResult(item: InboxItem, current: string | null): string | null {
  if (item.problem || item.proposal === null) return null;
  if (item.action === 'append') return current === null ? item.proposal : appendToText(current, item.proposal);
  return item.proposal;
}

/** The item with `id` read fresh from disk; `not_found` says whether it was accepted or rejected meanwhile. */
export async function findItem(vault: Vault, id: string): Promise<{ item: InboxItem; hash: string }> {
  const path = inboxItemPath(vault, id);
  try {
    return await readInboxItem(vault, path);
  } catch (error) {
    if (!isVaultError(error, 'not_found')) throw error;
    throw new VaultError('not_found', `${await goneSentence(vault, path)} Run lucid inbox list (or reload the inbox) for the items that wait.`, { path });
  }
}

/** Why an item is no longer in the inbox, from the last commit that touched it. */
async function goneSentence(vault: Vault, path: string): Promise<string> {
  const last = await vault.history(path, 1).catch(() => []);
  const commit = last[0];
  if (!commit) return `There is no inbox item ${path}.`;
  const who = commit.actor ?? `human:${commit.author}`;
  const when = new Date(commit.time * 1000).toISOString();
  if (commit.op === 'accept') return `${path} was already accepted by ${who} at ${when} (commit ${commit.sha.slice(0, 7)}).`;
  if (commit.op === 'reject') return `${path} was already rejected by ${who} at ${when} (commit ${commit.sha.slice(0, 7)}).`;
  return `${path} is no longer in the inbox: the last commit that touched it is ${commit.sha.slice(0, 7)} by ${who} at ${when}.`;
}

/**
 * One inbox item with what accepting it would do: the target now (text and sha256, to pass back as
 * `expectedTargetHash`), the text a plain accept writes and its diff against the target now, and,
 * when the target changed since the proposal (`base_blob`), the person's change, the agent's change
 * and their three-way merge (with conflict markers where both changed the same lines). A create
 * whose target exists by now is merged with an empty base; an append's merge is the section added
 * at the end of the note as it is now. `not_found` when the item is gone.
 */
export async function showInboxItem(vault: Vault, id: string): Promise<InboxItemDetail> {
  const { item } = await findItem(vault, id);
  const now = item.problem ? { text: null, bom: false, hash: null, blob: null } : await readTarget(vault, item.target);
  const current = now.text;
  const base = item.baseBlob ? await blobText(vault, item.baseBlob) : null;
  const targetChanged = !item.problem && targetChangedSince(item, now);
  const result = plainResult(item, current);
  const diff =
    item.action === 'delete' && !item.problem ? unifiedDiff(item.target, current ?? '', '') : unifiedDiff(item.target, current ?? '', result ?? current ?? '');
  let merge: InboxItemDetail['merge'] = null;
  if (targetChanged && item.action !== 'delete' && item.proposal !== null && current !== null) {
    const from = base ?? '';
    const agentSide = item.action === 'append' ? appendToText(from, item.proposal) : item.proposal;
    // An append adds a section at the end of whatever the note is now (the append op cannot conflict).
    const merged =
      item.action === 'append' ? { text: appendToText(current, item.proposal), conflicts: 0 } : await threeWayMerge(vault, from, current, agentSide);
    merge = { ...merged, personDiff: unifiedDiff(item.target, from, current), agentDiff: unifiedDiff(item.target, from, agentSide) };
  }
  return { ...item, current, currentHash: now.hash, base, targetChanged, result, diff, merge };
}
