import { moltTrailer } from '../git/commit-message';
import { isVaultError, VaultError } from '../errors';
import { oneLine } from '../text';
import { formatDate } from '../ids';
import { parseFrontmatter, splitNote } from '../notes/frontmatter';
import { basenameOf, normalizeNotePath } from '../notes/paths';
import type { Vault } from '../vault';
import { skillHistory, skillVersionText, versionAt } from './history';
import { moltedText } from './molt';
import { isArchivedSkill } from './stale';

/** What a restore asks for. */
export interface RestoreSkillInput {
  /** The skill's vault path now (`skills/<name>.md`). */
  path: string;
  /** The commit of the version to restore (one of {@link skillHistory}'s versions). */
  commit: string;
  /** The person's reason, required: it becomes the molt's reason. */
  reason: string;
  /**
   * sha256 of the skill as the person saw it: when an agent molted it since, the restore is a
   * `conflict` and nothing changes. Leave it out only where nobody looked first (never from a page).
   */
  expectedHash?: string;
  /** Who restores it; the person at this vault by default. */
  actor?: string;
}

/** What a restore made. */
export interface RestoreSkillResult {
  path: string;
  /** The new version. */
  version: number;
  /** The version number the restored text had (null when that text had none). */
  restored: number | null;
  commit: string;
  editId: string;
  hash: string | null;
}

/**
 * Restores an earlier version of a skill as a new molt (VAULT-FORMAT: a restore is a molt): the
 * skill's front matter now, with the earlier version's trigger and its body, `version` raised by
 * one, `last_updated` and `updated` today; op `molt`, the `Lucid-Molt` trailer, the person's
 * reason and which version it brought back. With `expectedHash`, a molt that landed since the
 * person looked is a `conflict` and nothing is written. Archived skills and skills whose front
 * matter a person must fix first are refused; so is a restore that would change nothing.
 */
export async function restoreSkillVersion(vault: Vault, input: RestoreSkillInput): Promise<RestoreSkillResult> {
  const path = normalizeNotePath(input.path);
  const reason = oneLine(typeof input.reason === 'string' ? input.reason : '', 300);
  if (!reason) throw new VaultError('invalid_input', 'Say why you restore this version: the reason goes into the molt and the changelog.', { field: 'reason' });
  if (!/^[0-9a-f]{40}$/.test(input.commit)) throw new VaultError('invalid_input', 'Name the version by its full 40-character commit id.', { field: 'commit' });
  const current = await vault.readNote(path);
  if (current.problem || current.text === null) {
    throw new VaultError('invalid_frontmatter', `${path} cannot be molted until a person fixes it: ${current.problemMessage ?? current.problem}`);
  }
  if (isArchivedSkill(vault, path, current.frontmatter)) {
    throw new VaultError(
      'forbidden',
      `${path} is archived; restore a version of the skill it was merged into, or move it back to ${vault.layout.skills}/ first.`,
    );
  }
  const history = await skillHistory(vault, path);
  const latest = history.versions[0];
  const changedBy = latest ? ` (last by ${latest.actor}${latest.version !== null ? `, now version ${latest.version}` : ''})` : '';
  if (input.expectedHash !== undefined && input.expectedHash !== current.hash) {
    throw new VaultError(
      'conflict',
      `${path} changed since you opened it${changedBy}; nothing was restored. Reload to see its new version, then restore again.`,
      {
        path,
      },
    );
  }
  const from = Number(current.frontmatter.version);
  if (!Number.isInteger(from) || from < 1) {
    throw new VaultError(
      'schema_violation',
      `${path} has no valid version (found ${JSON.stringify(current.frontmatter.version)}); a person must fix it first.`,
    );
  }
  const target = versionAt(history, input.commit);
  const old = await skillVersionText(vault, target);
  const parsed = parseFrontmatter(old);
  const trigger = parsed.ok && typeof parsed.data.trigger === 'string' ? parsed.data.trigger : undefined;
  const body = splitNote(old).body;
  const to = from + 1;
  const text = moltedText(current.text, body, { version: to, today: formatDate(vault.clock()), trigger });
  if (splitNote(current.text).body === body && (trigger === undefined || trigger === current.frontmatter.trigger)) {
    throw new VaultError('invalid_input', `${path} already has the text of that version; nothing to restore.`, { field: 'commit' });
  }
  const name = basenameOf(path);
  const restored = `restored version ${target.version ?? '?'} (${target.sha.slice(0, 7)})`;
  try {
    const result = await vault.edit({
      actor: input.actor ?? vault.person,
      op: 'molt',
      path,
      reason: `${reason} (${restored})`,
      changes: [{ path, content: text, expectedHash: input.expectedHash ?? current.hash }],
      trailers: [moltTrailer(name, from, to)],
    });
    return { path, version: to, restored: target.version, commit: result.commit, editId: result.editId, hash: result.hashes[path] ?? null };
  } catch (error) {
    if (!isVaultError(error, 'conflict')) throw error;
    throw new VaultError(
      'conflict',
      `${path} changed while you restored it (another molt landed); nothing was restored. Reload to see its new version, then restore again.`,
      {
        path,
      },
    );
  }
}
