import fs from 'node:fs';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import lockfile from 'proper-lockfile';
import { nodeFs, type VaultFs } from '../fs';
import { VaultError } from '../errors';

/** How long a lock may go without a heartbeat before another process may take it over. */
const LOCK_STALE_MS = 10_000;
/** proper-lockfile's own floor for the stale time. */
const MIN_STALE_MS = 2000;

/** Options for {@link withVaultLock}. */
export interface LockOptions {
  staleMs?: number;
  /** How long to keep trying before giving up with `locked`. */
  waitMs?: number;
}

const inProcess = new Map<string, Promise<unknown>>();

/**
 * Runs `task` holding the vault lock: a lock directory in `.lucid/` shared by every process
 * (dashboard, MCP servers, CLI), refreshed while held and taken over when its holder died.
 * Calls in one process queue up in order instead of polling. If the lock is lost while held,
 * `task`'s `assertHeld` throws, so the write aborts before its commit.
 */
export async function withVaultLock<T>(lockPath: string, task: (assertHeld: () => void) => Promise<T>, options: LockOptions = {}): Promise<T> {
  const previous = inProcess.get(lockPath) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const chained = previous.then(() => mine);
  inProcess.set(lockPath, chained);
  await previous.catch(() => undefined);
  try {
    return await withFileLock(lockPath, task, options);
  } finally {
    release();
    if (inProcess.get(lockPath) === chained) inProcess.delete(lockPath);
  }
}

async function withFileLock<T>(lockPath: string, task: (assertHeld: () => void) => Promise<T>, options: LockOptions): Promise<T> {
  const stale = options.staleMs ?? LOCK_STALE_MS;
  const waitMs = options.waitMs ?? 60_000;
  let compromised: Error | null = null;
  let unlock: () => Promise<void>;
  // Elapsed time, not the time of day: a monotonic timer, unaffected by the vault's (possibly fixed) clock.
  const started = performance.now();
  for (;;) {
    try {
      unlock = await lockfile.lock(lockPath, {
        lockfilePath: `${lockPath}.lock`,
        realpath: false,
        stale,
        update: Math.max(1000, Math.floor(stale / 3)),
        retries: 0,
        onCompromised: (error) => {
          compromised = error;
        },
      });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') {
        throw new VaultError('io_error', `Could not take the vault lock: ${(error as Error).message}`);
      }
      if (reclaimFromDeadOwner(lockPath)) continue;
      if (performance.now() - started > waitMs) {
        throw new VaultError(
          'locked',
          `Another Lucid process has held the vault lock (${lockPath}.lock) for over ${Math.round(waitMs / 1000)} s. Try again; \`lucid doctor\` shows who holds it.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 15 + Math.random() * 35));
    }
  }
  const heldIno = writeOwner(lockPath);
  // Taken over by another process: its lock directory must not be removed by our unlock.
  let takenOver = false;
  const assertHeld = () => {
    if (compromised) throw new VaultError('locked', `The vault lock was lost while writing (${(compromised as Error).message}); nothing was committed.`);
    // proper-lockfile notices a takeover only when its refresh timer runs, which long synchronous work
    // (composing or scanning a large note) delays past the stale time: look at the lock directory now.
    const lost = lockLost(lockPath, heldIno, Math.max(stale, MIN_STALE_MS));
    if (lost === null) return;
    takenOver = lost.takenOver;
    throw new VaultError('locked', `The vault lock was lost while writing (${lost.why}); nothing was committed. Try again.`);
  };
  try {
    return await task(assertHeld);
  } finally {
    removeOwner(lockPath);
    if (!takenOver) await unlock!().catch(() => undefined);
  }
}

/**
 * Why the lock directory is no longer this holder's (gone, or another inode: another process took it
 * over), or why it may be taken over at any moment (its heartbeat is older than the stale time, the
 * test every other process makes); null while it is still ours and fresh.
 */
function lockLost(lockPath: string, heldIno: number | null, stale: number): { why: string; takenOver: boolean } | null {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(`${lockPath}.lock`);
  } catch {
    return { why: 'its lock directory is gone', takenOver: true };
  }
  if (heldIno !== null && stat.ino !== heldIno) return { why: 'another process took it over', takenOver: true };
  const age = Date.now() - stat.mtimeMs;
  if (age > stale) return { why: `it was not refreshed for ${Math.round(age / 1000)} s, so another process may take it over`, takenOver: false };
  return null;
}

/** Who holds the lock: written beside the lock directory (proper-lockfile removes it with rmdir, so nothing goes inside). */
interface LockOwner {
  pid: number;
  hostname: string;
  /** The pid namespace (`/proc/self/ns/pid`): a container sharing the host's name has its own pids. */
  pidNamespace?: string;
  /** The lock directory's inode, so an owner file is never taken for a later lock's. */
  ino: number;
}

const ownerPath = (lockPath: string) => `${lockPath}.owner`;

/** Writes the owner file; returns the lock directory's inode (null if it could not be read). */
function writeOwner(lockPath: string): number | null {
  let ino: number | null = null;
  try {
    ino = fs.statSync(`${lockPath}.lock`).ino;
    const owner: LockOwner = { pid: process.pid, hostname: hostname(), pidNamespace: pidNamespace(), ino };
    const temp = `${ownerPath(lockPath)}.${process.pid}`;
    fs.writeFileSync(temp, JSON.stringify(owner));
    fs.renameSync(temp, ownerPath(lockPath));
  } catch {
    // without an owner file, a crash of this holder is only taken over once the lock is stale
  }
  return ino;
}

function removeOwner(lockPath: string): void {
  try {
    const owner = JSON.parse(fs.readFileSync(ownerPath(lockPath), 'utf8')) as LockOwner;
    if (owner.pid === process.pid && owner.hostname === hostname()) fs.unlinkSync(ownerPath(lockPath));
  } catch {
    // already gone
  }
}

function pidNamespace(): string {
  try {
    return fs.readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A lock whose holder died on this host (kill -9, a crash) is taken over at once instead of
 * after the stale threshold: when the owner file names this lock directory and a process of this
 * host (and pid namespace) that no longer runs, one waiting writer claims the owner file (a rename
 * only one can win) and removes the lock directory itself; every waiter then races on mkdir, which
 * only one wins. (Ageing the directory instead let proper-lockfile's stale takeover run in two
 * waiters at once, and both held the lock.) A holder on another host, or a live one, is waited for.
 */
function reclaimFromDeadOwner(lockPath: string): boolean {
  const file = ownerPath(lockPath);
  try {
    const text = fs.readFileSync(file, 'utf8');
    const owner = JSON.parse(text) as LockOwner;
    if (owner.hostname !== hostname() || (owner.pidNamespace ?? '') !== pidNamespace()) return false;
    if (owner.pid === process.pid || isAlive(owner.pid)) return false;
    if (fs.statSync(`${lockPath}.lock`).ino !== owner.ino) return false;
    const claimed = `${file}.claimed-${process.pid}`;
    fs.renameSync(file, claimed);
    const same = fs.readFileSync(claimed, 'utf8') === text;
    fs.unlinkSync(claimed);
    if (!same) return false;
    if (fs.statSync(`${lockPath}.lock`).ino !== owner.ino) return false;
    fs.rmdirSync(`${lockPath}.lock`);
    return true;
  } catch {
    return false;
  }
}

/** Whether the lock directory exists, and how old its heartbeat is. */
export async function inspectLock(lockPath: string, fs: Pick<VaultFs, 'existsSync'> = nodeFs): Promise<{ held: boolean; stale: boolean }> {
  const held = await lockfile.check(lockPath, { lockfilePath: `${lockPath}.lock`, realpath: false, stale: LOCK_STALE_MS }).catch(() => false);
  const exists = fs.existsSync(`${lockPath}.lock`);
  return { held, stale: exists && !held };
}
