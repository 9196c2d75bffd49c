import { moltTrailer } from '../git/commit-message';
import { oneLine } from '../text';
import { VaultError, isVaultError } from '../errors';
import { composeNote, parseFrontmatter } from '../notes/frontmatter';
import { moltedText } from '../skills/molt';
import { formatDate, formatTime, slugify } from '../ids';
import { trimEndOf } from '../text';
import { describeSecrets, maskSecrets, type SecretFinding } from '../write/secrets';
import { requireOpenSession } from './sessions';
import type { Vault } from '../vault';
import type { Note } from '../notes/note';
import { blobOfNote, commitAs, observeWrites, readIfExists, safeReason, savedPersonSentence } from './common';
import { fileProposal, fileSecretProposal } from './inbox-ops';
import { INBOX_FLAGS, parseInput } from './contract';
import { moltSkillInputSchema, type MoltSkillInput, type MoltSkillResult } from './contract-write';

/**
 * Creates a skill (version 1; `trigger` required) or molts it (version + 1, `last_updated` today,
 * the body replaced, the trigger when given), committed with op `molt` and the `Lucid-Molt`
 * trailer. Archived skills are refused. If another molt landed since the skill was read, this
 * version goes to the inbox (flag `conflict`).
 */
export async function moltSkill(vault: Vault, given: MoltSkillInput): Promise<MoltSkillResult> {
  const input = parseInput(moltSkillInputSchema, given);
  const session = requireOpenSession(vault, input.session);
  const name = trimEndOf(slugify(input.name), '-');
  if (!name) throw new VaultError('invalid_input', 'name must contain letters or digits (it becomes skills/<name>.md).', { field: 'name' });
  const content = input.content;
  if (parseFrontmatter(content).parts.hasFrontmatter) {
    throw new VaultError('invalid_input', "content is the skill's text without front matter; pass the trigger as trigger.", { field: 'content' });
  }
  const reason = safeReason(input.reason);
  const trigger = input.trigger === undefined ? undefined : oneLine(input.trigger, 500);
  const path = `${vault.layout.skills}/${name}.md`;
  if (await readIfExists(vault, `${vault.layout.skillsArchive}/${name}.md`)) {
    throw new VaultError(
      'forbidden',
      `The skill ${name} is archived (${vault.layout.skillsArchive}/${name}.md); molt the skill it was merged into, or choose another name.`,
      { field: 'name' },
    );
  }
  const current = await readIfExists(vault, path);
  if (current?.problem) throw new VaultError('invalid_frontmatter', `${path} cannot be molted until a person fixes it: ${current.problemMessage}`);
  if (current && current.frontmatter.status === 'archived') {
    throw new VaultError(
      'forbidden',
      `The skill ${name} is archived${typeof current.frontmatter.merged_into === 'string' ? ` and merged into ${current.frontmatter.merged_into}` : ''}; molt that one instead.`,
      { field: 'name' },
    );
  }
  if (!current && (!trigger || trigger.trim() === '')) {
    throw new VaultError('invalid_input', `${path} is a new skill: give its trigger (when an agent should use it), e.g. "when CI fails intermittently".`, {
      field: 'trigger',
    });
  }
  const from = current ? Number(current.frontmatter.version) : 0;
  if (current && !(Number.isInteger(from) && from >= 1)) {
    throw new VaultError(
      'schema_violation',
      `${path} has no valid version (found ${JSON.stringify(current.frontmatter.version)}); a person must fix it first.`,
    );
  }
  const to = from + 1;
  const now = vault.clock();
  const maskedContent = maskSecrets(content);
  const maskedTrigger = trigger === undefined ? { text: undefined, findings: [] as SecretFinding[] } : maskSecrets(trigger);
  const compose = (body: string, trig: string | undefined, base: Note | null, version: number): string => {
    const text = body.startsWith('\n') ? body : `\n${body}`;
    const withEnd = text.endsWith('\n') ? text : `${text}\n`;
    if (!base) {
      return composeNote(
        { type: 'skill', name, version, trigger: trig, last_updated: formatDate(now), status: 'active', created: formatTime(now), updated: formatDate(now) },
        withEnd,
      );
    }
    return moltedText(base.text ?? '', withEnd, { version, today: formatDate(now), trigger: trig });
  };
  const secrets = [...maskedContent.findings, ...maskedTrigger.findings];
  if (secrets.length > 0) {
    const { path: inboxPath, result } = await fileSecretProposal(vault, session, {
      target: path,
      action: current ? 'update' : 'create',
      content: compose(maskedContent.text, maskedTrigger.text, current, to),
      reason,
      current,
      secrets,
    });
    return {
      status: 'possible_secret',
      path,
      name,
      version: from,
      previous_version: from,
      edit_id: result.editId,
      commit: result.commit,
      hash: current?.hash ?? null,
      inbox_path: inboxPath,
      message: `The skill was not molted: it held what looks like ${describeSecrets(secrets)}, and secrets are never committed. It is in the inbox at ${inboxPath}, masked (flag: possible-secret).`,
    };
  }
  const text = compose(content, trigger, current, to);
  vault.validateText(path, text);
  try {
    const result = await commitAs(vault, session, {
      op: 'molt',
      path,
      reason,
      changes: [{ path, content: text, expectedHash: current ? current.hash : null }],
      trailers: [moltTrailer(name, from, to)],
    });
    observeWrites(vault, session, [path], result.editId);
    return {
      status: 'written',
      path,
      name,
      version: to,
      previous_version: from,
      edit_id: result.editId,
      commit: result.commit,
      hash: result.hashes[path] ?? null,
      inbox_path: null,
      message: `${current ? 'Molted' : 'Created'} ${path}: version ${to} (commit ${result.commit.slice(0, 7)}).${savedPersonSentence(vault, result)}`,
    };
  } catch (error) {
    if (!isVaultError(error, 'conflict')) throw error;
    const now2 = await readIfExists(vault, path);
    if (!now2) throw error;
    const { path: inboxPath, result } = await fileProposal(vault, session, {
      target: path,
      action: 'update',
      content: text,
      reason,
      flag: INBOX_FLAGS.conflict,
      baseBlob: current ? blobOfNote(current) : undefined,
      explanation: `${path} changed while ${session.actor} molted it, so Lucid did not overwrite it. This is ${session.actor}'s version ${to}: compare and merge.`,
    });
    return {
      status: 'conflict',
      path,
      name,
      version: Number(now2.frontmatter.version) || from,
      previous_version: from,
      edit_id: result.editId,
      commit: result.commit,
      hash: now2.hash,
      inbox_path: inboxPath,
      message: `${path} changed while you molted it; nothing was overwritten. Your version is in the inbox at ${inboxPath} (flag: conflict). read_note ${path} and molt again from the current version.`,
    };
  }
}
