import nodePath from 'node:path';
import type { VaultFs } from '../fs';
import type { VaultFile } from '../notes/note';
import { isUnlistedName, isUnlistedPath, sortListing, statListed, walkVault } from './walk';

/**
 * How a vault notices edits made outside Lucid: `watching` (a file watcher keeps the listing),
 * `polling` (the watcher could not start or failed: every search compares every file's stamp, at
 * most once a second; `reason` says why), `off` (not asked for: one-shot CLI verbs).
 */
export interface WatchState {
  mode: 'watching' | 'polling' | 'off';
  reason?: string;
}

/** One change @parcel/watcher reports (absolute path). */
export interface WatchEvent {
  path: string;
  type: 'create' | 'update' | 'delete';
}

/** @parcel/watcher's `subscribe` (tests pass one that fails or that they drive by hand). */
export type SubscribeFn = (
  dir: string,
  callback: (error: Error | null, events: WatchEvent[]) => unknown,
  options?: { ignore?: string[] },
) => Promise<{ unsubscribe(): Promise<void> }>;

/** What a vault's watcher is given. */
export interface WatcherOptions {
  /** Loads `subscribe` (by default @parcel/watcher's, loaded on first use). */
  subscribe?: () => Promise<SubscribeFn>;
  /** Why watching this folder would miss changes (a network file system), or null. */
  unwatchable?: (root: string) => Promise<string | null>;
  /** Called once when a running watcher fails (an error event): the vault falls back to polling. */
  onFailure: (reason: string) => void;
}

const loadParcel = async (): Promise<SubscribeFn> => (await import('@parcel/watcher')).subscribe as SubscribeFn;

/**
 * A burst of this many events (a checkout, a pull, an unzip) may have overflowed inotify's queue
 * (16,384 events by default), whose overflow @parcel/watcher drops without a word: the listing is
 * then walked once, when the burst has been quiet for {@link BURST_QUIET_MS}.
 */
const BURST_EVENTS = 4096;
const BURST_QUIET_MS = 300;

/**
 * The vault's listing kept in memory by a file watcher: one walk at start, then only the paths the
 * watcher's batched events name are stat'ed (a folder created, renamed or removed updates every path
 * under it). Events that arrive during the first walk are kept and applied after it.
 *
 * Outside edits reach the listing when their event arrives: @parcel/watcher batches events for
 * 50 ms after the last one (at most 500 ms under a continuous stream of changes), so a search
 * started within that window after a change made by another program may not see it yet. Lucid's
 * own writes are applied at once through {@link VaultWatcher.touch}; their events, arriving later,
 * find the stamp already known and change nothing.
 */
export class VaultWatcher {
  private readonly files = new Map<string, VaultFile>();
  /** Links to files, by the vault path of their target: a change of the target restamps the link. */
  private readonly linksByTarget = new Map<string, Set<string>>();
  /** Each listed link's target, as {@link linksByTarget} has it. */
  private readonly targetOf = new Map<string, string>();
  private sorted: VaultFile[] | null = null;
  private changed = new Set<string>();
  private queued = new Set<string>();
  private flushing: Promise<void> = Promise.resolve();
  private ready = false;
  private applying = false;
  private changes = 0;
  private failed: string | null = null;
  private subscription: { unsubscribe(): Promise<void> } | null = null;
  private subscribeFn: SubscribeFn | null = null;
  private ignore: string[] = [];
  /** Whether a folder came with folders inside since the last subscription (see {@link resubscribe}). */
  private resubscribeWanted = false;
  /** Events received in the current burst, and the timer that ends it (see {@link BURST_EVENTS}). */
  private burstEvents = 0;
  private burstTimer: ReturnType<typeof setTimeout> | null = null;
  private resubscribing: Promise<void> | null = null;
  private closed = false;
  /** The paths the listing changed at since the last {@link onApplied} call, and who is told. */
  private appliedPaths = new Set<string>();
  private readonly appliedListeners = new Set<(paths: string[]) => void>();

  private constructor(
    private readonly root: string,
    private readonly fs: VaultFs,
    private readonly onFailure: (reason: string) => void,
  ) {}

  /**
   * Subscribes to the vault root, walks it once, applies the events that came meanwhile, and
   * resolves with the running watcher; or with `{ reason }` (nothing left open) when the native
   * module does not load, the folder is on a network file system, or the subscription fails
   * (inotify's watch limit: ENOSPC).
   */
  static async start(root: string, fs: VaultFs, options: WatcherOptions): Promise<VaultWatcher | { reason: string }> {
    let subscribe: SubscribeFn;
    try {
      subscribe = await (options.subscribe ?? loadParcel)();
    } catch (error) {
      return { reason: `the file watcher could not be loaded (${messageOf(error)})` };
    }
    const unwatchable = await (options.unwatchable ?? networkFileSystem)(root).catch(() => null);
    if (unwatchable) return { reason: unwatchable };
    const watcher = new VaultWatcher(root, fs, options.onFailure);
    try {
      watcher.subscribeFn = subscribe;
      watcher.ignore = ignoredAtStart(fs, root);
      watcher.subscription = await subscribe(root, (error, events) => watcher.receive(error, events), { ignore: watcher.ignore });
    } catch (error) {
      return { reason: `the file watcher could not start (${messageOf(error)})` };
    }
    try {
      for (const file of await walkVault(fs, root)) watcher.put(file);
    } catch (error) {
      await watcher.close();
      throw error;
    }
    if (watcher.failed !== null) {
      await watcher.close();
      return { reason: watcher.failed };
    }
    watcher.ready = true;
    watcher.changed.clear();
    watcher.appliedPaths.clear();
    watcher.schedule();
    await watcher.flushing;
    return watcher;
  }

  /** Whether the listing is live (false once the watcher failed or was closed). */
  get live(): boolean {
    return this.failed === null && this.subscription !== null;
  }

  /** Every listed file, sorted by path (a fresh array; the listing as of the last event applied). */
  async listing(): Promise<VaultFile[]> {
    await this.settled();
    this.sorted ??= sortListing([...this.files.values()]);
    return this.sorted.slice();
  }

  /**
   * The listed paths that were added, removed or restamped since the last call (after pending
   * events are applied), and the listing's {@link generation} they bring it to.
   */
  async takeChanged(): Promise<{ changed: Set<string>; generation: number }> {
    await this.settled();
    const changed = this.changed;
    this.changed = new Set();
    return { changed, generation: this.generation };
  }

  /** Counts the listing's changes: equal before and after a piece of work, nothing changed meanwhile. */
  get generation(): number {
    return this.changes;
  }

  /** Whether anything may have changed since the last {@link takeChanged}: no await when nothing did. */
  get idle(): boolean {
    return this.changed.size === 0 && this.queued.size === 0 && !this.applying && this.resubscribing === null;
  }

  /**
   * Lucid wrote, moved or removed `path`: restamp it now (its event comes later and then finds
   * the stamp known), and report it as changed whatever its stamp.
   */
  touch(path: string): void {
    if (isUnlistedPath(path)) return;
    this.changed.add(path);
    this.changes++;
    this.queued.add(path);
    this.schedule();
  }

  /**
   * Calls `listener` each time events (or Lucid's own {@link touch}) have been applied to the listing,
   * with the paths that changed: from then on, a listing or a search sees them. Returns the unsubscribe.
   */
  onApplied(listener: (paths: string[]) => void): () => void {
    this.appliedListeners.add(listener);
    return () => this.appliedListeners.delete(listener);
  }

  /** Stops watching; no handle is left open. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.burstTimer) clearTimeout(this.burstTimer);
    this.burstTimer = null;
    const subscription = this.subscription;
    this.subscription = null;
    // inotify has already dropped the watches of removed folders; unsubscribing them fails harmlessly.
    const unsubscribing = subscription?.unsubscribe().catch(() => undefined);
    // A subscription being made anew ends itself once it sees the watcher closed.
    if (this.resubscribing) await this.resubscribing;
    await unsubscribing;
  }

  private receive(error: Error | null, events: WatchEvent[]): void {
    if (!this.live) return;
    if (error) {
      this.fail(`the file watcher reported an error (${messageOf(error)})`);
      return;
    }
    for (const event of events) {
      const relative = nodePath.relative(this.root, event.path);
      if (relative === '' || relative.startsWith('..') || nodePath.isAbsolute(relative)) continue;
      const rel = relative.split(nodePath.sep).join('/');
      if (isUnlistedPath(rel)) continue;
      // An update of a folder says only that an entry in it changed, and that entry has its own event.
      if (event.type === 'update' && !this.files.has(rel) && isFolderNow(this.fs, event.path)) continue;
      this.queued.add(rel);
    }
    this.noteBurst(events.length);
    if (this.ready) this.schedule();
  }

  /** Counts a batch into the current burst; a burst big enough to have lost events ends in a walk. */
  private noteBurst(count: number): void {
    this.burstEvents += count;
    if (this.burstTimer) clearTimeout(this.burstTimer);
    this.burstTimer = setTimeout(() => {
      this.burstTimer = null;
      const big = this.burstEvents >= BURST_EVENTS;
      this.burstEvents = 0;
      if (big && this.live && !this.closed) this.apply(() => this.reconcile());
    }, BURST_QUIET_MS);
    this.burstTimer.unref?.();
  }

  private fail(reason: string): void {
    if (this.failed !== null) return;
    this.failed = reason;
    if (!this.ready) return; // start() reports it
    void this.close();
    this.onFailure(reason);
  }

  private schedule(): void {
    if (!this.ready || this.queued.size === 0) return;
    this.apply(async () => {
      while (this.queued.size > 0) {
        const paths = [...this.queued];
        this.queued.clear();
        for (const rel of paths) await this.refresh(rel);
      }
    });
  }

  /** Waits for the events received and a subscription being made anew (and the walk after it) to be applied. */
  private async settled(): Promise<void> {
    for (;;) {
      if (this.resubscribing) await this.resubscribing;
      await this.flushing;
      if (!this.resubscribing) return;
    }
  }

  /** Runs `work` on the listing after the work already queued (one piece at a time). */
  private apply(work: () => Promise<void>): void {
    this.flushing = this.flushing
      .then(async () => {
        this.applying = true;
        try {
          await work();
        } finally {
          this.applying = false;
        }
        this.tellApplied();
      })
      .catch((error) => this.fail(`the file watcher's listing could not be updated (${messageOf(error)})`));
  }

  /**
   * Brings one path (a file, a folder, or a name gone) in line with the disk. A folder that came
   * with folders inside (made at once, moved in, renamed) makes the watcher subscribe anew: see
   * {@link resubscribe}.
   */
  private async refresh(rel: string): Promise<void> {
    const abs = nodePath.join(this.root, rel);
    const stat = await this.fs.lstat(abs).catch(() => null);
    if (stat?.isDirectory()) {
      this.drop(rel, false);
      const seen = new Set<string>();
      for (const file of await walkVault(this.fs, this.root, rel).catch(() => [])) {
        seen.add(file.path);
        this.put(file);
      }
      this.dropUnder(rel, seen);
      if (hasSubfolder(this.fs, abs)) this.resubscribe();
      return;
    }
    const file = stat?.isFile()
      ? { path: rel, size: stat.size, mtimeMs: stat.mtimeMs }
      : stat?.isSymbolicLink()
        ? await statListed(this.fs, this.root, rel, abs)
        : null;
    if (file) this.put(file);
    else this.drop(rel, true);
    for (const link of this.linksByTarget.get(rel) ?? []) {
      const stamped = await statListed(this.fs, this.root, link);
      if (stamped) this.put(stamped);
      else this.drop(link, false);
    }
  }

  /**
   * @parcel/watcher on Linux watches a folder created or moved in, but not the folders already in it
   * (parcel-bundler/watcher#97), and after a rename it names the events of the moved folder's
   * subfolders by their old paths: edits there would never reach the listing. So the watcher
   * subscribes anew (a fresh crawl watches every folder as it is now), then walks the vault again for
   * what changed while it was not subscribed. (The old subscription must end first: both share one
   * inotify instance, and ending the old one afterwards would remove the watches the new one shares.)
   */
  private resubscribe(): void {
    this.resubscribeWanted = true;
    if (this.resubscribing || !this.subscribeFn) return;
    const subscribe = this.subscribeFn;
    this.resubscribing = (async () => {
      try {
        while (this.resubscribeWanted && this.live && !this.closed) {
          this.resubscribeWanted = false;
          const old = this.subscription;
          await old?.unsubscribe().catch(() => undefined);
          const next = await subscribe(this.root, (error, events) => this.receive(error, events), { ignore: this.ignore });
          if (this.closed || this.subscription !== old) {
            await next.unsubscribe().catch(() => undefined);
            return;
          }
          this.subscription = next;
          this.apply(() => this.reconcile());
        }
      } catch (error) {
        this.fail(`the file watcher could not follow a new folder (${messageOf(error)})`);
      } finally {
        this.resubscribing = null;
      }
    })();
  }

  /** Walks the whole vault and brings the listing in line with it. */
  private async reconcile(): Promise<void> {
    const seen = new Set<string>();
    for (const file of await walkVault(this.fs, this.root)) {
      seen.add(file.path);
      this.put(file);
    }
    for (const path of [...this.files.keys()]) if (!seen.has(path)) this.drop(path, false);
  }

  private tellApplied(): void {
    if (this.appliedPaths.size === 0 || !this.ready) return;
    const paths = [...this.appliedPaths].sort();
    this.appliedPaths.clear();
    for (const listener of this.appliedListeners) {
      try {
        listener(paths);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  private put(file: VaultFile): void {
    const known = this.files.get(file.path);
    if (known && known.size === file.size && known.mtimeMs === file.mtimeMs) return;
    this.files.set(file.path, file);
    this.changed.add(file.path);
    this.appliedPaths.add(file.path);
    this.sorted = null;
    this.changes++;
    // Also when it was known: a link may have been pointed elsewhere, or replaced by a file.
    this.noteLink(file.path);
  }

  /** Removes `rel` from the listing, and every path under it when `under` (a folder gone). */
  private drop(rel: string, under: boolean): void {
    this.forgetLink(rel);
    if (this.files.delete(rel)) {
      this.changed.add(rel);
      this.appliedPaths.add(rel);
      this.sorted = null;
      this.changes++;
    }
    if (under) this.dropUnder(rel, new Set());
  }

  private dropUnder(folder: string, keep: Set<string>): void {
    const prefix = `${folder}/`;
    for (const path of this.files.keys()) {
      if (!path.startsWith(prefix) || keep.has(path)) continue;
      this.forgetLink(path);
      this.files.delete(path);
      this.changed.add(path);
      this.appliedPaths.add(path);
      this.sorted = null;
      this.changes++;
    }
  }

  /** Remembers a listed link's target, so that an event on the target restamps the link. */
  private noteLink(rel: string): void {
    this.forgetLink(rel);
    const abs = nodePath.join(this.root, rel);
    let target: string;
    try {
      if (!this.fs.lstatSync(abs).isSymbolicLink()) return;
      target = nodePath.relative(this.root, nodePath.resolve(nodePath.dirname(abs), this.fs.readlinkSync(abs)));
    } catch {
      return;
    }
    const key = target.split(nodePath.sep).join('/');
    const links = this.linksByTarget.get(key) ?? new Set<string>();
    links.add(rel);
    this.linksByTarget.set(key, links);
    this.targetOf.set(rel, key);
  }

  private forgetLink(rel: string): void {
    const key = this.targetOf.get(rel);
    if (key === undefined) return;
    this.targetOf.delete(rel);
    const links = this.linksByTarget.get(key);
    links?.delete(rel);
    if (links?.size === 0) this.linksByTarget.delete(key);
  }
}

/** The vault's own dot-folders and top-level `node_modules`: not watched at all (git's churn raises no event). */
function ignoredAtStart(fs: VaultFs, root: string): string[] {
  const ignore = ['.git', '.lucid'];
  try {
    for (const entry of fs.readdirSync(root)) {
      if (entry.isDirectory() && isUnlistedName(entry.name, true) && !ignore.includes(entry.name)) ignore.push(entry.name);
    }
  } catch {
    // the walk reports an unreadable root
  }
  return ignore.map((name) => nodePath.join(root, name));
}

/** statfs magic numbers of network file systems (Linux), where another machine's changes raise no event here. */
const NETWORK_FILE_SYSTEMS: Record<number, string> = {
  26985: 'NFS',
  20859: 'SMB',
  4266872130: 'SMB2',
  4283649346: 'CIFS',
  16914839: '9P',
  12805120: 'Ceph',
  1196443219: 'GPFS',
  19993000: 'IBRIX',
  198183888: 'Lustre',
};

async function networkFileSystem(root: string): Promise<string | null> {
  if (process.platform !== 'linux') return null;
  const { statfs } = await import('node:fs/promises');
  const name = NETWORK_FILE_SYSTEMS[(await statfs(root)).type];
  return name ? `the vault is on a network file system (${name}), where changes made elsewhere raise no event` : null;
}

/** Whether the folder `abs` holds a folder the listing keeps. */
function hasSubfolder(fs: VaultFs, abs: string): boolean {
  try {
    return fs.readdirSync(abs).some((entry) => entry.isDirectory() && !isUnlistedName(entry.name, true));
  } catch {
    return false;
  }
}

function isFolderNow(fs: VaultFs, abs: string): boolean {
  try {
    return fs.lstatSync(abs).isDirectory();
  } catch {
    return false;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
