import { GitError, type SimpleGit, simpleGit } from 'simple-git';
import { isVaultError, VaultError } from '../errors';
import { gitEnv } from './env';
import { GIT_TIMEOUT_MS, gitFailureError, gitTimeoutError, withGitSlot } from './runner';

/**
 * The one place a simple-git instance is made: the porcelain reads a page shows as git prints them
 * (a commit's patch, a diff), through simple-git's `show()` and `diff()`. Each read gets the same
 * environment as the runner's processes (the caller's, filtered by `gitEnv`), holds one of the same
 * six process slots, is stopped after the same 120 s with the same `io_error`, and fails with the
 * same `locked` or `io_error` as `runGit`. simple-git's own guards stay on: its argument and
 * environment checks refuse pagers, editors, askpass, external diffs and the like, and only the
 * variables `gitEnv` lets through are allowed (GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM, when the
 * caller names them, are the configuration files git would read anyway). Plumbing, anything with
 * stdin or `-z` output, and the write path stay on the runner (runner.ts says why).
 */

/** Where a read runs: the vault folder and the caller's environment (lib/vault never reads `process.env`). */
export interface PorcelainTarget {
  root: string;
  env: Record<string, string | undefined>;
}

/** How one read runs; the runner's defaults when absent. */
export interface PorcelainOptions {
  /** Milliseconds after which the read is stopped (default 120 000). */
  timeoutMs?: number;
}

/** Config every read runs with: paths in patch headers as they are, never octal-quoted. */
const CONFIG = ['core.quotePath=false'];

/** simple-git for one read in `target.root`, stopped by `signal`; a non-zero exit is an error even when git printed nothing on stderr. */
function gitFor(target: PorcelainTarget, signal: AbortSignal): SimpleGit {
  const env = gitEnv(target.env);
  return simpleGit({
    baseDir: target.root,
    config: CONFIG,
    abort: signal,
    allowEnvironment: Object.keys(env),
    unsafe: { allowUnsafeConfigPaths: 'GIT_CONFIG_GLOBAL' in env || 'GIT_CONFIG_SYSTEM' in env },
    errors: (error, result) =>
      result.exitCode === 0 ? error : Buffer.concat(result.stdErr.length > 0 ? result.stdErr : [Buffer.from(`exit ${result.exitCode}`)]),
  }).env(env);
}

async function read(
  target: PorcelainTarget,
  command: string,
  args: readonly string[],
  task: (git: SimpleGit) => Promise<string>,
  options: PorcelainOptions,
): Promise<string> {
  const timeoutMs = options.timeoutMs ?? GIT_TIMEOUT_MS;
  return withGitSlot(async () => {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    // Rejects at the timeout even if git, sent SIGINT by simple-git's abort, is slow to go.
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(gitTimeoutError(command, args, timeoutMs));
      }, timeoutMs);
    });
    try {
      return await Promise.race([task(gitFor(target, controller.signal)), stopped]);
    } catch (error) {
      if (isVaultError(error)) throw error;
      if (error instanceof GitError) throw gitFailureError(command, error.message);
      throw new VaultError('io_error', `git ${command} failed: ${(error as Error).message ?? String(error)}`);
    } finally {
      clearTimeout(timer);
    }
  });
}

/**
 * `git show <args>` in the vault folder (simple-git's `show()`): stdout as git printed it. `args`
 * put user paths after `--` as literal pathspecs; a failure is a `locked` or `io_error` VaultError.
 */
export function showOutput(target: PorcelainTarget, args: readonly string[], options: PorcelainOptions = {}): Promise<string> {
  return read(target, 'show', args, (git) => git.show([...args]), options);
}

/**
 * `git diff <args>` in the vault folder (simple-git's `diff()`): the patch as git printed it. `args`
 * put user paths after `--` as literal pathspecs; a failure is a `locked` or `io_error` VaultError.
 */
export function diffOutput(target: PorcelainTarget, args: readonly string[], options: PorcelainOptions = {}): Promise<string> {
  return read(target, 'diff', args, (git) => git.diff([...args]), options);
}
