import { isChangelogPath } from '../notes/layout';
import { VaultError, isVaultError } from '../errors';
import { formatDate } from '../ids';
import { editFrontmatter } from '../notes/frontmatter';
import { planMove, type MoveBlock, type PlanNote } from '../notes/move-plan';
import { assertAgentWritable, type Note } from '../notes/note';
import { foldName, normalizeNotePath } from '../notes/paths';
import { assertProtectedPath, isUnderFolded } from '../notes/protected';
import { assertNoSecret, describeSecrets, refusedSecret } from '../write/secrets';
import type { FileChange } from '../write/edit-types';
import type { Vault } from '../vault';
import { commitAs, folderOf, observeWrites, readIfExists, safeReason, savedPersonSentence } from './common';
import { parseInput } from './contract';
import { moveNoteInputSchema, type MoveNoteInput, type MoveNoteResult } from './contract-write';
import { requireOpenSession, type OpenSession } from './sessions';
import { withBom as withBomOf } from './write-shared';

/** Characters a file name cannot have when links must still reach it: a wikilink ends its target at them. */
const NOT_LINKABLE = /[#|^[\]]/;

/**
 * Moves (renames) a note for an agent, in one commit through the write path: the note's bytes go to
 * `to` (its own links written again where its new folder changes what they reach), `from` is
 * deleted, and every note with a link whose resolution the move changes is rewritten so that every
 * link of the vault still reaches the note it reached before: links to the moved note, and links to
 * other notes that its new name or folder would take over (see notes/move-plan.ts). The commit's
 * op is `update` on `to`, its reason saying where the note came from; git sees a rename, so the
 * note's history follows it. Refused, with nothing changed: `from` missing or unreadable, `to`
 * existing (named with its hash), either in a place Lucid reserves (inbox, sessions, skills, the
 * changelog, AGENTS.md, lucid.json) or not a note path, a proposal in the inbox about `from`, and a
 * linking note that cannot be parsed or that the agent may not rewrite (named, with why).
 */
export async function moveNote(vault: Vault, given: MoveNoteInput): Promise<MoveNoteResult> {
  const input = parseInput(moveNoteInputSchema, given);
  const session = requireOpenSession(vault, input.session);
  const from = pathOf(input.from, 'from');
  const to = pathOf(input.to, 'to');
  assertNoSecret('path', to);
  if (from === to) throw new VaultError('invalid_input', `from and to are the same path (${from}); nothing to move.`, { field: 'to' });
  if (fold(from) === fold(to)) {
    throw new VaultError(
      'invalid_path',
      `${to} differs from ${from} only in case or Unicode form: on macOS and Windows that is the same file, so Lucid does not rename it. Choose another name.`,
      { field: 'to' },
    );
  }
  assertMovable(vault, session, from, 'from');
  assertMovable(vault, session, to, 'to');
  const bad = to.split('/').find((segment) => NOT_LINKABLE.test(segment));
  if (bad !== undefined) {
    throw new VaultError('invalid_path', `"${bad}" holds # | ^ [ or ], which end a link's target: no link could reach ${to}. Choose a name without them.`, {
      field: 'to',
    });
  }

  const note = await readIfExists(vault, from);
  if (!note) throw new VaultError('not_found', `No note ${from} to move. search_notes or read_note to find its path.`, { field: 'from' });
  assertAgentWritable(note);
  if (note.lucidType && note.violations.length > 0) {
    throw new VaultError(
      'schema_violation',
      `${from} breaks the ${note.lucidType} rules (${note.violations.map((v) => v.message).join('; ')}); Lucid rewrites no such note until a person fixes it, so it does not move it either.`,
      { field: 'from', violations: note.violations },
    );
  }
  const existing = await readIfExists(vault, to);
  if (existing) {
    throw new VaultError(
      'conflict',
      `${to} already exists (hash ${existing.hash}); move_note never overwrites a note. Choose another path, or read_note ${to} and merge the two with write_note.`,
      { field: 'to', path: to, currentHash: existing.hash },
    );
  }

  const files = await vault.listFiles();
  const notes = await vault.listNotes(files);
  const proposals = notes.filter((n) => isUnderFolded(n.path, vault.layout.inbox));
  const pending = proposals.filter((n) => n.frontmatter.target === from).map((n) => n.path);
  if (pending.length > 0) {
    throw new VaultError(
      'conflict',
      `${pending.join(', ')} ${pending.length === 1 ? 'is a proposal' : 'are proposals'} about ${from} waiting in the inbox; moving the note would leave ${pending.length === 1 ? 'it' : 'them'} pointing at nothing. Move it after a person accepts or rejects ${pending.length === 1 ? 'it' : 'them'}.`,
      { field: 'from', paths: pending },
    );
  }
  // A proposal to create or change a note at `to`, once accepted, would land on the moved note.
  const waiting = proposals.filter((n) => n.frontmatter.target === to).map((n) => n.path);
  if (waiting.length > 0) {
    throw new VaultError(
      'conflict',
      `${waiting.join(', ')} ${waiting.length === 1 ? 'is a proposal' : 'are proposals'} about ${to} waiting in the inbox; a note moved there would be what ${waiting.length === 1 ? 'it' : 'they'} change once accepted. Choose another path, or move it after a person accepts or rejects ${waiting.length === 1 ? 'it' : 'them'}.`,
      { field: 'to', paths: waiting },
    );
  }
  const linking = notes.filter((n) => !isChangelogPath(vault.layout, n.path));
  const plan = planMove({ files: files.map((f) => f.path), notes: await planNotes(vault, linking), from, to });
  const byPath = new Map(linking.map((n) => [n.path, n]));
  const rewritten = [...plan.texts.keys()].filter((path) => path !== from);
  for (const path of rewritten) {
    const why = unwritable(vault, session, byPath.get(path));
    if (why) plan.blocked.push({ path, ...why });
  }
  if (plan.blocked.length > 0) throw blockedError(from, to, plan.blocked);

  // VAULT-FORMAT: Lucid sets `updated` on notes of its own types that it writes; a note not of its types gets no field.
  const today = formatDate(vault.clock());
  const stamped = (n: Note, text: string) => (n.lucidType ? editFrontmatter(text, { updated: today }).text : text);
  const withBom = (n: Note, text: string) => withBomOf(n, { text, frontmatter: {} }).text;
  const movedText = plan.texts.get(from) ?? note.text ?? '';
  const changes: FileChange[] = [
    // The moved note is stamped only when its links were rewritten: its bytes otherwise stay as they were.
    { path: to, content: withBom(note, movedText === note.text ? movedText : stamped(note, movedText)), expectedHash: null },
    { path: from, content: null, expectedHash: note.hash },
    ...rewritten.map((path) => {
      const linker = byPath.get(path) as Note;
      return { path, content: withBom(linker, stamped(linker, plan.texts.get(path) as string)), expectedHash: linker.hash };
    }),
  ];
  const reason = safeReason(input.reason);
  let result: Awaited<ReturnType<typeof commitAs>>;
  try {
    result = await commitAs(vault, session, { op: 'update', path: to, reason: `moved from ${from}: ${reason}`, changes });
  } catch (error) {
    const refused = refusedSecret(error);
    if (refused?.where === 'edit') {
      throw new VaultError(
        'forbidden',
        `${refused.path === to ? from : refused.path} holds what looks like ${describeSecrets(refused.findings)}, and Lucid never commits a secret, not under a new name either; nothing was moved. Ask a person to take the secret out (keep it in a secret manager) first.`,
        { path: refused.path },
      );
    }
    if (isVaultError(error, 'conflict')) {
      throw new VaultError(
        'conflict',
        `${error.message} Nothing was moved; call move_note again to plan the move on the notes as they are now.`,
        error.details,
      );
    }
    throw error;
  }
  const paths = [to, ...rewritten];
  observeWrites(vault, session, paths, result.editId);
  const counts = new Map<string, number>();
  for (const change of plan.changes) if (change.path !== to) counts.set(change.path, (counts.get(change.path) ?? 0) + 1);
  const captured = plan.changes.filter((c) => c.captured).length;
  const links = plan.changes.filter((c) => c.path !== to).length;
  const filled = plan.newlyResolved.length;
  return {
    from,
    to,
    edit_id: result.editId,
    commit: result.commit,
    hash: result.hashes[to] ?? null,
    rewritten: [...counts].map(([path, n]) => ({ path: path === from ? to : path, links: n })),
    message:
      `Moved ${from} to ${to} (edit ${result.editId}, commit ${result.commit.slice(0, 7)})` +
      (links > 0
        ? `, rewriting ${links} link${links === 1 ? '' : 's'} in ${counts.size} note${counts.size === 1 ? '' : 's'}`
        : ', no other note needed a change') +
      (captured > 0 ? ` (${captured} of them led to other notes the new name would have taken over, and still do)` : '') +
      '.' +
      (filled > 0 ? ` ${filled} link${filled === 1 ? '' : 's'} that led nowhere now reach${filled === 1 ? 'es' : ''} a note (as in Obsidian).` : '') +
      savedPersonSentence(vault, result),
  };
}

function pathOf(value: string, field: 'from' | 'to'): string {
  try {
    return normalizeNotePath(value, { forWrite: true });
  } catch (error) {
    if (isVaultError(error)) throw new VaultError(error.code, `${field}: ${error.message}`, { ...error.details, field });
    throw error;
  }
}

function fold(path: string): string {
  return path.split('/').map(foldName).join('/');
}

/** Refuses a place Lucid reserves (as writes do), and the places other tools write: inbox, sessions, skills. */
function assertMovable(vault: Vault, session: OpenSession, path: string, field: 'from' | 'to'): void {
  const folder = folderOf(vault, path);
  const tool = folder === 'inbox' ? 'propose_to_inbox and a person' : folder === 'sessions' ? 'end_session' : 'molt_skill';
  if (folder)
    throw new VaultError('forbidden', `${path} is in ${vault.layout[folder]}/, which only ${tool} writes: move_note neither moves notes there nor out of it.`, {
      field,
    });
  const layout = vault.layout;
  if (isUnderFolded(path, layout.changelogArchive)) {
    throw new VaultError('forbidden', `${path} is in ${layout.changelogArchive}/, where Lucid keeps the changelog's earlier months; choose another place.`, {
      field,
    });
  }
  try {
    assertProtectedPath(layout, session.actor, 'update', path);
  } catch (error) {
    if (isVaultError(error)) throw new VaultError(error.code, error.message, { ...error.details, field });
    throw error;
  }
}

/**
 * The notes as the planner reads them. A note Lucid could not decode (invalid UTF-8, or binary: a NUL
 * byte) is read again as lossy text,
 * only to see whether it names the moved note (then the move is refused rather than break its link).
 */
async function planNotes(vault: Vault, notes: readonly Note[]): Promise<PlanNote[]> {
  const out: PlanNote[] = [];
  for (const n of notes) {
    let text = n.text;
    if (text === null && (n.problem === 'invalid_utf8' || n.problem === 'binary'))
      text = (await vault.readFileBytes(n.path).catch(() => null))?.toString('utf8') ?? null;
    out.push({ path: n.path, text, links: n.links, problem: n.problem, problemMessage: n.problemMessage });
  }
  return out;
}

/** Why the agent may not rewrite a linking note (a protected place, a skill, a note breaking its type's rules), or null. */
function unwritable(vault: Vault, session: OpenSession, note: Note | undefined): Pick<MoveBlock, 'why' | 'code'> | null {
  if (!note) return { why: 'it changed while the move was planned', code: 'conflict' };
  if (folderOf(vault, note.path) === 'skills') {
    return {
      why: 'it is a skill, which only molt_skill changes, so the move cannot rewrite its link; keep the file name (and the name unique) so the link still reaches the note, or ask a person to move it',
      code: 'invalid_input',
    };
  }
  try {
    assertProtectedPath(vault.layout, session.actor, 'update', note.path);
  } catch (error) {
    if (isVaultError(error)) return { why: `${error.message.replace(/\.$/, '')}; so the move cannot rewrite its link`, code: 'invalid_input' };
    throw error;
  }
  if (note.lucidType && note.violations.length > 0) {
    return {
      why: `it breaks the ${note.lucidType} rules (${note.violations.map((v) => v.message).join('; ')}), and Lucid rewrites no such note until a person fixes it`,
      code: 'invalid_input',
    };
  }
  return null;
}

/** The refusal naming every note that stops the move (at most eight), and why. */
function blockedError(from: string, to: string, blocked: readonly MoveBlock[]): VaultError {
  const unparsable = new Set<MoveBlock['code']>(['binary', 'too_large', 'invalid_frontmatter']);
  const hint = (b: MoveBlock) => (unparsable.has(b.code) ? ` Ask a person to fix ${b.path}, or propose the move with propose_to_inbox.` : '');
  const shown = blocked.slice(0, 8).map((b) => `${b.path}: ${b.why}.${hint(b)}`);
  const more = blocked.length > shown.length ? ` And ${blocked.length - shown.length} more.` : '';
  return new VaultError(blocked[0].code, `Nothing was moved: moving ${from} to ${to} would break links the move cannot rewrite. ${shown.join(' ')}${more}`, {
    paths: [...new Set(blocked.map((b) => b.path))],
  });
}
