import os from 'node:os';
import nodePath from 'node:path';
import { isVaultError, openVault, type Vault } from '../lib/vault/index';

export { UsageError, type Io } from './io';
import { indexWorkers } from './index-workers';
import { UsageError, type Io } from './io';

/** The person's name when git has none: LUCID_USER, else the operating-system user. */
export function fallbackUser(env: Record<string, string | undefined>): string {
  if (env.LUCID_USER) return env.LUCID_USER;
  try {
    return os.userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** The machine's name for `Lucid-Machine` when LUCID_MACHINE sets it (else the vault asks git config, then the host name). */
export function machineOption(env: Record<string, string | undefined>): { machine?: string } {
  return env.LUCID_MACHINE ? { machine: env.LUCID_MACHINE } : {};
}

/** The vault folder a command works on: --vault, else LUCID_VAULT, else the current folder. */
export function vaultDir(io: Io, given: string | undefined): string {
  return nodePath.resolve(io.cwd, given ?? io.env.LUCID_VAULT ?? '.');
}

/** Opens the vault named on the command line. */
export async function openCliVault(io: Io, given: string | undefined): Promise<Vault> {
  // A large index build parses notes in worker threads (cli/index-workers.ts finds the script).
  const workers = indexWorkers();
  return openVault({
    root: vaultDir(io, given),
    env: io.env,
    fallbackUser: fallbackUser(io.env),
    ...machineOption(io.env),
    ...(workers ? { indexWorkers: workers } : {}),
  });
}

/** Prints a value as JSON (for --json). */
export function printJson(io: Io, value: unknown): void {
  io.out(JSON.stringify(value, null, 2));
}

/** Maps an error to a message on stderr and an exit code. */
export function reportError(io: Io, error: unknown): number {
  if (error instanceof UsageError) {
    io.err(`lucid: ${error.message}${error.hint ? ` (${error.hint})` : ''}\nRun \`lucid --help\` for usage.`);
    return 2;
  }
  if (isVaultError(error)) {
    io.err(`lucid: ${error.message}`);
    return 1;
  }
  io.err(`lucid: unexpected error: ${(error as Error)?.stack ?? String(error)}`);
  return 1;
}

/** An argument as a POSIX shell reads it back: as it is when it is plain, else in single quotes. */
export function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A line of progress on stderr, rewritten in place; see {@link statusLine}. */
export interface StatusLine {
  /**
   * Shows `text` in place of the line: at most every 100 ms unless `now` (a first or last step);
   * `keep` ends the line so the next one starts below it.
   */
  show: (text: string, options?: { now?: boolean; keep?: boolean }) => void;
  /** Clears a line still showing, so the command's output starts on a clean line. */
  done: () => void;
}

/** Progress on stderr only when it is a terminal (tests set `isTTY` and read `err`); piped output stays clean. */
export function statusLine(io: Io & { isTTY?: boolean }): StatusLine {
  const tty = io.isTTY ?? Boolean(process.stderr.isTTY);
  if (!tty) return { show: () => undefined, done: () => undefined };
  // The real io.err ends every text with a line break; a line rewritten in place must not have one.
  const write = (text: string) => (io.isTTY !== undefined ? io.err(text) : process.stderr.write(text));
  let last = 0;
  let open = false;
  return {
    show(text, { now = false, keep = false } = {}) {
      const at = Date.now();
      if (!now && !keep && at - last < 100) return;
      last = at;
      write(`\r\u001b[K${text}${keep ? '\n' : ''}`);
      open = !keep;
    },
    done() {
      if (open) write('\r\u001b[K');
      open = false;
    },
  };
}
