/**
 * The environment of every git process Lucid starts, through the runner or through simple-git:
 * the caller's environment (passed in; lib/vault never reads `process.env`) cut down to what git
 * may see, with prompts off, no optional locks and C messages.
 */

/**
 * The variables git may see from the caller's environment. Everything else (GIT_DIR and
 * GIT_INDEX_FILE from a hook, pagers, editors, askpass, SSH commands) is left out.
 */
const PASSED_ENV =
  /^(PATH|HOME|USER|LOGNAME|LANG|LANGUAGE|LC_[A-Z]+|TZ|TMPDIR|XDG_CONFIG_HOME|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM|GIT_CONFIG_NOSYSTEM|SYSTEMROOT)$/;

/** The complete environment of one git process: `callerEnv` filtered, Lucid's settings, then `extraEnv` (a commit's author, its temporary index). */
export function gitEnv(callerEnv: Record<string, string | undefined>, extraEnv: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(callerEnv)) if (value !== undefined && PASSED_ENV.test(key)) env[key] = value;
  return Object.assign(env, { GIT_TERMINAL_PROMPT: '0', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' }, extraEnv);
}
