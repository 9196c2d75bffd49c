import nodePath from 'node:path';
import { isChangelogPath } from '../notes/layout';
import { VaultError } from '../errors';
import { addChangelogLine, formatChangelogLine } from '../git/changelog';
import { formatCommitMessage } from '../git/commit-message';
import { commitEnv, runGit, toTop, vaultPathOf } from '../git/repo';
import { formatDate, newEditId } from '../ids';
import { inboxNotePath, inboxNoteText } from '../notes/note-formats';
import { basenameOf, isNoteFile } from '../notes/paths';
import { identityOf, type WriteContext } from '../write/commit';
import { editIdsIn, unionChangelog } from './changelog-union';
import type { TreeChange } from '../write/sync-record';

/**
 * The sync's merge commit, built on a temporary index and never in the work tree: HEAD's tree, each
 * path the remote changed since the merge base brought in; where both sides changed a note, the
 * remote's version kept and the local one filed in the inbox as a conflict proposal; the changelog
 * merged by union; both sides' new inbox items kept (the local one renamed). A non-note file both
 * sides changed differently stops the sync with `conflict` and nothing changed.
 */

/** What a merge is built from. */
export interface MergeInput {
  head: string;
  remote: string;
  base: string;
  /** `<remote>/<branch>`, for messages. */
  tracking: string;
  /** base → remote, the refused paths left out. */
  remoteChanges: TreeChange[];
  /** base → HEAD. */
  localChanges: TreeChange[];
  /** How many commits the merge brings in. */
  received: number;
  machine: [string, string];
}

/** The merge commit made, and the notes whose local version went to the inbox. */
export interface MergeResult {
  commit: string;
  conflicts: { path: string; inbox: string }[];
}

const REGULAR = /^100(644|755)$/;

/** `update-index --index-info` line for a path (repo-relative): a blob with its mode, or a removal. */
function entry(path: string, mode: string | null, blob: string | null): string {
  return blob === null || mode === null ? `0 ${'0'.repeat(40)}\t${path}\0` : `${mode} ${blob}\t${path}\0`;
}

/**
 * Where both sides kept a file and each changed only its content or only its mode (one side made it
 * executable, the other edited it), both changes together; null when they really conflict.
 */
function combineModeAndContent(remote: TreeChange, mine: TreeChange): { mode: string; blob: string } | null {
  const pick = (base: string | null, local: string | null, theirs: string | null) =>
    local === theirs ? local : local === base ? theirs : theirs === base ? local : null;
  const blob = pick(remote.oldBlob, mine.newBlob, remote.newBlob);
  const mode = pick(remote.oldMode, mine.newMode, remote.newMode);
  return blob && mode && remote.oldBlob !== null ? { mode, blob } : null;
}

/** Builds and commits the merge of `head` and `remote` (not yet on any branch). */
export async function buildMerge(ctx: WriteContext, input: MergeInput): Promise<MergeResult> {
  const { repo, layout } = ctx;
  const indexFile = nodePath.join(ctx.stateDir(), `index-sync-${ctx.ids.base32(8)}`);
  const env = { GIT_INDEX_FILE: indexFile };
  const local = new Map(input.localChanges.map((c) => [c.path, c]));
  const lines: string[] = [];
  const bothChangelog: string[] = [];
  const renamedInbox: TreeChange[] = [];
  const noteConflicts: { vaultPath: string; change: TreeChange; mine: TreeChange }[] = [];
  const stuck: string[] = [];
  for (const change of input.remoteChanges) {
    const mine = local.get(change.path);
    if (!mine) {
      lines.push(entry(change.path, change.newMode, change.newBlob));
      continue;
    }
    if (mine.newBlob === change.newBlob && mine.newMode === change.newMode) continue;
    const combined = combineModeAndContent(change, mine);
    if (combined) {
      lines.push(entry(change.path, combined.mode, combined.blob));
      continue;
    }
    const vaultPath = vaultPathOf(repo, change.path);
    const regular = [change.newMode, mine.newMode].every((m) => m === null || REGULAR.test(m));
    if (vaultPath !== null && isChangelogPath(layout, vaultPath) && regular) {
      bothChangelog.push(vaultPath);
    } else if (vaultPath !== null && isNoteFile(vaultPath) && regular) {
      const addedBoth = change.oldBlob === null && mine.oldBlob === null;
      if (addedBoth && vaultPath.startsWith(`${layout.inbox}/`)) renamedInbox.push(mine);
      else noteConflicts.push({ vaultPath, change, mine });
      lines.push(entry(change.path, change.newMode, change.newBlob));
    } else {
      stuck.push(vaultPath ?? change.path);
    }
  }
  if (stuck.length > 0) {
    throw new VaultError(
      'conflict',
      `Both this vault and ${input.tracking} changed ${stuck.slice(0, 5).join(', ')}${stuck.length > 5 ? ` and ${stuck.length - 5} more` : ''}, which Lucid does not merge (not notes). Nothing of it was brought in and no file changed. Run \`git merge ${input.tracking}\`, resolve those files and commit, then run lucid sync again.`,
      { paths: stuck },
    );
  }
  const now = ctx.clock();
  try {
    await runGit(repo, ['read-tree', input.head], env);
    const taken = new Set(input.remoteChanges.filter((c) => c.newBlob !== null).map((c) => c.path));
    const free = async (path: string) =>
      !taken.has(path) && !local.has(path) && (await runGit(repo, ['ls-files', '--', `:(top,literal)${path}`], env)).trim() === '';
    for (const mine of renamedInbox) {
      const vaultPath = vaultPathOf(repo, mine.path) as string;
      let renamed = '';
      do renamed = toTop(repo, `${vaultPath.slice(0, -3)}-${ctx.ids.base32(4)}.md`);
      while (!(await free(renamed)));
      lines.push(entry(renamed, mine.newMode, mine.newBlob));
    }
    const conflicts: MergeResult['conflicts'] = [];
    for (const conflict of noteConflicts) {
      const item = await conflictItem(ctx, input, conflict, now);
      let path = '';
      do path = inboxNotePath(layout.inbox, now, basenameOf(conflict.vaultPath), ctx.ids);
      while (!(await free(toTop(repo, path))));
      lines.push(entry(toTop(repo, path), '100644', await storeText(ctx, path, item)));
      conflicts.push({ path: conflict.vaultPath, inbox: path });
    }
    if (lines.length > 0) await runGit(repo, ['update-index', '-z', '--index-info'], env, lines.join(''));
    const editId = newEditId(ctx.ids);
    const reason = `merged ${input.received} commit${input.received === 1 ? '' : 's'} from ${input.tracking}${
      conflicts.length > 0 ? `; ${conflicts.length} note${conflicts.length === 1 ? '' : 's'} both sides changed went to the inbox` : ''
    }`;
    await mergeChangelogs(
      ctx,
      input,
      env,
      bothChangelog,
      formatChangelogLine({ date: now, actor: ctx.person, op: 'sync', path: layout.changelog, reason, editId }),
      now,
    );
    const tree = (await runGit(repo, ['write-tree'], env)).trim();
    const message = formatCommitMessage({ op: 'sync', path: input.tracking, reason, actor: ctx.person, editId, extra: [input.machine] });
    const identity = identityOf(ctx, ctx.person);
    const commitEnvironment = commitEnv({ author: identity, committer: identity, date: now });
    const commit = (await runGit(repo, ['commit-tree', tree, '-p', input.head, '-p', input.remote, '-F', '-'], commitEnvironment, message)).trim();
    return { commit, conflicts };
  } catch (error) {
    if (error instanceof VaultError && error.code === 'io_error' && /update-index/.test(error.message)) {
      throw new VaultError(
        'conflict',
        `The changes of ${input.tracking} cannot be combined with this vault's (a file where the other side has a folder?): ${error.message}. Nothing of it was brought in and no file changed. Run \`git merge ${input.tracking}\`, resolve it and commit, then run lucid sync again.`,
      );
    }
    throw error;
  } finally {
    await ctx.fs.unlink(indexFile).catch(() => undefined);
  }
}

/** Stores text as a blob (through the repository's filters for the vault path `path`, as `git add` in the vault folder would). */
async function storeText(ctx: WriteContext, path: string, text: string): Promise<string> {
  return (await runGit(ctx.repo, ['hash-object', '-w', '--stdin', `--path=${path}`], undefined, text)).trim();
}

const readBlob = (ctx: WriteContext, blob: string | null) => (blob ? runGit(ctx.repo, ['cat-file', 'blob', blob]) : Promise.resolve(''));

/**
 * The inbox proposal holding this machine's version of a note both sides changed: `flag: conflict`,
 * `base_blob` the merge base's blob (so the inbox's three-way view shows both changes), proposed by
 * whoever made the last local change to it (its `Lucid-Actor` trailer, else the person).
 */
async function conflictItem(
  ctx: WriteContext,
  input: MergeInput,
  conflict: { vaultPath: string; change: TreeChange; mine: TreeChange },
  now: Date,
): Promise<string> {
  const { vaultPath, change, mine } = conflict;
  const actor = (
    await runGit(ctx.repo, [
      'log',
      '-1',
      '--format=%(trailers:key=Lucid-Actor,valueonly,separator=%x2C)',
      `${input.base}..${input.head}`,
      '--',
      `:(top,literal)${mine.path}`,
    ])
  ).trim();
  const action = mine.newBlob === null ? 'delete' : change.newBlob === null ? 'create' : 'update';
  const remoteDid = change.newBlob === null ? 'deleted it' : 'changed it';
  const localDid = mine.newBlob === null ? 'deleted it' : 'changed it';
  return inboxNoteText({
    proposedBy: actor.split(',')[0]?.trim() || ctx.person,
    action,
    target: vaultPath,
    reason: `both this vault and ${input.tracking} changed it; the sync kept ${input.tracking}'s version`,
    now,
    baseBlob: action === 'create' ? undefined : (change.oldBlob ?? undefined),
    flag: 'conflict',
    explanation:
      `Both this vault and ${input.tracking} changed ${vaultPath} since they last synced: the remote ${remoteDid}, this vault ${localDid}. ` +
      `The sync kept the remote's version; this proposal holds this vault's. Accept it to use this vault's version instead ` +
      `(you see both changes first), or reject it to keep the remote's.`,
    content: await readBlob(ctx, mine.newBlob),
  });
}

/**
 * The changelog of the merge: a file both sides changed becomes the union of both; a line kept in
 * a monthly archive leaves the current file; then the sync's own line is added at the top (rotating
 * an older month out, as every edit does), each archive keeping each edit once.
 */
async function mergeChangelogs(ctx: WriteContext, input: MergeInput, env: Record<string, string>, both: string[], line: string, now: Date): Promise<void> {
  const { repo, layout } = ctx;
  const staged = (
    await runGit(
      repo,
      ['ls-files', '-s', '-z', '--full-name', '--', `:(top,literal)${toTop(repo, layout.changelog)}`, `:(top,literal)${toTop(repo, layout.changelogArchive)}`],
      env,
    )
  )
    .split('\0')
    .map((l) => /^\d{6} ([0-9a-f]{40}) 0\t(.+)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ blob: m[1], path: vaultPathOf(repo, m[2]) as string }))
    .filter((f) => isChangelogPath(layout, f.path));
  const texts = new Map<string, string>();
  for (const file of staged) texts.set(file.path, await readBlob(ctx, file.blob));
  const changed = new Set<string>();
  const local = new Map(input.localChanges.map((c) => [c.path, c]));
  const remote = new Map(input.remoteChanges.map((c) => [c.path, c]));
  for (const path of both) {
    const sides = [local.get(toTop(repo, path))?.newBlob ?? null, remote.get(toTop(repo, path))?.newBlob ?? null];
    texts.set(path, unionChangelog(await Promise.all(sides.map((blob) => readBlob(ctx, blob)))));
    changed.add(path);
  }
  const archived = new Set<string>();
  for (const [path, text] of texts) if (path !== layout.changelog) for (const id of editIdsIn(text)) archived.add(id);
  const current = texts.get(layout.changelog);
  const kept = current === undefined ? null : unionChangelog([current], archived);
  const archiveOf = (month: string) => texts.get(`${layout.changelogArchive}/${month}.md`) ?? null;
  const rotated = addChangelogLine(kept, line, formatDate(now).slice(0, 7), archiveOf);
  texts.set(layout.changelog, rotated.changelog);
  changed.add(layout.changelog);
  for (const [month, text] of rotated.archives) {
    texts.set(`${layout.changelogArchive}/${month}.md`, unionChangelog([text]));
    changed.add(`${layout.changelogArchive}/${month}.md`);
  }
  const lines: string[] = [];
  for (const path of changed) lines.push(entry(toTop(repo, path), '100644', await storeText(ctx, path, texts.get(path) as string)));
  await runGit(repo, ['update-index', '-z', '--index-info'], env, lines.join(''));
}
