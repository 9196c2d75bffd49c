import { performance } from 'node:perf_hooks';
import lockfile from 'proper-lockfile';
import { nodeFs, type VaultFs } from '../fs';
import { VaultError } from '../errors';

/** How long a lock may go without a heartbeat before another process may take it over. */
const LOCK_STALE_MS = 10_000;

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
      if (performance.now() - started > waitMs) {
        throw new VaultError(
          'locked',
          `Another Lucid process has held the vault lock (${lockPath}.lock) for over ${Math.round(waitMs / 1000)} s. Try again; \`lucid doctor\` shows who holds it.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 15 + Math.random() * 35));
    }
  }
  const assertHeld = () => {
    if (compromised) throw new VaultError('locked', `The vault lock was lost while writing (${(compromised as Error).message}); nothing was committed.`);
  };
  try {
    return await task(assertHeld);
  } finally {
    await unlock!().catch(() => undefined);
  }
}

/** Whether the lock directory exists, and how old its heartbeat is. */
export async function inspectLock(lockPath: string, fs: Pick<VaultFs, 'existsSync'> = nodeFs): Promise<{ held: boolean; stale: boolean }> {
  const held = await lockfile.check(lockPath, { lockfilePath: `${lockPath}.lock`, realpath: false, stale: LOCK_STALE_MS }).catch(() => false);
  const exists = fs.existsSync(`${lockPath}.lock`);
  return { held, stale: exists && !held };
}
