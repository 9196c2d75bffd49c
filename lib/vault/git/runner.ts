import { spawn } from 'node:child_process';

/**
 * How Lucid starts git: one function every git process goes through, passed in through
 * `OpenVaultOptions.git` so that tests can count or fail git processes.
 *
 * Why a plain `spawn` and not simple-git: Lucid only ever used simple-git's `raw()`, so its API
 * did no work for us, while simple-git 4 waits a fixed 50 ms after every command that prints
 * nothing (read-tree, update-index, update-ref: most of a write) and its concurrency limit was
 * per instance, and an instance was built per call, so it limited nothing. One runner gives one
 * error shape, stdin for `cat-file --batch-check`, and one real limit on concurrent processes.
 */

/** One git invocation: arguments (user paths always after `--`), folder, environment, stdin. */
export interface GitInvocation {
  args: readonly string[];
  cwd: string;
  /** The complete environment of the process (already filtered by the caller). */
  env: Record<string, string>;
  /** Bytes written to git's stdin, then closed. */
  input?: string;
}

/** Runs git once; resolves with stdout on exit 0, rejects with a {@link GitProcessError} otherwise. */
export type GitRunner = (invocation: GitInvocation) => Promise<string>;

/** A git process that exited non-zero (or could not start). */
export class GitProcessError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0] ?? ''} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${stderr.trim() || 'no output'}`);
    this.name = 'GitProcessError';
  }
}

/** At most this many git processes at once per Node process (a dashboard serving many requests). */
const MAX_GIT_PROCESSES = 6;

let running = 0;
const waiting: (() => void)[] = [];

async function slot(): Promise<() => void> {
  if (running >= MAX_GIT_PROCESSES) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  return () => {
    running -= 1;
    waiting.shift()?.();
  };
}

/** The real runner: `git` from PATH, stdout collected without a size limit (the commit log can be long). */
export const spawnGit: GitRunner = async ({ args, cwd, env, input }) => {
  const release = await slot();
  try {
    return await new Promise<string>((resolve, reject) => {
      const child = spawn('git', [...args], { cwd, env: env as unknown as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', (error) => reject(new GitProcessError(args, null, error.message)));
      child.on('close', (code) => {
        if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
        else reject(new GitProcessError(args, code, Buffer.concat(err).toString('utf8')));
      });
      child.stdin.on('error', () => undefined); // git may exit before reading all of stdin
      child.stdin.end(input ?? '');
    });
  } finally {
    release();
  }
};
