import { oneLine } from '../text';
import { VaultError, isVaultError } from '../errors';
import { hashBytes } from '../notes/frontmatter';
import { isUnderFolded } from '../notes/protected';
import { blobId, showFile } from '../git/repo';
import { slugify } from '../ids';
import { trimEndOf } from '../text';
import { maskSecrets } from '../write/secrets';
import { observationTime, observeSession, type OpenSession } from './sessions';
import type { Vault } from '../vault';
import type { EditRequest, EditResult } from '../write/edit-types';
import type { Note } from '../notes/note';

/** The slug of an agent's name (`Claude Code` → `claude-code`); `agent:` in front is ignored. */
export function agentSlug(agent: string): string {
  const slug = trimEndOf(slugify(agent.replace(/^agent:/i, '')), '-');
  if (!slug) throw new VaultError('invalid_input', 'agent must contain letters or digits, e.g. "claude-code".', { field: 'agent' });
  return slug;
}

export async function commitAs(vault: Vault, session: OpenSession, request: Omit<EditRequest, 'actor' | 'session'>): Promise<EditResult> {
  return vault.edit({ ...request, actor: session.actor, session: session.id });
}

export function observeWrites(vault: Vault, session: OpenSession, paths: string[], editId: string): void {
  const at = observationTime(vault);
  for (const path of paths) observeSession(vault, session.id, { kind: 'write', path, at, edit: editId });
}

export async function readIfExists(vault: Vault, path: string): Promise<Note | null> {
  try {
    return await vault.readNote(path);
  } catch (error) {
    if (isVaultError(error, 'not_found')) return null;
    throw error;
  }
}

export function blobOfText(text: string): string {
  return blobId(Buffer.from(text, 'utf8'));
}

/** The git blob id of a note's file as it is on disk (its byte-order mark included). */
export function blobOfNote(note: Note): string | undefined {
  return note.text === null ? undefined : blobOfText(`${note.bom ? '\uFEFF' : ''}${note.text}`);
}

/** The text of the version of `path` whose sha256 is `sha256`: the file now, or one of its last commits. */
export async function versionWithHash(vault: Vault, path: string, sha256: string): Promise<string | null> {
  for (const commit of await vault.history(path, 30)) {
    const text = await showFile(vault.repo, commit.sha, path);
    if (text !== null && hashBytes(Buffer.from(text, 'utf8')) === sha256) return text;
  }
  return null;
}

/** Masks secrets in a one-line reason (it becomes a commit message and a changelog line). */
export function safeReason(reason: string): string {
  return maskSecrets(oneLine(reason)).text;
}

/** The layout folder a path is in, compared as macOS and Windows compare names (`INBOX/x.md` is in the inbox there). */
export function folderOf(vault: Vault, path: string): 'inbox' | 'sessions' | 'skills' | null {
  const under = (folder: string) => isUnderFolded(path, folder);
  if (under(vault.layout.inbox)) return 'inbox';
  if (under(vault.layout.sessions)) return 'sessions';
  if (under(vault.layout.skills)) return 'skills';
  return null;
}

/**
 * The sentence that tells an agent its write first committed a person's uncommitted edits as theirs
 * (empty when it did not), naming the files, so the agent reads what the person changed.
 */
export function savedPersonSentence(vault: Vault, result: EditResult): string {
  if (!result.savedPersonCommit) return '';
  const paths = result.savedPersonPaths;
  if (paths.length === 0) return '';
  const files = paths.length === 1 ? paths[0] : `${paths.slice(0, -1).join(', ')} and ${paths[paths.length - 1]}`;
  return ` ${files} had changes ${vault.person} saved and had not committed: Lucid committed them as theirs first (commit ${result.savedPersonCommit.slice(0, 7)}), then applied yours on top. read_note ${paths.length === 1 ? paths[0] : 'each'} to see what they changed; their version is the instruction.`;
}
