import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { VaultFs } from '../../lib/vault/fs';
import { seededIds, type Clock } from '../../lib/vault/ids';
import { openVault, type OpenVaultOptions, type Vault } from '../../lib/vault/vault';

/** The person every temp vault's git config names. */
export const TEST_PERSON = 'Test Person';
export const TEST_EMAIL = 'test.person@example.invalid';

/** A clock that returns `start`, then `start + stepMs`, and so on; `set` moves it. */
export interface SteppingClock {
  (): Date;
  set(date: Date): void;
}

/** A clock starting at `start` (local time) that advances by `stepMs` each time it is read. */
export function steppingClock(start: Date, stepMs = 60_000): SteppingClock {
  let next = start.getTime();
  const clock = (() => {
    const now = new Date(next);
    next += stepMs;
    return now;
  }) as SteppingClock;
  clock.set = (date: Date) => {
    next = date.getTime();
  };
  return clock;
}

/** What `open` accepts on top of the defaults of a temp vault. */
export interface TempVaultOpenOptions {
  clock?: Clock;
  /** Seed of the id source; each `open` gets a fresh seed by default, so two instances never share ids. */
  seed?: number;
  fs?: VaultFs;
  lock?: OpenVaultOptions['lock'];
  /** Open through another path (e.g. a symlink to the root). */
  root?: string;
}

/** A throwaway git repository holding a vault, with raw access for assertions. */
export interface TempVault {
  /** Canonical absolute path of the vault. */
  root: string;
  /** The environment git runs with: isolated from the user's global and system config. */
  env: Record<string, string | undefined>;
  /** Runs raw `git` in the vault and returns stdout (throws on a non-zero exit). */
  git(args: string[]): string;
  /** Opens the vault through the library under test. */
  open(options?: TempVaultOpenOptions): Promise<Vault>;
  /** Writes a file (creating folders) without going through Lucid, as a person or Obsidian would. */
  write(rel: string, content: string | Uint8Array): void;
  read(rel: string): string;
  readBytes(rel: string): Buffer;
  exists(rel: string): boolean;
  /** `git rev-parse HEAD`. */
  head(): string;
  /** `git rev-list --count HEAD`. */
  commitCount(): number;
  /** Removes the vault and everything made with `tempDir`. */
  cleanup(): void;
  /** A further temp folder (outside the vault) removed by `cleanup`. */
  tempDir(label: string): string;
}

/** The default clock start: 15 November 2026, 10:00 local time. */
export const DEFAULT_START = new Date(2026, 10, 15, 10, 0, 0);

let seedCounter = 1;

/** The environment for git in tests: the caller's, minus anything that would redirect or configure git. */
export function isolatedGitEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith('GIT_')) continue;
    env[key] = value;
  }
  env.GIT_CONFIG_GLOBAL = os.devNull;
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_TERMINAL_PROMPT = '0';
  return env;
}

let template: string | undefined;

/** The `.git` of an empty repository (`git init -q -b main`, user.name, user.email, no signing), made once. */
function templateGitDir(env: Record<string, string | undefined>): string {
  if (template && fs.existsSync(template)) return template;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-template-'));
  const git = (args: string[]) => execFileSync('git', args, { cwd: dir, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  git(['init', '-q', '-b', 'main']);
  git(['config', 'user.name', TEST_PERSON]);
  git(['config', 'user.email', TEST_EMAIL]);
  git(['config', 'commit.gpgsign', 'false']);
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  template = path.join(dir, '.git');
  return template;
}

/**
 * Makes a fresh vault in the system temp folder: `git init -b main`, local user.name and
 * user.email, the given files, and one initial commit (an empty one when `files` is empty).
 */
export function makeTempVault(files: Record<string, string | Uint8Array> = {}): TempVault {
  const made: string[] = [];
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-vault-')));
  made.push(root);
  const env = isolatedGitEnv();
  const git = (args: string[]): string =>
    execFileSync('git', args, { cwd: root, env: env as NodeJS.ProcessEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  const write = (rel: string, content: string | Uint8Array) => {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  };

  // `git init -b main` with the local identity, copied from a template made once per test process
  // (four git processes fewer per vault: makeTempVault runs over a thousand times in `npm test`).
  fs.cpSync(templateGitDir(env), path.join(root, '.git'), { recursive: true });
  for (const [rel, content] of Object.entries(files)) write(rel, content);
  if (Object.keys(files).length > 0) git(['add', '-A']);
  git(['commit', '-q', '--allow-empty', '-m', 'initial']);

  return {
    root,
    env,
    git,
    open: (options = {}) =>
      openVault({
        root: options.root ?? root,
        env,
        clock: options.clock ?? steppingClock(DEFAULT_START),
        ids: seededIds(options.seed ?? seedCounter++),
        fs: options.fs,
        lock: options.lock,
      }),
    write,
    read: (rel) => fs.readFileSync(path.join(root, rel), 'utf8'),
    readBytes: (rel) => fs.readFileSync(path.join(root, rel)),
    exists: (rel) => fs.existsSync(path.join(root, rel)),
    head: () => git(['rev-parse', '--verify', 'HEAD']).trim(),
    commitCount: () => Number(git(['rev-list', '--count', 'HEAD', '--']).trim()),
    tempDir: (label) => {
      const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `lucid-${label}-`)));
      made.push(dir);
      return dir;
    },
    cleanup: () => {
      for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The three "vault unchanged" checks of SECURITY-TESTS.md. */
export interface VaultSnapshot {
  /** sha256 of every file outside `.git/` (symlinks as `link:<target>`), by vault path. */
  files: Record<string, string>;
  head: string;
  status: string;
}

/** Takes the "vault unchanged" snapshot of a vault, with raw fs and raw git. */
export function snapshot(root: string): VaultSnapshot {
  const files: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (rel === '.git') continue;
      const abs = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) files[rel] = `link:${fs.readlinkSync(abs)}`;
      else if (entry.isDirectory()) walk(abs, rel);
      else files[rel] = createHash('sha256').update(fs.readFileSync(abs)).digest('hex');
    }
  };
  walk(root, '');
  const env = isolatedGitEnv() as NodeJS.ProcessEnv;
  const run = (args: string[]) => execFileSync('git', args, { cwd: root, env, encoding: 'utf8' });
  return { files, head: run(['rev-parse', '--verify', 'HEAD']).trim(), status: run(['status', '--porcelain']) };
}

/** Every file under `dir` (recursively, `.git/` included) whose name starts with Lucid's temp prefix. */
export function findTempFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const abs = path.join(current, entry.name);
      if (entry.name.startsWith('.lucid-tmp-')) out.push(path.relative(dir, abs));
      if (entry.isDirectory() && !entry.isSymbolicLink()) walk(abs);
    }
  };
  walk(dir);
  return out;
}

/** sha256 hex of bytes or text, computed independently of the library under test. */
export function sha256(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}
