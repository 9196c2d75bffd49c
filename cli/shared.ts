import os from 'node:os';
import nodePath from 'node:path';
import { isVaultError, openVault, type Vault } from '../lib/vault/index';

/** A usage mistake: printed with the command's help, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** What to type instead, printed after the message (e.g. the flag a field is given with). */
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Where a command writes; tests pass buffers. */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  cwd: string;
  env: Record<string, string | undefined>;
}

/** The real process's streams and environment. */
export function processIo(): Io {
  // `lucid log | head` closes the pipe early: that is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
  });
  return {
    out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
    cwd: process.cwd(),
    env: process.env,
  };
}

/** The person's name when git has none: LUCID_USER, else the operating-system user. */
export function fallbackUser(env: Record<string, string | undefined>): string {
  if (env.LUCID_USER) return env.LUCID_USER;
  try {
    return os.userInfo().username;
  } catch {
    return 'unknown';
  }
}

/** The vault folder a command works on: --vault, else LUCID_VAULT, else the current folder. */
export function vaultDir(io: Io, given: string | undefined): string {
  return nodePath.resolve(io.cwd, given ?? io.env.LUCID_VAULT ?? '.');
}

/** Opens the vault named on the command line. */
export async function openCliVault(io: Io, given: string | undefined): Promise<Vault> {
  return openVault({ root: vaultDir(io, given), env: io.env, fallbackUser: fallbackUser(io.env) });
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
