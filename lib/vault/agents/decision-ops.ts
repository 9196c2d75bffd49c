import { oneLine } from '../text';
import { DECISION_TRAILER } from '../git/commit-message';
import { VaultError, isVaultError } from '../errors';
import { composeNote, setFrontmatterFields, type FrontmatterData } from '../notes/frontmatter';
import { formatDate, formatTime, slugify } from '../ids';
import { noteLink } from '../notes/note-formats';
import { basenameOf } from '../notes/paths';
import { describeSecrets, maskSecrets } from '../write/secrets';
import { requireOpenSession } from './sessions';
import { matchProject, notePathFromInput, projectNames, resolveLinkValue } from './session-context';
import type { Vault } from '../vault';
import type { EditRequest } from '../write/edit-types';
import type { Note } from '../notes/note';
import { commitAs, observeWrites, readIfExists, safeReason, savedPersonSentence } from './common';
import { fileSecretProposal } from './inbox-ops';
import { parseInput } from './contract';
import { recordDecisionInputSchema, type RecordDecisionInput, type RecordDecisionResult } from './contract-write';

/**
 * Records a decision as `decisions/<project>-<title>.md` (type decision, status accepted, today's
 * date, the project linked). With `replaces`, the replaced decision gets `status: superseded` and
 * `superseded_by` in the same commit.
 */
export async function recordDecision(vault: Vault, given: RecordDecisionInput): Promise<RecordDecisionResult> {
  const input = parseInput(recordDecisionInputSchema, given);
  const session = requireOpenSession(vault, input.session);
  const notes = await vault.listNotes();
  const project = matchProject(notes, { project: input.project });
  if (!project) {
    throw new VaultError(
      'not_found',
      `No project note matches "${input.project}". Known projects: ${projectNames(notes).join(', ') || 'none'}. Write the project note first (write_note ${vault.layout.projects}/<name>.md).`,
      { field: 'project' },
    );
  }
  const title = oneLine(input.title, 200);
  const decision = input.decision.trim();
  const rationale = input.rationale.trim();
  const projectSlug = slugify(String(project.note.frontmatter.name ?? basenameOf(project.note.path))) || slugify(basenameOf(project.note.path));
  const secrets = [title, decision, rationale].flatMap((t) => maskSecrets(t).findings);
  const mask = (t: string) => maskSecrets(t).text;
  const titleSlug = slugify(mask(title));
  if (!titleSlug) throw new VaultError('invalid_input', 'title must contain letters or digits.', { field: 'title' });
  const path = `${vault.layout.decisions}/${titleSlug.startsWith(`${projectSlug}-`) ? titleSlug : `${projectSlug}-${titleSlug}`}.md`;

  let replaced: Note | null = null;
  if (input.replaces) {
    const { resolver } = await vault.linkGraph();
    const given = input.replaces.trim();
    const asLink = resolveLinkValue(resolver, given.startsWith('[[') ? given : `[[${given.replace(/\.md$/i, '')}]]`, path);
    replaced = notes.find((n) => n.path === (asLink ?? notePathFromInput(given))) ?? null;
    if (replaced?.lucidType !== 'decision') {
      throw new VaultError(
        'not_found',
        `replaces: no decision note "${given}". Pass the path read_note or search_notes gave (e.g. ${vault.layout.decisions}/...).`,
        { field: 'replaces' },
      );
    }
    if (replaced.frontmatter.status === 'superseded') {
      throw new VaultError(
        'conflict',
        `${replaced.path} is already superseded${typeof replaced.frontmatter.superseded_by === 'string' ? ` by ${replaced.frontmatter.superseded_by}` : ''}; replace the current decision instead.`,
        { field: 'replaces' },
      );
    }
    if (replaced.path === path)
      throw new VaultError('invalid_input', 'A decision cannot replace itself; give the new decision another title.', { field: 'title' });
  }
  const now = vault.clock();
  const data: FrontmatterData = {
    type: 'decision',
    date: formatDate(now),
    project: noteLink(project.note.path),
    status: 'accepted',
    replaces: replaced ? noteLink(replaced.path) : undefined,
    created: formatTime(now),
    updated: formatDate(now),
  };
  const lines = [`# ${mask(title)}`, '', '## Decision', '', mask(decision), '', '## Why', '', mask(rationale), ''];
  if (replaced) lines.push(`Replaces ${noteLink(replaced.path)}.`, '');
  const text = composeNote(data, lines.join('\n'));
  const reason = safeReason(`${mask(title)}${replaced ? ` (supersedes ${basenameOf(replaced.path)})` : ''}`);

  if (secrets.length > 0) {
    const { path: inboxPath, result } = await fileSecretProposal(vault, session, {
      target: path,
      action: 'create',
      content: text,
      reason,
      current: null,
      secrets,
      also: replaced ? `It would also mark ${noteLink(replaced.path)} as superseded.` : undefined,
    });
    return {
      status: 'possible_secret',
      path,
      superseded: null,
      edit_id: result.editId,
      commit: result.commit,
      hash: null,
      inbox_path: inboxPath,
      message: `The decision was not recorded: it held what looks like ${describeSecrets(secrets)}, and secrets are never committed. It is in the inbox at ${inboxPath}, masked (flag: possible-secret). Record it again without the secret.`,
    };
  }
  vault.validateText(path, text);
  for (let attempt = 1; ; attempt += 1) {
    const changes: EditRequest['changes'] = [{ path, content: text, expectedHash: null }];
    if (replaced) {
      const current = await vault.readNote(replaced.path);
      if (current.frontmatter.status === 'superseded') throw new VaultError('conflict', `${replaced.path} was superseded meanwhile; read it again.`);
      changes.push({
        path: replaced.path,
        content: setFrontmatterFields(current.text ?? '', { status: 'superseded', superseded_by: noteLink(path), updated: formatDate(now) }),
        expectedHash: current.hash,
      });
    }
    try {
      const result = await commitAs(vault, session, { op: 'create', path, reason, changes, trailers: [[...DECISION_TRAILER]] });
      observeWrites(
        vault,
        session,
        changes.map((c) => c.path),
        result.editId,
      );
      return {
        status: 'written',
        path,
        superseded: replaced?.path ?? null,
        edit_id: result.editId,
        commit: result.commit,
        hash: result.hashes[path] ?? null,
        inbox_path: null,
        message: `Recorded ${path}${replaced ? `; ${replaced.path} is now superseded by it` : ''} (one commit, ${result.commit.slice(0, 7)}).${savedPersonSentence(vault, result)}`,
      };
    } catch (error) {
      if (!isVaultError(error, 'conflict')) throw error;
      if (await readIfExists(vault, path)) {
        throw new VaultError('conflict', `${path} already exists. Give this decision another title, or pass replaces: "${path}" to supersede it.`, {
          field: 'title',
        });
      }
      if (attempt >= 20) throw error;
    }
  }
}
