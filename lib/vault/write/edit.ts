import nodePath from 'node:path';
import { isChangelogPath, CONFIG_FILE } from '../notes/layout';
import { isVaultError, VaultError } from '../errors';
import { isSessionId } from '../ids';
import { oneLine } from '../text';
import { assertWritableRepo, HeadMovedError, headState } from '../git/repo';
import { hashBytes, parseFrontmatter, splitNote, type FrontmatterData, type ParsedFrontmatter } from '../notes/frontmatter';
import { assertAgentWritable, buildNote, MAX_NOTE_BYTES, parseNoteBytes, type Note } from '../notes/note';
import { normalizeVaultPath } from '../notes/paths';
import { assertCreatable, assertNoteRules, assertProtectedPath, assertWritableText } from '../notes/protected';
import { validateFrontmatter } from '../notes/schema';
import { commitLocked, readCurrent, report, type Write, type WriteContext } from './commit';
import { resolveForWrite } from './confine';
import { OPS, type EditRequest, type EditResult, type FileChange } from './edit-types';
import { hasCrashLeftovers, recoverInterruptedWrite, type RecoveryReport } from './journal';
import { withVaultLock } from './lock';
import { checkExpectedHash, commitOnDiskLocked, refuseUncommittedSecrets, uncommittedPaths, type CheckedEdit } from './on-disk';
import { assertNoSecret, findAddedSecrets, secretRefusal } from './secrets';

export type { WriteContext } from './commit';

const ACTOR = /^(agent:[a-z0-9][a-z0-9-]{0,62}|human:[^\s\u0000-\u001f][^\u0000-\u001f]{0,99})$/;

/**
 * The write path: one edit is one commit holding the changed notes and their changelog line,
 * and nothing else. Under the vault lock: the repository state is checked, each file is read
 * once and its hash compared with `expectedHash` (a mismatch is a `conflict`), new text is
 * validated against its type's schema, a person's uncommitted version of any touched file is
 * first committed as theirs, the files are written atomically, and the commit is made through a
 * temporary index. If anything fails, every file is put back as it was. Nothing that looks like a
 * secret is committed (code `forbidden`, masked, see write/secrets.ts): in a path, the reason or a
 * trailer; in what an agent's edit adds, read with its neighbouring lines; in a person's
 * uncommitted version of a touched file, which is then not saved. Each commit is preceded
 * by a write-ahead record in `.lucid/` (write/journal.ts): an edit a dead writer left unfinished
 * is finished or undone by the next writer, before anything else, under the same lock.
 */
export async function editVault(ctx: WriteContext, request: EditRequest): Promise<EditResult> {
  if (!ACTOR.test(request.actor)) {
    throw new VaultError('invalid_input', 'The actor must be agent:<slug> (a-z, 0-9, -) or human:<name>.');
  }
  if (!(OPS as readonly string[]).includes(request.op)) throw new VaultError('invalid_input', `Unknown operation ${request.op}.`);
  if (request.session !== undefined && !isSessionId(request.session)) {
    throw new VaultError('invalid_input', 'The session id must look like 20261130-140112-claude-code-k3tq.');
  }
  if (request.changes.length === 0) throw new VaultError('invalid_input', 'An edit must change at least one file.');
  const reason = oneLine(request.reason ?? '');
  const subjectPath = normalizeVaultPath(request.path);
  const changes = request.changes.map((change) => ({ ...change, path: normalizeVaultPath(change.path, { forWrite: true }) }));
  for (const change of changes) {
    assertProtectedPath(ctx.layout, request.actor, request.op, change.path);
    if (isChangelogPath(ctx.layout, change.path)) {
      throw new VaultError('forbidden', 'The changelog is written by Lucid itself, one line per edit.');
    }
    if (change.path === CONFIG_FILE && request.op !== 'init') throw new VaultError('forbidden', 'lucid.json is written by lucid init.');
  }
  const trailers = (request.trailers ?? []).map(([k, v]) => [k, oneLine(v)] as [string, string]);
  // Paths, the reason and trailers go into the commit message and the changelog line.
  for (const path of new Set([subjectPath, ...changes.map((c) => c.path)])) assertNoSecret('path', path);
  assertNoSecret('reason', reason);
  for (const [, value] of trailers) assertNoSecret('commit trailer', value);

  return withVaultLock(
    nodePath.join(ctx.stateDir(), 'vault'),
    async (assertHeld) => {
      await recoverLocked(ctx);
      // A person's own `git commit` between reading HEAD and update-ref: nothing was committed and
      // every file was put back, so the edit is made again on the new HEAD (reading the files again).
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await (request.asOnDisk ? commitOnDiskLocked : editLocked)(ctx, request, { changes, subjectPath, reason, trailers }, assertHeld);
        } catch (error) {
          if (!(error instanceof HeadMovedError) || attempt >= HEAD_MOVED_RETRIES) throw error;
          // a short random pause, so a person committing in a loop does not meet every attempt
          await new Promise((resolve) => setTimeout(resolve, Math.min(400, 10 + Math.random() * 40 * attempt)));
        }
      }
    },
    ctx.lockOptions,
  );
}

const HEAD_MOVED_RETRIES = 20;

/** One attempt at an edit, under the lock: read, check, save the person's work, write, commit. */
async function editLocked(ctx: WriteContext, request: EditRequest, input: CheckedEdit, assertHeld: () => void): Promise<EditResult> {
  const { changes, subjectPath, reason, trailers } = input;
  await assertWritableRepo(ctx.repo, ctx.fs);
  const writes: Write[] = [];
  for (const change of changes) writes.push(await prepare(ctx, request, change));
  const changelogAbs = await resolveForWrite(ctx.fs, ctx.root, ctx.layout.changelog);
  let changelog = await readCurrent(ctx.fs, changelogAbs);
  // HEAD is read once: update-ref refuses the commit if another git process moved it since.
  const { head, blobs } = await headState(ctx.repo, [...writes.map((w) => w.path), ctx.layout.changelog]);
  const dirty = await uncommittedPaths(ctx.repo, blobs, [...writes.map((w) => [w.path, w.before] as const), [ctx.layout.changelog, changelog] as const]);
  let parent = head;
  let savedPersonCommit: string | null = null;
  const savedPersonPaths = dirty.filter((p) => p !== ctx.layout.changelog);
  if (dirty.length > 0) {
    const seen = [...writes.map((w) => [w.path, w.before] as const), [ctx.layout.changelog, changelog] as const];
    await refuseUncommittedSecrets(ctx, head, seen, dirty);
    const main = dirty.find((p) => p !== ctx.layout.changelog) ?? dirty[0];
    const saved = await commitLocked(ctx, {
      actor: ctx.person,
      op: 'update',
      path: main,
      reason: `saved ${ctx.personName}'s uncommitted edit before ${request.actor}'s ${request.op}`,
      writes: [],
      alsoCommit: seen.filter(([path]) => dirty.includes(path)),
      trailers: [],
      parent,
      changelog: { abs: changelogAbs, current: changelog },
      headBlobs: blobs,
      assertHeld,
    });
    savedPersonCommit = saved.commit;
    parent = saved.commit;
    changelog = saved.changelog;
  }
  const { editId, commit } = await commitLocked(ctx, {
    actor: request.actor,
    op: request.op,
    path: subjectPath,
    reason,
    session: request.session,
    writes,
    alsoCommit: [],
    trailers,
    parent,
    changelog: { abs: changelogAbs, current: changelog },
    headBlobs: blobs,
    assertHeld,
  });
  const hashes: Record<string, string | null> = {};
  for (const w of writes) hashes[w.path] = w.bytes ? hashBytes(w.bytes) : null;
  await rememberWritten(ctx, writes);
  return { editId, commit, hashes, savedPersonCommit, savedPersonPaths };
}

/** Reads one file under the lock (its only read), checks its hash, computes and validates its new text. */
async function prepare(ctx: WriteContext, request: EditRequest, change: FileChange): Promise<Write> {
  const abs = await resolveForWrite(ctx.fs, ctx.root, change.path);
  const current = await readCurrent(ctx.fs, abs);
  if (!current && change.content !== null && !change.expectedHash) await assertCreatable(ctx.fs, ctx.root, ctx.layout, change.path);
  checkExpectedHash(change, current);
  const isMarkdown = change.path.toLowerCase().endsWith('.md');
  const isAgentNote = Boolean(current) && isMarkdown && !request.actor.startsWith('human:');
  const existing = current && (isAgentNote || typeof change.content === 'function') ? parseNoteBytes(change.path, current.bytes, current.mtimeMs) : null;
  if (existing && isAgentNote) assertAgentWritable(existing.note);
  const content = typeof change.content === 'function' ? change.content(existing?.note ?? null, existing?.parsed ?? undefined) : change.content;
  const composed = content !== null && typeof content === 'object' ? content : null;
  const text = composed ? composed.text : content;
  if (typeof text === 'string' && request.actor.startsWith('agent:')) {
    const added = findAddedSecrets(current ? current.bytes.toString('utf8') : null, text);
    if (added.length > 0) throw secretRefusal('edit', change.path, text, added);
  }
  let bytes: Uint8Array | null = null;
  let note: Note | undefined;
  if (text !== null) {
    if (typeof text !== 'string') throw new VaultError('invalid_input', 'Content must be text.');
    assertWritableText(change.path, text);
    bytes = Buffer.from(text, 'utf8');
    if (bytes.length > MAX_NOTE_BYTES) throw new VaultError('too_large', `${change.path} would be larger than ${MAX_NOTE_BYTES / 1024 / 1024} MiB.`);
    if (isMarkdown && !request.skipValidation) note = validatedNote(change.path, text, bytes as Buffer, composed?.frontmatter);
    if (note) assertNoteRules(ctx.layout, request.actor, note);
  } else if (!current) {
    throw new VaultError('not_found', `No file ${change.path} to delete.`);
  }
  return { path: change.path, abs, bytes, mode: current?.mode, owner: current?.owner, before: current, note };
}

/**
 * Validates a note's new text: its front matter must parse and fit its type's rules. Returns the
 * parse, so a caller that goes on to write the text does not parse it again.
 */
export function validateText(path: string, text: string): ParsedFrontmatter & { ok: true } {
  const parsed = parseFrontmatter(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok) throw new VaultError('invalid_frontmatter', `${path}: ${parsed.error}`, { path });
  throwViolations(path, parsed.data, validateFrontmatter(path, parsed.data));
  return parsed;
}

/** The note a validated text makes; `frontmatter` is its properties when the composer knows them (no parse then). */
function validatedNote(path: string, text: string, bytes: Buffer, frontmatter?: FrontmatterData): Note {
  if (!frontmatter) return buildNote(path, bytes, 0, validateText(path, text));
  const note = buildNote(path, bytes, 0, { ok: true, data: frontmatter, parts: splitNote(text.replace(/^\uFEFF/, '')) });
  throwViolations(path, frontmatter, note.violations);
  return note;
}

function throwViolations(path: string, data: FrontmatterData, violations: { message: string }[]): void {
  if (violations.length === 0) return;
  throw new VaultError('schema_violation', `${path} breaks the ${String(data.type)} rules: ${violations.map((v) => v.message).join('; ')}.`, { violations });
}

/** Under the vault lock, before anything else: finishes or undoes an edit a dead writer left, sweeps its temp files. */
async function recoverLocked(ctx: WriteContext): Promise<void> {
  if (!(await hasCrashLeftovers(ctx.fs, nodePath.join(ctx.root, '.lucid')))) return;
  report(ctx, await recoverInterruptedWrite(ctx));
}

/**
 * Finishes or undoes an edit a dead writer left unfinished (see write/journal.ts) and sweeps the
 * temp files it left, under the vault lock. Waits at most `waitMs` for the lock (0: only if free,
 * or held by a dead process of this host); returns null when there was nothing to recover or the
 * lock was busy (its holder recovers first).
 */
export async function recoverVault(ctx: WriteContext, waitMs = 0): Promise<RecoveryReport | null> {
  if (!(await hasCrashLeftovers(ctx.fs, nodePath.join(ctx.root, '.lucid')))) return null;
  try {
    return await withVaultLock(nodePath.join(ctx.stateDir(), 'vault'), () => recoverLockedReport(ctx), { ...ctx.lockOptions, waitMs });
  } catch (error) {
    if (isVaultError(error, 'locked')) return null;
    throw error;
  }
}

async function recoverLockedReport(ctx: WriteContext): Promise<RecoveryReport | null> {
  if (!(await hasCrashLeftovers(ctx.fs, nodePath.join(ctx.root, '.lucid')))) return null;
  const recovered = await recoverInterruptedWrite(ctx);
  report(ctx, recovered);
  return recovered;
}

/** Puts the notes just written, parsed already, in the reader's cache (a stat for their new mtime; no read). */
async function rememberWritten(ctx: WriteContext, writes: readonly Write[]): Promise<void> {
  for (const write of writes) {
    if (!write.note || !write.bytes) continue;
    const stat = await ctx.fs.stat(write.abs).catch(() => null);
    if (stat) ctx.reader.remember({ ...write.note, mtimeMs: stat.mtimeMs }, stat.size, stat.mtimeMs);
  }
}
