import nodePath from 'node:path';
import { VaultError, isVaultError } from '../errors';
import { gitConfig, runGit, type GitRepo } from '../git/repo';
import { TEMP_PREFIX } from '../notes/paths';
import type { Vault } from '../vault';
import type { RemoteState, SyncReport } from './types';

/**
 * The sync's dealings with the network and its own state file: which remote and branch, fetch and
 * push with git's own credentials (never prompting, nothing stored by Lucid), `.lucid/sync.json`.
 */

/** The remote and branches one sync works with. */
export interface SyncTarget {
  remote: string;
  /** The local branch (HEAD's). */
  branch: string;
  /** The remote's branch it integrates and pushes to (the upstream's, else the same name). */
  remoteBranch: string;
  /** `refs/remotes/<remote>/<remoteBranch>`. */
  trackingRef: string;
}

const REMOTE_NAME = /^[A-Za-z0-9_][A-Za-z0-9._/-]*$/;
const CREDENTIAL_HINT =
  "Lucid uses git's own credentials and stores none: check that `git fetch` works in this folder (an ssh key loaded in ssh-agent, or a credential helper for https), then run lucid sync again.";

/** HEAD's branch name, or null on a detached HEAD. */
async function currentBranch(repo: GitRepo): Promise<string | null> {
  const ref = (await runGit(repo, ['symbolic-ref', '-q', 'HEAD']).catch(() => '')).trim();
  return ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
}

/** The names of the vault's remotes. */
async function remoteNames(repo: GitRepo): Promise<string[]> {
  return (await runGit(repo, ['remote']))
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/**
 * The remote and branches to sync: `remote` when given, else the branch's upstream remote, else
 * `origin`. `invalid_input` when there is no such remote (or none at all), saying how to add one;
 * `repo_state` on a detached HEAD.
 */
export async function resolveTarget(repo: GitRepo, remote?: string): Promise<SyncTarget> {
  const branch = await currentBranch(repo);
  if (!branch)
    throw new VaultError('repo_state', "The vault's git repository has a detached HEAD. Check out your branch (git switch main), then run lucid sync again.");
  const names = await remoteNames(repo);
  if (names.length === 0) {
    throw new VaultError('invalid_input', 'This vault has no git remote to sync with. Add one (git remote add origin <url>), then run lucid sync again.');
  }
  const upstream = await gitConfig(repo, `branch.${branch}.remote`);
  const name = remote ?? (upstream && names.includes(upstream) ? upstream : 'origin');
  if (!REMOTE_NAME.test(name) || !names.includes(name)) {
    throw new VaultError(
      'invalid_input',
      `This vault has no remote named "${name}" (it has ${names.join(', ')}). Use --remote NAME, or add it with git remote add ${REMOTE_NAME.test(name) ? name : 'NAME'} <url>.`,
      {
        field: 'remote',
      },
    );
  }
  const merge = name === upstream ? await gitConfig(repo, `branch.${branch}.merge`) : null;
  const remoteBranch = merge?.startsWith('refs/heads/') ? merge.slice('refs/heads/'.length) : branch;
  return { remote: name, branch, remoteBranch, trackingRef: `refs/remotes/${name}/${remoteBranch}` };
}

/** The remote's URL with any user name and password taken out (null when it has none). */
async function remoteUrl(repo: GitRepo, remote: string): Promise<string | null> {
  const url = (await runGit(repo, ['remote', 'get-url', '--', remote]).catch(() => '')).trim();
  return url ? stripCredentials(url) : null;
}

/** `https://user:pass@host/x` → `https://host/x`; other forms (scp-like ssh, paths) unchanged. */
export function stripCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, '$1');
}

/**
 * What a network git command takes from the person's environment besides what every git command
 * does: the ssh agent and ssh command, proxies and certificate authorities (as `git fetch` in their
 * terminal would), and what keyrings a credential helper talks to (libsecret over D-Bus).
 */
const NETWORK_ENV =
  /^(SSH_AUTH_SOCK|SSH_AGENT_PID|GIT_SSH|GIT_SSH_COMMAND|GIT_SSH_VARIANT|GIT_PROXY_COMMAND|(http|https|all|no)_proxy|(HTTP|HTTPS|ALL|NO)_PROXY|SSL_CERT_FILE|SSL_CERT_DIR|GIT_SSL_CAINFO|GIT_SSL_CAPATH|DBUS_SESSION_BUS_ADDRESS|XDG_RUNTIME_DIR)$/;

/**
 * The environment of a network git command: {@link NETWORK_ENV} passes through; unless the
 * person chose an ssh command, ssh runs in batch mode, so a missing key fails at once instead of
 * asking for a passphrase (git itself never prompts: GIT_TERMINAL_PROMPT=0).
 */
async function networkEnv(repo: GitRepo): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(repo.env)) if (value && NETWORK_ENV.test(key)) env[key] = value;
  if (!env.GIT_SSH && !env.GIT_SSH_COMMAND && !(await gitConfig(repo, 'core.sshCommand'))) env.GIT_SSH_COMMAND = 'ssh -o BatchMode=yes';
  return env;
}

/** git's own message of a failed command, one line. */
function gitMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // git's advice ("hint: …") is for its own command line, not for a Lucid user.
  const hint = text.indexOf('hint: ');
  return (hint === -1 ? text : text.slice(0, hint))
    .replace(/^git \w+ failed: /, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Fetches the remote's branch into its tracking ref; returns the remote branch's commit, or null
 * when the remote has no such branch (an empty repository: nothing to integrate). A failure is
 * `io_error` with git's message and how to fix credentials.
 */
export async function fetchRemote(repo: GitRepo, target: SyncTarget): Promise<string | null> {
  const spec = `+refs/heads/${target.remoteBranch}:${target.trackingRef}`;
  try {
    await runGit(repo, ['fetch', '--no-tags', '--no-write-fetch-head', '--', target.remote, spec], await networkEnv(repo));
  } catch (error) {
    const message = gitMessage(error);
    if (!/couldn't find remote ref/i.test(message)) {
      throw new VaultError(
        'io_error',
        `Could not fetch from ${target.remote} (${(await remoteUrl(repo, target.remote)) ?? 'no URL'}): ${message}. ${CREDENTIAL_HINT}`,
      );
    }
    await runGit(repo, ['update-ref', '-d', target.trackingRef]).catch(() => undefined);
    return null;
  }
  return trackingCommit(repo, target);
}

/** The tracking ref's commit as of the last fetch, or null. */
async function trackingCommit(repo: GitRepo, target: Pick<SyncTarget, 'trackingRef'>): Promise<string | null> {
  const out = await runGit(repo, ['rev-parse', '--verify', '-q', `${target.trackingRef}^{commit}`]).catch(() => '');
  return out.trim() || null;
}

/**
 * Pushes `commit` (HEAD as read just before) to the remote's branch. Returns 'rejected' when the remote moved on (someone pushed
 * meanwhile: fetch and integrate again); any other failure is `io_error` with git's message.
 */
export async function pushRemote(repo: GitRepo, target: SyncTarget, commit: string): Promise<'pushed' | 'rejected'> {
  try {
    await runGit(repo, ['push', '--', target.remote, `${commit}:refs/heads/${target.remoteBranch}`], await networkEnv(repo));
    return 'pushed';
  } catch (error) {
    const message = gitMessage(error);
    if (
      / ! \[rejected\]|non-fast-forward|fetch first|Updates were rejected|stale info|incorrect old value|cannot lock ref|failed to update ref/i.test(
        error instanceof Error ? error.message : '',
      )
    )
      return 'rejected';
    throw new VaultError('io_error', `Could not push to ${target.remote}: ${message}. ${CREDENTIAL_HINT.replace('`git fetch`', '`git push`')}`);
  }
}

/** Local and remote commits not in the other (as of the last fetch); zeros when there is no tracking ref. */
async function aheadBehind(repo: GitRepo, trackingRef: string | null): Promise<{ ahead: number; behind: number }> {
  if (!trackingRef) return { ahead: 0, behind: 0 };
  try {
    const [ahead, behind] = (await runGit(repo, ['rev-list', '--left-right', '--count', `HEAD...${trackingRef}`, '--'])).trim().split(/\s+/).map(Number);
    return { ahead: ahead || 0, behind: behind || 0 };
  } catch {
    const ahead = Number((await runGit(repo, ['rev-list', '--count', 'HEAD', '--']).catch(() => '0')).trim()) || 0;
    return { ahead, behind: 0 };
  }
}

/** What `.lucid/sync.json` holds. */
interface SyncFile {
  lastSync: string | null;
  lastError: string | null;
  lastReport: SyncReport | null;
}

const SYNC_FILE = 'sync.json';

/** `.lucid/sync.json` as last written (all null when absent or unreadable). Never creates `.lucid/`. */
async function readSyncFile(vault: Vault): Promise<SyncFile> {
  const empty: SyncFile = { lastSync: null, lastError: null, lastReport: null };
  try {
    const parsed = JSON.parse((await vault.fs.readFile(nodePath.join(vault.root, '.lucid', SYNC_FILE))).toString('utf8')) as Partial<SyncFile>;
    return {
      lastSync: typeof parsed.lastSync === 'string' ? parsed.lastSync : null,
      lastError: typeof parsed.lastError === 'string' ? parsed.lastError : null,
      lastReport: parsed.lastReport && typeof parsed.lastReport === 'object' ? parsed.lastReport : null,
    };
  } catch {
    return empty;
  }
}

/** Records a sync's outcome in `.lucid/sync.json` (a success clears the last error; a failure keeps the last success). */
export async function writeSyncFile(vault: Vault, outcome: { report: SyncReport; at: Date } | { error: string }): Promise<void> {
  const previous = await readSyncFile(vault);
  const next: SyncFile =
    'report' in outcome ? { lastSync: outcome.at.toISOString(), lastError: null, lastReport: outcome.report } : { ...previous, lastError: outcome.error };
  const dir = vault.stateDir();
  const temp = nodePath.join(dir, `${TEMP_PREFIX}${vault.ids.base32(10)}`);
  try {
    await vault.fs.writeNewFile(temp, Buffer.from(`${JSON.stringify(next, null, 2)}\n`, 'utf8'), 0o600);
    await vault.fs.rename(temp, nodePath.join(dir, SYNC_FILE));
  } catch {
    await vault.fs.unlink(temp).catch(() => undefined);
  }
}

/**
 * The vault's remote as of the last fetch (no network): its name and URL (credentials stripped),
 * the branch, commits ahead and behind, and the last sync's time, error and report. `remote: null`
 * when the vault has no remote at all (or not the one named).
 */
export async function remoteState(vault: Vault, remote?: string): Promise<RemoteState> {
  const saved = await readSyncFile(vault);
  let target: SyncTarget | null = null;
  try {
    target = await resolveTarget(vault.repo, remote);
  } catch (error) {
    if (!isVaultError(error)) throw error;
  }
  if (!target) {
    return { remote: null, url: null, branch: await currentBranch(vault.repo), ahead: 0, behind: 0, ...saved };
  }
  const tracking = (await trackingCommit(vault.repo, target)) ? target.trackingRef : null;
  return {
    remote: target.remote,
    url: await remoteUrl(vault.repo, target.remote),
    branch: target.branch,
    ...(await aheadBehind(vault.repo, tracking)),
    ...saved,
  };
}
