import { hostname } from 'node:os';
import nodePath from 'node:path';
import { readLayout, systemPrefixes, type VaultLayout } from './notes/layout';
import { VaultError } from './errors';
import { nodeFs, type VaultFs } from './fs';
import { oneLine } from './text';
import { machineName } from './git/commit-message';
import { CommitIndex, foldersOfType, type CommitQuery, type CommitRecord } from './git/commit-index';
import { commitPatch, excludeStateDir, gitConfig, openRepo, type GitIdentity, type GitRepo } from './git/repo';
import type { GitRunner } from './git/runner';
import { cryptoIds, systemClock, type Clock, type IdSource } from './ids';
import type { LinkResolver, ParsedLink } from './notes/links';
import type { Note, VaultFile } from './notes/note';
import { normalizeVaultPath, TEMP_PREFIX } from './notes/paths';
import type { NoteType } from './notes/schema';
import { NoteReader, type LinkGraph, type LintReport } from './read/reader';
import { syncSearchIndex } from './search/indexable';
import { VaultWatcher, type WatcherOptions, type WatchState } from './watch/watcher';
import { SearchIndex, type SearchHit, type SearchOptions } from './search/search-index';
import { resolveForWrite, stateDirOf, sweepTempFiles } from './write/confine';
import { editVault, recoverVault, validateText, type WriteContext } from './write/edit';
import { identityOf } from './write/commit';
import type { EditRequest, EditResult } from './write/edit-types';
import type { RecoveryReport, StageHook } from './write/journal';
import type { LockOptions } from './write/lock';
import { sweepScratch } from './write/scratch';
import { isChangelogPath } from './notes/layout';
import { normalizeNotePath } from './notes/paths';
import type { IndexWorkers } from './search/index-pool';

export type { LinkGraph, LintReport } from './read/reader';
export type { WatchState } from './watch/watcher';
export type { RecoveryReport, StageHook } from './write/journal';

/** How to open a vault: everything from outside (environment, clock, ids, file system, git) is passed in. */
export interface OpenVaultOptions {
  root: string;
  /** The environment git runs with (the CLI passes its own environment). */
  env: Record<string, string | undefined>;
  clock?: Clock;
  /**
   * Wall-clock time, which file modification times are in (the system's by default). Only the
   * temp-file sweep reads it: the vault's `clock` may be a test's or the demo's, far from the files' times.
   */
  wallClock?: Clock;
  ids?: IdSource;
  fs?: VaultFs;
  /** What starts the plumbing git processes (tests pass one that counts or fails them); simple-git's reads (patches, diffs) do not go through it. */
  git?: GitRunner;
  /** The person's name when git has no user.name (LUCID_USER, else the OS user). */
  fallbackUser?: string;
  lock?: LockOptions;
  /** The layout to use instead of reading lucid.json (`lucid init`, before it writes lucid.json). */
  layout?: VaultLayout;
  /**
   * Called at each stage of every commit the write path makes (after the write-ahead record is
   * written, after the files, after commit-tree, after update-ref, after the index refresh):
   * crash tests stop the process there. lib/vault never reads the environment for it.
   */
  onStage?: StageHook;
  /**
   * Keep the vault's listing in memory with a file watcher, so that a search checks only the files
   * that changed (long-lived processes: the MCP server, the dashboard). When the watcher cannot
   * start or fails later, the vault falls back to comparing every file's stamp, says so once
   * through `onWarning`, and `watchState()` tells why. One-shot commands leave it off: a walk is cheaper.
   */
  watch?: boolean;
  /** Replaces the watcher's parts (tests pass a `subscribe` that fails, or a file-system probe). */
  watcher?: Pick<WatcherOptions, 'subscribe' | 'unwatchable'>;
  /** Told what the person running Lucid should know, once each (the file watcher fell back to polling). */
  onWarning?: (message: string) => void;
  /**
   * Where the search index's worker threads are (see `IndexWorkers`): a large index build parses
   * notes there. Null or absent: in this thread (slower, same index).
   */
  indexWorkers?: IndexWorkers | null;
  /** The machine's name for `Lucid-Machine` (the callers pass LUCID_MACHINE); else `git config lucid.machine`, else the host name. */
  machine?: string;
}

/**
 * A Lucid vault: the one place that reads, searches and writes it. Open it with {@link openVault}.
 * Reading lives in {@link NoteReader}, writing in `write/edit.ts`; this class holds them together.
 */
export class Vault {
  readonly root: string;
  readonly repo: GitRepo;
  readonly layout: VaultLayout;
  readonly clock: Clock;
  /** Wall-clock time, for comparing with file modification times. */
  readonly wallClock: Clock;
  readonly ids: IdSource;
  /** The file system every read and write of this vault goes through (tests inject faults or counters). */
  readonly fs: VaultFs;
  /** Where this vault is open: the `Lucid-Machine` trailer of every commit Lucid makes here. */
  readonly machine: string;
  private readonly reader: NoteReader;
  private readonly writer: WriteContext;
  private readonly personName: string;
  private searchIndex: SearchIndex | null = null;
  private commitIndex: CommitIndex | null = null;
  private lastSync = 0;
  private watcher: VaultWatcher | null = null;
  private watching: WatchState = { mode: 'off' };
  private readonly listingListeners = new Set<(paths: string[]) => void>();
  /** Whether the search index was compared with every file since the watcher's listing went live. */
  private searchPrimed = false;
  private searchSyncs: Promise<unknown> = Promise.resolve();
  private warn: (message: string) => void = () => undefined;
  private readonly indexWorkers: IndexWorkers | null;
  /** What recovery did with edits dead writers left unfinished, oldest first (at open and under later locks). */
  readonly recoveries: RecoveryReport[] = [];

  /** Use {@link openVault}, which finds the repository and the person's name first. */
  constructor(
    init: Omit<WriteContext, 'person' | 'stateDir' | 'reader' | 'afterWrite' | 'onRecovered'> & { wallClock?: Clock; indexWorkers?: IndexWorkers | null },
  ) {
    this.root = init.root;
    this.repo = init.repo;
    this.layout = init.layout;
    this.clock = init.clock;
    this.wallClock = init.wallClock ?? systemClock;
    this.ids = init.ids;
    this.fs = init.fs;
    this.personName = init.personName;
    this.machine = init.machine;
    this.indexWorkers = init.indexWorkers ?? null;
    this.reader = new NoteReader(init.root, init.layout, init.fs);
    this.writer = {
      ...init,
      person: this.person,
      stateDir: () => this.stateDir(),
      reader: this.reader,
      afterWrite: (path) => {
        this.reader.forget(path);
        this.watcher?.touch(path);
        this.lastSync = 0;
      },
      onRecovered: (report) => {
        this.recoveries.push(report);
        for (const path of report.paths) {
          this.reader.forget(path);
          this.watcher?.touch(path);
        }
        this.lastSync = 0;
      },
    };
  }

  /** The actor string for the person at this vault: `human:<git user.name>`. */
  get person(): string {
    return `human:${this.personName}`;
  }

  /**
   * `.lucid/` (local state, git-ignored), created on demand. It must be a real folder inside the
   * vault: a link there (`.lucid -> somewhere`) is refused with `forbidden`, never followed.
   */
  stateDir(): string {
    return stateDirOf(this.fs, this.root);
  }

  /** Every file of the vault except git's, Lucid's state, dot-folders and temp files. */
  listFiles(): Promise<VaultFile[]> {
    return this.reader.listFiles();
  }

  /** Removes Lucid temp files left behind by a crash (written more than a minute ago by the wall clock). */
  sweepTempFiles(): Promise<string[]> {
    return sweepTempFiles(this.fs, this.root, this.wallClock(), TEMP_PREFIX);
  }

  /** The absolute path of a vault path for reading; links may not lead outside the vault. */
  resolveForRead(path: string): Promise<string> {
    return this.reader.resolveForRead(path);
  }

  /** The absolute path of a vault path for writing: no component may be a symbolic link. */
  resolveForWrite(path: string): Promise<string> {
    return resolveForWrite(this.fs, this.root, path);
  }

  /** The raw bytes of a vault file (attachments included), confined to the vault. */
  readFileBytes(path: string): Promise<Buffer> {
    return this.reader.readFileBytes(path);
  }

  /**
   * Reads a note. Bad front matter, binary bytes and invalid UTF-8 are reported on the note
   * (`problem`), never thrown; a missing file is `not_found`.
   */
  readNote(path: string): Promise<Note> {
    return this.reader.readNote(path);
  }

  /** Every note (`*.md`) of the vault (or of `listing`, a listing just taken), parsed; unreadable ones are listed with their problem. */
  listNotes(listing?: VaultFile[]): Promise<Note[]> {
    return this.reader.listNotes(listing);
  }

  /** A resolver over the vault's current files (rebuilt when files come or go). */
  linkResolver(files?: VaultFile[]): Promise<LinkResolver> {
    return this.reader.linkResolver(files);
  }

  /**
   * The notes that link to `path`, with the line of each link (0: front matter), by source path then
   * line; the changelog's links are not backlinks. Read from the search index's links table after the
   * usual change check, so it costs a lookup, not a parse of the vault.
   */
  async backlinks(path: string): Promise<{ from: string; line: number }[]> {
    const target = normalizeNotePath(path);
    await this.searchReady();
    return this.index()
      .backlinks(target)
      .filter((link) => !isChangelogPath(this.layout, link.from));
  }

  /**
   * Every note whose front-matter `project` resolves to `projectPath` (the project note itself left
   * out), by path, from the search index after the usual change check: no note is read.
   */
  async notesOfProject(projectPath: string): Promise<{ path: string; type: string | null }[]> {
    await this.searchReady();
    return this.index().notesOfProject(normalizeNotePath(projectPath));
  }

  /** Every note's resolved links and the backlinks they make, computed once per state of the files on disk. */
  linkGraph(): Promise<LinkGraph> {
    return this.reader.linkGraph();
  }

  /** Where each of a note's links leads (null: broken; external links left out). */
  resolveLinks(note: Note): Promise<{ link: ParsedLink; resolved: string | null }[]> {
    return this.reader.resolveLinks(note);
  }

  /** Everything wrong with the vault: schema violations, notes that cannot be parsed, links that lead nowhere. */
  lint(): Promise<LintReport> {
    return this.reader.lint();
  }

  /** Opens (and keeps open) the search index in `.lucid/`. */
  private index(): SearchIndex {
    if (!this.searchIndex) {
      const layout = this.layout;
      const linkScope = { key: `changelog:${layout.changelog}:${layout.changelogArchive}`, leftOut: (path: string) => isChangelogPath(layout, path) };
      this.searchIndex = SearchIndex.open(nodePath.join(this.stateDir(), 'search.sqlite'), { workers: this.indexWorkers, linkScope });
    }
    return this.searchIndex;
  }

  /**
   * Brings the search index up to date with the files on disk (notices edits made outside Lucid).
   * With a live file watcher only the files it saw change are compared (nothing at all when none
   * did); without, every file's stamp is. Calls run one after another.
   */
  syncSearch(): Promise<{ added: number; updated: number; removed: number; unchanged: number }> {
    const run = () => this.syncSearchNow();
    const result = this.searchSyncs.then(run);
    this.searchSyncs = result.catch(() => undefined);
    return result;
  }

  private async syncSearchNow(): Promise<{ added: number; updated: number; removed: number; unchanged: number }> {
    const watcher = this.watcher?.live ? this.watcher : null;
    if (!watcher) {
      const result = await syncSearchIndex(this.index(), this.reader);
      this.lastSync = this.clock().getTime();
      return result;
    }
    let result = { added: 0, updated: 0, removed: 0, unchanged: 0 };
    // A change applied between taking the changed paths and reading the listing would be compared
    // with a stamp it does not have: the sync runs again until the listing held still through one.
    for (let round = 0; round < 5; round++) {
      const primed = this.searchPrimed;
      const { changed, generation } = await watcher.takeChanged();
      if (primed && changed.size === 0) break;
      this.searchPrimed = false;
      result = await syncSearchIndex(this.index(), this.reader, primed ? changed : null);
      this.searchPrimed = watcher.live;
      if (watcher.generation === generation) break;
    }
    this.lastSync = this.clock().getTime();
    return result;
  }

  /** Brings the search index up to date when it may be behind, else waits for a sync under way. */
  private async searchReady(): Promise<void> {
    if (this.searchStale()) await this.syncSearch();
    else await this.searchSyncs;
  }

  /** Whether a search must bring the index up to date first. */
  private searchStale(): boolean {
    if (this.watcher?.live) return !this.searchPrimed || !this.watcher.idle;
    return this.clock().getTime() - this.lastSync > 1000;
  }

  /**
   * Searches notes for a question written as people and agents write it (BM25 with stemming, notes
   * with more of the question's words and with them in the title, aliases or file name first, session
   * notes below others of equal relevance), hits in descending score order. The
   * changelog, inbox, evaluations and AGENTS.md are left out unless `includeSystem` (or a type or
   * folder filter asks for them). Whole words only: `prefix` is for a person typing in the dashboard.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    await this.searchReady();
    return this.index().search(query, { systemPrefixes: [...systemPrefixes(this.layout), this.layout.agents], ...options });
  }

  /** Closes the indexes and stops the file watcher (tests and short-lived CLI runs); no handle is left open. */
  async close(): Promise<void> {
    this.searchIndex?.close();
    this.searchIndex = null;
    this.commitIndex?.close();
    this.commitIndex = null;
    const watcher = this.watcher;
    this.watcher = null;
    this.reader.setListingSource(null);
    if (watcher) {
      this.watching = { mode: 'off' };
      await watcher.close();
    }
  }

  /**
   * Calls `listener` with the vault paths each time the file watcher has brought changes into the
   * listing (another program's edits when their events arrive, Lucid's own at once): a search or a
   * page rendered after the call sees them. Never called while the vault is not watching
   * ({@link watchState}). Returns the unsubscribe.
   */
  onListingChange(listener: (paths: string[]) => void): () => void {
    this.listingListeners.add(listener);
    return () => this.listingListeners.delete(listener);
  }

  /** How this vault notices edits made outside Lucid (see {@link WatchState}). */
  watchState(): WatchState {
    return { ...this.watching };
  }

  /**
   * Starts the file watcher ({@link OpenVaultOptions.watch}); when it cannot start, or fails later,
   * falls back to comparing every file's stamp and says why once through `onWarning`.
   */
  async startWatching(options: Pick<OpenVaultOptions, 'watcher' | 'onWarning'> = {}): Promise<WatchState> {
    if (options.onWarning) this.warn = options.onWarning;
    if (this.watcher) return this.watchState();
    const started = await VaultWatcher.start(this.root, this.fs, {
      ...options.watcher,
      onFailure: (reason) => {
        if (this.watcher === started) this.fallBack(reason);
      },
    });
    if (!(started instanceof VaultWatcher)) {
      this.fallBack(started.reason);
      return this.watchState();
    }
    this.watcher = started;
    started.onApplied((paths) => {
      for (const listener of this.listingListeners) listener(paths);
    });
    this.watching = { mode: 'watching' };
    this.searchPrimed = false;
    this.reader.setListingSource(() => (started.live ? started.listing() : null));
    return this.watchState();
  }

  private fallBack(reason: string): void {
    this.watcher = null;
    this.reader.setListingSource(null);
    this.searchPrimed = false;
    this.lastSync = 0;
    this.watching = { mode: 'polling', reason };
    this.warn(
      `Not watching ${this.root} for changes: ${reason}. Searches check every file's stamp instead (at most once a second), which is slower on a big vault.`,
    );
  }

  /** The commit index, brought up to date with HEAD. */
  async commits(): Promise<CommitIndex> {
    if (!this.commitIndex) this.commitIndex = CommitIndex.open(nodePath.join(this.stateDir(), 'commits.sqlite'), this.repo);
    await this.commitIndex.update();
    return this.commitIndex;
  }

  /**
   * The vault's history, newest first, from the commit index; `type` keeps the commits that touched
   * a file in that type's folders of this vault's layout (it replaces `folders`).
   */
  async log(query: CommitQuery & { type?: NoteType } = {}): Promise<(CommitRecord & { seq: number })[]> {
    const { type, ...rest } = query;
    return (await this.commits()).list(type ? { ...rest, folders: foldersOfType(this.layout, type) } : rest);
  }

  /** A file's history, newest first, following renames. */
  async history(path: string, limit = 200): Promise<(CommitRecord & { seq: number })[]> {
    return (await this.commits()).historyOf(normalizeVaultPath(path), limit);
  }

  /** The patch of one commit (renames detected), cut at `maxBytes`. */
  commitDiff(sha: string, options: { path?: string; maxBytes?: number } = {}): Promise<{ sha: string; patch: string; truncated: boolean }> {
    return commitPatch(this.repo, sha, options);
  }

  /**
   * The write path (see `write/edit.ts`): one edit is one commit holding the changed notes and
   * their changelog line, made under the vault lock, restored on failure.
   */
  edit(request: EditRequest): Promise<EditResult> {
    return editVault(this.writer, request);
  }

  /**
   * Finishes or undoes an edit a dead writer (kill -9, a crash, a power cut) left unfinished,
   * and removes the temp files and temp indexes it left; {@link openVault} does this at every
   * start, and every write does it under the lock. Waits at most `waitMs` for the vault lock (a
   * lock whose holder died on this host is taken over at once); null when there was nothing to do
   * or a live writer holds the lock (it recovers first).
   */
  recover(waitMs = 0): Promise<RecoveryReport | null> {
    return recoverVault(this.writer, waitMs);
  }

  /** Validates a note's new text: its front matter must parse and fit its type's rules. */
  validateText(path: string, text: string): void {
    validateText(path, text);
  }

  /** The git name and email the write path commits `actor`'s edits with (the person's own from git config). */
  gitIdentity(actor: string): GitIdentity {
    return identityOf(this.writer, actor);
  }

  /**
   * The write path's context (git, layout, clock, ids, the person, the caches a write keeps current),
   * for the rooms of lib/vault that commit under the vault lock themselves (the sync engine).
   * Not for use outside lib/vault: everything else writes through {@link Vault.edit}.
   */
  writeContext(): WriteContext {
    return this.writer;
  }
}

/**
 * Opens a vault: canonicalizes the root, finds its git repository (`not_a_repo` with what to do
 * when there is none), reads `lucid.json`, learns the person's name from git, and finishes or
 * undoes an edit a dead writer left unfinished (see {@link Vault.recover}).
 */
export async function openVault(options: OpenVaultOptions): Promise<Vault> {
  const fs = options.fs ?? nodeFs;
  let root: string;
  try {
    root = await fs.realpath(nodePath.resolve(options.root));
    if (!(await fs.stat(root)).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new VaultError('not_found', `The vault folder ${options.root} does not exist. Create it with \`lucid init ${options.root}\`.`);
    throw new VaultError('invalid_path', `${options.root} is not a folder.`);
  }
  const repo = await openRepo(root, options.env, options.git);
  const layout = options.layout ?? readLayout(root, fs);
  const name = (await gitConfig(repo, 'user.name')) ?? options.fallbackUser ?? 'unknown';
  const email = (await gitConfig(repo, 'user.email')) ?? `${name.replace(/[^A-Za-z0-9._-]+/g, '.')}@localhost`;
  excludeStateDir(repo, fs);
  const vault = new Vault({
    root,
    repo,
    layout,
    clock: options.clock ?? systemClock,
    wallClock: options.wallClock ?? systemClock,
    ids: options.ids ?? cryptoIds,
    fs,
    personName: oneLine(name, 100) || 'unknown',
    personEmail: email,
    machine: machineName(options.machine) || machineName(await gitConfig(repo, 'lucid.machine')) || machineName(hostname()) || 'unknown',
    lockOptions: options.lock ?? {},
    onStage: options.onStage,
    // The workers' fallback is said where the watcher's is, when the caller did not choose elsewhere.
    indexWorkers:
      options.indexWorkers && !options.indexWorkers.onFallback && options.onWarning
        ? { ...options.indexWorkers, onFallback: options.onWarning }
        : options.indexWorkers,
  });
  // An edit a dead writer left unfinished is finished or undone before anything is read. A live
  // writer holding the lock recovers it itself; a failure here leaves it to the next writer.
  await vault.recover().catch(() => undefined);
  await sweepScratch(vault.fs, () => vault.stateDir(), (options.wallClock ?? systemClock)()).catch(() => undefined);
  if (options.watch) await vault.startWatching(options);
  return vault;
}
