// Kept apart from shared.ts, which loads lib/vault: `lucid --help` needs only these.

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
