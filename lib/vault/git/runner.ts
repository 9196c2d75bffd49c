import { spawn, type ChildProcessWithoutNullStreams, type SpawnOptionsWithoutStdio } from 'node:child_process';
import { VaultError } from '../errors';

/**
 * How Lucid starts its plumbing git processes: one function every one of them goes through, passed
 * in through `OpenVaultOptions.git` so that tests can count or fail them. Porcelain reads whose
 * output a page shows as it is (patches, diffs) go through simple-git in `porcelain.ts`, under the
 * same limit ({@link withGitSlot}), timeout message and environment.
 *
 * Why a plain `spawn` and not simple-git here: simple-git 4 waits a fixed 50 ms after every
 * command that prints nothing (read-tree, update-index, update-ref: most of a write), takes stdin
 * only as an option of the whole instance, and its log parser refuses the `-z` output the commit
 * index is read from. One runner gives one error shape, stdin per call (`cat-file --batch`,
 * `hash-object --stdin`, `commit-tree -F -`), one real limit on concurrent processes and one
 * timeout, so that a hung git (an fsmonitor hook, gpg, a credential helper) cannot keep its slot
 * and the vault lock forever.
 */

/** One git invocation: arguments (user paths always after `--`), folder, environment, stdin. */
export interface GitInvocation {
  args: readonly string[];
  cwd: string;
  /** The complete environment of the process (already filtered by the caller). */
  env: Record<string, string>;
  /** Bytes written to git's stdin, then closed. */
  input?: string;
  /** Milliseconds after which the process is killed; the runner's own timeout when absent. */
  timeoutMs?: number;
}

/** Runs git once; resolves with stdout on exit 0, rejects with a {@link GitProcessError} otherwise. */
export type GitRunner = (invocation: GitInvocation) => Promise<string>;

/** A git process that exited non-zero, was killed by a signal, or could not start. */
export class GitProcessError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    /** The signal that ended the process, when one did. */
    readonly signal: NodeJS.Signals | null = null,
  ) {
    const command = `git ${args[0] ?? ''}`;
    super(
      signal
        ? `${command} was killed by ${signal}${stderr.trim() ? `: ${stderr.trim()}` : ''}`
        : `${command} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${stderr.trim() || 'no output'}`,
    );
    this.name = 'GitProcessError';
  }
}

/** How a runner starts processes: `child_process.spawn` with piped stdio, or a test's fake. */
type Spawn = (command: string, args: readonly string[], options: SpawnOptionsWithoutStdio) => ChildProcessWithoutNullStreams;

/** How {@link createGitRunner} builds a runner; every field has the production default. */
export interface GitRunnerOptions {
  /** At most this many processes of this runner at once (default 6). */
  maxProcesses?: number;
  /** Milliseconds after which a process is killed with SIGKILL (default 120 000). */
  timeoutMs?: number;
  /** The program to run (default `git` from PATH); tests run a stand-in such as `sleep`. */
  command?: string;
  /** What starts the process (default `child_process.spawn`); tests pass a fake. */
  spawn?: Spawn;
}

/** At most this many git processes at once per Node process (a dashboard serving many requests). */
const MAX_GIT_PROCESSES = 6;
/** Long enough for a `git log` over a large history, short enough that a hung git gives its slot back. */
export const GIT_TIMEOUT_MS = 120_000;

/**
 * A counting semaphore that hands a freed slot straight to the next waiter: `running` only drops
 * when nobody waits, so a call arriving between a release and the waiter's wake-up cannot take
 * the same slot a second time.
 */
function slots(max: number): () => Promise<() => void> {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  return async () => {
    if (running < max) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      release();
    };
  };
}

/**
 * Builds a runner: stdout collected without a size limit (the commit log can be long), at most
 * `maxProcesses` at once, each killed with SIGKILL after `timeoutMs` (then rejected with an
 * `io_error` {@link VaultError} naming the command and the time).
 */
export function createGitRunner(options: GitRunnerOptions = {}): GitRunner {
  return buildRunner(slots(options.maxProcesses ?? MAX_GIT_PROCESSES), options);
}

function buildRunner(slot: () => Promise<() => void>, options: GitRunnerOptions): GitRunner {
  const command = options.command ?? 'git';
  const start = options.spawn ?? (spawn as Spawn);
  const defaultTimeout = options.timeoutMs ?? GIT_TIMEOUT_MS;
  return async ({ args, cwd, env, input, timeoutMs = defaultTimeout }) => {
    const release = await slot();
    try {
      return await new Promise<string>((resolve, reject) => {
        const child = start(command, [...args], { cwd, env: env as unknown as NodeJS.ProcessEnv, stdio: 'pipe' });
        const out: Buffer[] = [];
        const err: Buffer[] = [];
        let settled = false;
        const settle = (finish: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          finish();
        };
        // Rejects at once rather than on 'close': a hook's child can hold the pipes open after git dies.
        const timer = setTimeout(() => {
          settle(() => {
            child.kill('SIGKILL');
            child.stdout.destroy();
            child.stderr.destroy();
            reject(gitTimeoutError(args[0] ?? '', args, timeoutMs));
          });
        }, timeoutMs);
        child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
        child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
        child.on('error', (error) => settle(() => reject(new GitProcessError(args, null, error.message))));
        child.on('close', (code: number | null, signal: NodeJS.Signals | null) =>
          settle(() => {
            if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
            else reject(new GitProcessError(args, code, Buffer.concat(err).toString('utf8'), signal));
          }),
        );
        child.stdin.on('error', () => undefined); // git may exit before reading all of stdin
        child.stdin.end(input ?? '');
      });
    } finally {
      release();
    }
  };
}

/**
 * The `io_error` of a git process stopped after `timeoutMs`, naming `command` (its subcommand).
 * The runner and simple-git's reads both say it this way.
 */
export function gitTimeoutError(command: string, args: readonly string[], timeoutMs: number): VaultError {
  return new VaultError(
    'io_error',
    `git ${command} was stopped after ${timeoutMs / 1000} s without finishing (a hook, signing or a credential helper waiting?).`,
    { args: [...args], timeoutMs },
  );
}

/**
 * What a failed git process (`command`, its subcommand) means to the vault: `locked` when another
 * git holds index.lock, else an `io_error` with the first lines of what git said.
 */
export function gitFailureError(command: string, message: string): VaultError {
  if (/index\.lock/.test(message)) {
    return new VaultError('locked', 'Another git process holds .git/index.lock. Wait for it to finish; if none is running, delete .git/index.lock.');
  }
  return new VaultError('io_error', `git ${command} failed: ${message.trim().split('\n').slice(0, 3).join(' ')}`);
}

/** The process's git slots: {@link spawnGit} and simple-git's reads (porcelain.ts) share these six. */
const processSlots = slots(MAX_GIT_PROCESSES);

/** Runs `task` holding one of the Node process's git slots (the limit {@link spawnGit} keeps). */
export async function withGitSlot<T>(task: () => Promise<T>): Promise<T> {
  const release = await processSlots();
  try {
    return await task();
  } finally {
    release();
  }
}

/** The real runner: `git` from PATH, shared by every vault of the Node process. */
export const spawnGit: GitRunner = buildRunner(processSlots, {});
