import { composeNote, formatDate, formatTime, setFrontmatterFields, splitNote, type FileChange, type FrontmatterData, type Op } from '../vault';
import { revertEditAs } from '../vault/history/revert';
import { acceptInboxItemAs, rejectInboxItemAs } from '../vault/inbox/decide';
import type { DemoRun } from './run';

/** The two people of the team; the vault's own person (git's user) joins on the anchor day. */
export const ADA = 'human:Ada Lovelace';
export const GRACE = 'human:Grace Hopper';

/*
 * What the people of the demo do. Lucid has no operation for a person's own edits yet (the
 * dashboard's editor will call one), so these go through the vault's write path with the person
 * as actor: the same commit, trailers and changelog line such an operation makes. Their inbox
 * decisions go through the inbox's own operations, as the dashboard's and the CLI's do.
 */

/** A note's text as a person saves it: Lucid sets `created` (time) and `updated` (date). */
export function personNote(run: DemoRun, data: FrontmatterData, body: string): string {
  return composeNote({ ...data, created: formatTime(run.time()), updated: formatDate(run.time()) }, body);
}

/** One commit of a person's edit, then the clock moves on. */
export async function personEdit(run: DemoRun, request: { actor: string; op: Op; path: string; reason: string; changes: FileChange[] }): Promise<void> {
  await run.vaultFor(request.actor).edit(request);
  run.committed({ actor: request.actor, op: request.op, path: request.path, reason: request.reason });
}

/** A person creates a note. */
export function personCreate(run: DemoRun, actor: string, path: string, data: FrontmatterData, body: string, reason: string): Promise<void> {
  return personEdit(run, { actor, op: 'create', path, reason, changes: [{ path, content: personNote(run, data, body), expectedHash: null }] });
}

/** The change of a person's edit of `path`: properties changed line by line, `updated` set, the body rewritten by `body`. */
export async function personRevision(run: DemoRun, path: string, fields: FrontmatterData, body?: (current: string) => string): Promise<FileChange> {
  const current = await run.vault.readNote(path);
  let text = setFrontmatterFields(current.text ?? '', { ...fields, updated: formatDate(run.time()) });
  if (body) text = text.slice(0, splitNote(text).bodyStart) + body(splitNote(text).body);
  return { path, content: text, expectedHash: current.hash };
}

/** A person changes a note's properties and/or its body. */
export async function personUpdate(
  run: DemoRun,
  actor: string,
  path: string,
  reason: string,
  edit: { fields?: FrontmatterData; body?: (current: string) => string; op?: Op },
): Promise<void> {
  const change = await personRevision(run, path, edit.fields ?? {}, edit.body);
  await personEdit(run, { actor, op: edit.op ?? 'update', path, reason, changes: [change] });
}

/** A person adds a section at the end of a note. */
export function personAppend(run: DemoRun, actor: string, path: string, section: string, reason: string): Promise<void> {
  return personUpdate(run, actor, path, reason, { body: (body) => `${withoutTrailingNewlines(body)}\n\n${section}`, op: 'append' });
}

// Not `body.replace(/\n*$/, '')`: that is retried from every newline of a long run, quadratic in its length.
function withoutTrailingNewlines(body: string): string {
  let end = body.length;
  while (end > 0 && body[end - 1] === '\n') end -= 1;
  return body.slice(0, end);
}

/** The id of the inbox item at `inboxPath` (its file name without .md). */
function itemId(inboxPath: string): string {
  return inboxPath.replace(/^.*\//, '').replace(/\.md$/, '');
}

/** A person accepts an inbox proposal as it is (acceptInboxItem: one commit, op accept). */
export async function personAccept(run: DemoRun, actor: string, inboxPath: string, reason: string): Promise<void> {
  const result = await acceptInboxItemAs(run.vaultFor(actor), { id: itemId(inboxPath), reason }, actor);
  run.committed({ actor, op: 'accept', path: result.target, reason, settled: inboxPath });
}

/** A person rejects an inbox proposal with a reason (rejectInboxItem: one commit, op reject). */
export async function personReject(run: DemoRun, actor: string, inboxPath: string, target: string, reason: string): Promise<void> {
  await rejectInboxItemAs(run.vaultFor(actor), { id: itemId(inboxPath), reason }, actor);
  run.committed({ actor, op: 'reject', path: target, reason, settled: inboxPath });
}

/** A person reverts an agent's edit of `path` with a reason (revertEdit: one commit, op revert, Lucid-Reverts). */
export async function personRevert(run: DemoRun, actor: string, editId: string, path: string, reason: string): Promise<void> {
  await revertEditAs(run.vaultFor(actor), { ref: editId, reason }, actor);
  run.committed({ actor, op: 'revert', path, reason });
}
