import nodePath from 'node:path';
import { isChangelogPath, CONFIG_FILE, type VaultLayout } from '../config';
import { isVaultError, VaultError } from '../errors';
import type { FileOwner, VaultFs } from '../fs';
import { isSessionId } from '../ids';
import { addChangelogLine, formatChangelogLine, oneLine } from '../git/changelog';
import { formatCommitMessage } from '../git/commit-message';
import {
  assertWritableRepo,
  blobId,
  commitPaths,
  HeadMovedError,
  headState,
  runGit,
  showFile,
  worktreeBlobs,
  type GitIdentity,
  type GitRepo,
} from '../git/repo';
import { formatDate, newEditId, type Clock, type IdSource } from '../ids';
import { hashBytes, parseFrontmatter, splitNote, type FrontmatterData, type ParsedFrontmatter } from '../notes/frontmatter';
import { assertAgentWritable, buildNote, MAX_NOTE_BYTES, parseNoteBytes, type Note } from '../notes/note';
import type { NoteReader } from '../notes/reader';
import { normalizeVaultPath } from '../notes/paths';
import { assertCreatable, assertNoteRules, assertProtectedPath, assertWritableText } from '../notes/protected';
import { validateFrontmatter } from '../notes/schema';
import { applyWrite, readCurrentFile, resolveForWrite, undoWrite, unlinkConfined } from './confine';
import { OPS, type EditRequest, type EditResult, type FileChange, type Op } from './edit-types';
import { beginJournal, hasCrashLeftovers, recoverInterruptedWrite, type Journal, type RecoveryReport, type StageHook } from './journal';
import { withVaultLock, type LockOptions } from './lock';
import { assertNoSecret, findAddedSecrets, findSecrets, secretRefusal } from './secrets';

/** Everything the write path needs from the vault it writes to. */
export interface WriteContext {
  root: string;
  repo: GitRepo;
  layout: VaultLayout;
  clock: Clock;
  ids: IdSource;
  fs: VaultFs;
  /** The person at this vault (`human:<name>`), their git name and email. */
  person: string;
  personName: string;
  personEmail: string;
  lockOptions: LockOptions;
  /** `.lucid/`, created on demand. */
  stateDir(): string;
  /** The reader whose note cache a write updates. */
  reader: NoteReader;
  /** Called once per written path after its commit. */
  afterWrite(path: string): void;
  /** Called at each stage of a commit the write-ahead record names (tests inject crashes with it). */
  onStage?: StageHook;
  /** Told what recovery did when it found an edit a dead writer left unfinished. */
  onRecovered?(report: RecoveryReport): void;
}

const ACTOR = /^(agent:[a-z0-9][a-z0-9-]{0,62}|human:[^\s\u0000-\u001f][^\u0000-\u001f]{0,99})$/;

/** A file as it was on disk under the lock, before the edit. */
interface Current {
  bytes: Buffer;
  mode: number;
  /** Kept when the file is rewritten (a note root rewrites stays its owner's). */
  owner?: FileOwner;
  mtimeMs: number;
}

/** One file to write (bytes) or delete (null), with what it was, to restore on failure. */
interface Write {
  path: string;
  abs: string;
  bytes: Uint8Array | null;
  mode?: number;
  owner?: FileOwner;
  before: Current | null;
  /** The note as written, parsed already (kept in the reader's cache after the commit). */
  note?: Note;
}

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
async function editLocked(
  ctx: WriteContext,
  request: EditRequest,
  input: { changes: FileChange[]; subjectPath: string; reason: string; trailers: [string, string][] },
  assertHeld: () => void,
): Promise<EditResult> {
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

/**
 * A person's own uncommitted version of files, committed as it is on disk (present or deleted) as
 * their edit with its changelog line (`asOnDisk`): nothing is written but the changelog. Refuses
 * another actor, a path whose bytes are HEAD's, and what looks like a secret.
 */
async function commitOnDiskLocked(
  ctx: WriteContext,
  request: EditRequest,
  input: { changes: FileChange[]; subjectPath: string; reason: string; trailers: [string, string][] },
  assertHeld: () => void,
): Promise<EditResult> {
  if (request.actor !== ctx.person) throw new VaultError('forbidden', `Only ${ctx.person} commits their own uncommitted work as it is on disk.`);
  await assertWritableRepo(ctx.repo, ctx.fs);
  const files: [string, Current | null][] = [];
  for (const change of input.changes) {
    const current = await readCurrent(ctx.fs, await resolveForWrite(ctx.fs, ctx.root, change.path));
    checkExpectedHash(change, current);
    files.push([change.path, current]);
  }
  const changelogAbs = await resolveForWrite(ctx.fs, ctx.root, ctx.layout.changelog);
  const changelog = await readCurrent(ctx.fs, changelogAbs);
  const { head, blobs } = await headState(ctx.repo, [...files.map(([path]) => path), ctx.layout.changelog]);
  const dirty = await uncommittedPaths(ctx.repo, blobs, files);
  const clean = files.map(([path]) => path).filter((path) => !dirty.includes(path));
  if (clean.length > 0) {
    throw new VaultError('invalid_input', `${clean.join(', ')} ${clean.length === 1 ? 'has' : 'have'} no uncommitted changes: nothing to commit there.`, {
      paths: clean,
    });
  }
  await refuseUncommittedSecrets(ctx, head, files, dirty);
  const { editId, commit } = await commitLocked(ctx, {
    actor: request.actor,
    op: request.op,
    path: input.subjectPath,
    reason: input.reason,
    session: request.session,
    writes: [],
    alsoCommit: files.filter(([path]) => dirty.includes(path)),
    trailers: input.trailers,
    parent: head,
    changelog: { abs: changelogAbs, current: changelog },
    headBlobs: blobs,
    assertHeld,
  });
  const hashes: Record<string, string | null> = {};
  for (const [path, current] of files) {
    hashes[path] = current ? hashBytes(current.bytes) : null;
    ctx.afterWrite(path);
  }
  return { editId, commit, hashes, savedPersonCommit: null, savedPersonPaths: [] };
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

/** Refuses a change whose file no longer has the hash it was based on (`conflict`, naming both hashes). */
function checkExpectedHash(change: FileChange, current: Current | null): void {
  if (change.expectedHash !== undefined) {
    const currentHash = current ? hashBytes(current.bytes) : null;
    if (change.expectedHash === null && currentHash !== null) {
      throw new VaultError('conflict', `${change.path} already exists.`, { path: change.path, currentHash });
    }
    if (change.expectedHash !== null && currentHash !== change.expectedHash) {
      throw new VaultError(
        'conflict',
        currentHash === null
          ? `${change.path} was deleted since you read it.`
          : `${change.path} changed since you read it (expected hash ${change.expectedHash.slice(0, 12)}…, now ${currentHash.slice(0, 12)}…). Read it again and redo the change.`,
        { path: change.path, currentHash },
      );
    }
  }
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

/**
 * Those of `files` whose bytes on disk differ from HEAD (a person's uncommitted work). A file
 * whose bytes are HEAD's blob is clean without asking git; the others are hashed by git itself,
 * so line-ending filters (autocrlf, text=auto) count as no change.
 */
async function uncommittedPaths(repo: GitRepo, committed: Map<string, string>, files: readonly (readonly [string, Current | null])[]): Promise<string[]> {
  const seen = new Set<string>();
  const dirty = new Set<string>();
  const suspects: string[] = [];
  for (const [path, current] of files) {
    if (seen.has(path)) continue;
    seen.add(path);
    const inHead = committed.get(path) ?? null;
    if (!current) {
      if (inHead !== null) dirty.add(path);
    } else if (inHead === null || blobId(current.bytes) !== inHead) {
      suspects.push(path);
    }
  }
  const onDisk = await worktreeBlobs(repo, suspects);
  for (const path of suspects) if ((onDisk.get(path) ?? null) !== (committed.get(path) ?? null)) dirty.add(path);
  return [...seen].filter((path) => dirty.has(path));
}

/**
 * Refuses to save a person's uncommitted version of a file when what it adds to HEAD's version looks
 * like a secret: Lucid never commits one, not even as the person's own edit. HEAD's version is read
 * (one git process) only when the file holds a finding at all.
 */
async function refuseUncommittedSecrets(
  ctx: WriteContext,
  head: string | null,
  files: readonly (readonly [string, Current | null])[],
  dirty: readonly string[],
): Promise<void> {
  for (const [path, current] of files) {
    if (!current || !dirty.includes(path)) continue;
    const text = current.bytes.toString('utf8');
    if (findSecrets(text).length === 0) continue;
    const committed = head ? await showFile(ctx.repo, head, path) : null;
    const added = findAddedSecrets(committed, text);
    if (added.length > 0) throw secretRefusal('uncommitted', path, text, added);
  }
}

async function readCurrent(fs: VaultFs, abs: string): Promise<Current | null> {
  return readCurrentFile(fs, abs);
}

/** Stores the checked bytes of files as git blobs (through a scratch file in .lucid/, removed at once). */
async function storeBlobs(
  ctx: WriteContext,
  files: readonly (readonly [string, Current | null])[],
): Promise<{ path: string; blob: string | null; executable: boolean }[]> {
  const out: { path: string; blob: string | null; executable: boolean }[] = [];
  for (const [path, current] of files) {
    if (current === null) {
      out.push({ path, blob: null, executable: false });
      continue;
    }
    const scratch = nodePath.join(ctx.stateDir(), `stage-${ctx.ids.base32(10)}`);
    try {
      await ctx.fs.writeNewFile(scratch, current.bytes);
      const blob = (await runGit(ctx.repo, ['hash-object', '-w', `--path=${path}`, '--', scratch])).trim();
      out.push({ path, blob, executable: (current.mode & 0o111) !== 0 });
    } finally {
      await ctx.fs.unlink(scratch).catch(() => undefined);
    }
  }
  return out;
}

/** Writes files and the changelog, commits them with the trailers; restores everything on failure. */
async function commitLocked(
  ctx: WriteContext,
  input: {
    actor: string;
    op: Op;
    path: string;
    reason: string;
    session?: string;
    writes: Write[];
    /** A person's uncommitted files, committed as these checked bytes (null: deleted), never re-read from disk. */
    alsoCommit: (readonly [string, Current | null])[];
    trailers: [string, string][];
    parent: string | null;
    changelog: { abs: string; current: Current | null };
    /** HEAD's blob ids of the paths (the write-ahead record keeps the old bytes of a file that is not HEAD's). */
    headBlobs: Map<string, string>;
    assertHeld: () => void;
  },
): Promise<{ editId: string; commit: string; changelog: Current }> {
  const editId = newEditId(ctx.ids);
  const now = ctx.clock();
  const month = formatDate(now).slice(0, 7);
  const current = input.changelog.current;
  const line = formatChangelogLine({
    date: now,
    actor: input.actor,
    op: input.op,
    path: input.path,
    reason: input.reason,
    session: input.session,
    sessionsFolder: ctx.layout.sessions,
    editId,
  });
  // Rotation reads a month's archive only on the first edit of a month, synchronously, inside addChangelogLine.
  const rotated = addChangelogLine(current ? current.bytes.toString('utf8') : null, line, month, (m) => {
    const abs = nodePath.join(ctx.root, `${ctx.layout.changelogArchive}/${m}.md`);
    return ctx.fs.existsSync(abs) ? ctx.fs.readFileSync(abs).toString('utf8') : null;
  });
  const changelogBytes = Buffer.from(rotated.changelog, 'utf8');
  const writes: Write[] = [...input.writes];
  writes.push({ path: ctx.layout.changelog, abs: input.changelog.abs, bytes: changelogBytes, mode: current?.mode, owner: current?.owner, before: current });
  for (const [m, text] of rotated.archives) {
    const path = `${ctx.layout.changelogArchive}/${m}.md`;
    const abs = await resolveForWrite(ctx.fs, ctx.root, path);
    writes.push({ path, abs, bytes: Buffer.from(text, 'utf8'), before: await readCurrent(ctx.fs, abs) });
  }

  const message = formatCommitMessage({
    op: input.op,
    path: input.path,
    reason: input.reason,
    actor: input.actor,
    editId,
    session: input.session,
    extra: input.trailers,
  });
  const done: Write[] = [];
  const paths = [...new Set([...writes.map((w) => w.path), ...input.alsoCommit.map(([path]) => path)])];
  const exact = await storeBlobs(ctx, input.alsoCommit);
  // Composing and checking may have run past the stale time: nothing is written once the lock is lost.
  input.assertHeld();
  const journal = await beginJournal(ctx, { editId, actor: input.actor, startedAt: now, parent: input.parent, paths, writes, headBlobs: input.headBlobs });
  try {
    // Deletions last: a write that fails (a full disk, a read-only folder) then fails before any
    // file is gone, and putting a deleted file back cannot hit the fault that stopped the edit.
    for (const write of [...writes.filter((w) => w.bytes !== null), ...writes.filter((w) => w.bytes === null)]) {
      done.push(write);
      await applyWrite(ctx.fs, ctx.root, write, ctx.ids);
    }
    await journal.stage('files-written');
    input.assertHeld();
    const commit = await commitPaths(ctx.repo, {
      paths,
      message,
      author: identityOf(ctx, input.actor),
      committer: { name: ctx.personName, email: ctx.personEmail },
      date: now,
      parent: input.parent,
      indexFile: nodePath.join(ctx.stateDir(), `index-${ctx.ids.base32(8)}`),
      exact,
      onStage: (stage, sha) => journal.stage(stage, sha),
    }).finally(() => removeTempIndexes(ctx));
    // A real index left stale (another git process held index.lock) keeps the record, so the next
    // holder of the lock refreshes it before a person's commit could undo this edit.
    if (journal.record.stage === 'index-refreshed') await journal.end();
    for (const write of writes) ctx.afterWrite(write.path);
    return { editId, commit, changelog: { bytes: changelogBytes, mode: current?.mode ?? 0o644, mtimeMs: 0 } };
  } catch (error) {
    // HEAD already holds the commit (only a stage hook throws this late): the edit happened, and
    // the record tells the next lock holder to bring the index up to date; nothing is undone.
    if (landed(journal)) throw error;
    for (const write of done.reverse()) {
      try {
        await undoWrite(ctx.fs, ctx.root, write, ctx.ids);
      } catch {
        // best effort: the original error is what the caller needs
      }
    }
    await settleJournal(ctx, journal);
    throw error;
  }
}

function landed(journal: Journal): boolean {
  return journal.record.stage === 'update-ref' || journal.record.stage === 'index-refreshed';
}

/**
 * After a failed commit was rolled back in process: the record goes, unless a file could not be
 * put back, or the commit may exist (a git process failed after commit-tree): then recovery
 * decides from git and the files, as after a crash.
 */
async function settleJournal(ctx: WriteContext, journal: Journal): Promise<void> {
  try {
    const reachedGit = journal.record.stage !== 'recorded' && journal.record.stage !== 'files-written';
    const intact = await Promise.all(
      journal.record.files.map(async (file) => {
        const abs = nodePath.join(ctx.root, file.path);
        const bytes = await ctx.fs.readFile(abs).catch(() => null);
        return (bytes ? blobId(bytes) : null) === file.oldBlob;
      }),
    );
    if (!reachedGit && intact.every(Boolean)) await journal.end();
    else report(ctx, await recoverInterruptedWrite(ctx));
  } catch {
    // the record stays; the next writer recovers from it
  }
}

/** Under the vault lock, before anything else: finishes or undoes an edit a dead writer left, sweeps its temp files. */
async function recoverLocked(ctx: WriteContext): Promise<void> {
  if (!(await hasCrashLeftovers(ctx.fs, nodePath.join(ctx.root, '.lucid')))) return;
  report(ctx, await recoverInterruptedWrite(ctx));
}

function report(ctx: WriteContext, recovered: RecoveryReport | null): void {
  if (recovered) ctx.onRecovered?.(recovered);
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

async function removeTempIndexes(ctx: WriteContext): Promise<void> {
  const dir = ctx.stateDir();
  for (const entry of await ctx.fs.readdir(dir).catch(() => [])) {
    if (entry.name.startsWith('index-')) await unlinkConfined(ctx.fs, ctx.root, nodePath.basename(dir), entry.name);
  }
}

function identityOf(ctx: WriteContext, actor: string): GitIdentity {
  if (actor === ctx.person) return { name: ctx.personName, email: ctx.personEmail };
  if (actor.startsWith('human:')) return { name: actor.slice(6), email: 'person@lucid.invalid' };
  return { name: actor, email: `${actor.slice(6)}@agents.lucid.invalid` };
}
