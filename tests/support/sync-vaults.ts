import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seededIds } from '../../lib/vault/ids';
import { initVault } from '../../lib/vault/init';
import { openVault, type OpenVaultOptions, type Vault } from '../../lib/vault/vault';
import { afterEach } from 'vitest';
import { DEFAULT_START, isolatedGitEnv, steppingClock } from './temp-vault';

/**
 * One bare repository and N clones of it in a temp folder, each a `lucid init`-ed vault with its own
 * person (`Person 1`, `Person 2`, …), for sync tests and the two-clones soak: raw git on every
 * repository, files written as a person would, each clone opened with any options.
 */

/** One clone of the shared repository. */
export interface SyncClone {
  /** Canonical path of the clone (the vault root). */
  root: string;
  /** The person of this clone (git user.name). */
  personName: string;
  /** Raw git in the clone; returns stdout, throws on a non-zero exit. */
  git(args: string[]): string;
  /** Writes a file (folders made) without Lucid, as a person or Obsidian would. */
  write(rel: string, content: string | Uint8Array): void;
  read(rel: string): string;
  exists(rel: string): boolean;
  /** `git rev-parse HEAD`. */
  head(): string;
  /** Opens the clone through the library (a stepping clock and a fresh id seed unless given; `root` for a vault in a folder of it). */
  open(options?: Partial<OpenVaultOptions>): Promise<Vault>;
}

/** A bare repository shared by clones. */
export interface SyncVaults {
  /** The temp folder everything lives in. */
  dir: string;
  /** The bare repository's path (the clones' `origin`). */
  bare: string;
  /** The environment git runs with (isolated from the user's config). */
  env: Record<string, string | undefined>;
  clones: SyncClone[];
  /** Raw git in the bare repository. */
  bareGit(args: string[]): string;
  /** Another clone, made now from the bare repository and `lucid init`-ed. */
  addClone(): Promise<SyncClone>;
  /** A further temp folder next to the repositories (e.g. a sibling whose files must not change). */
  tempDir(label: string): string;
  /** Removes everything. */
  cleanup(): void;
}

let seed = 7000;

/**
 * Makes the bare repository, seeds it from the first clone (`files`, then `lucid init`, pushed as
 * `main`) and clones it `count` times in all; every clone is `lucid init`-ed (a no-op after the
 * first) and has its own person.
 */
export async function makeSyncVaults(count = 2, files: Record<string, string> = { 'notes/welcome.md': '# Welcome\n' }): Promise<SyncVaults> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-sync-')));
  const env = isolatedGitEnv();
  const run = (cwd: string, args: string[]) =>
    execFileSync('git', args, { cwd, env: env as NodeJS.ProcessEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const bare = path.join(dir, 'remote.git');
  run(dir, ['init', '-q', '--bare', '-b', 'main', bare]);
  const clones: SyncClone[] = [];
  const made: string[] = [dir];

  const addClone = async (): Promise<SyncClone> => {
    const n = clones.length + 1;
    const root = path.join(dir, `clone-${n}`);
    run(dir, ['clone', '-q', bare, root]);
    const personName = `Person ${n}`;
    run(root, ['config', 'user.name', personName]);
    run(root, ['config', 'user.email', `person${n}@example.invalid`]);
    run(root, ['config', 'commit.gpgsign', 'false']);
    const git = (args: string[]) => run(root, args);
    const write = (rel: string, content: string | Uint8Array) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), content);
    };
    if (n === 1) {
      run(root, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
      for (const [rel, text] of Object.entries(files)) write(rel, text);
      run(root, ['add', '-A']);
      run(root, ['commit', '-q', '--allow-empty', '-m', 'initial']);
    }
    await initVault({ dir: root, env, clock: steppingClock(DEFAULT_START), ids: seededIds(seed++) });
    if (n === 1) run(root, ['push', '-q', '-u', 'origin', 'main']);
    const clone: SyncClone = {
      root: fs.realpathSync(root),
      personName,
      git,
      write,
      read: (rel) => fs.readFileSync(path.join(root, rel), 'utf8'),
      exists: (rel) => fs.existsSync(path.join(root, rel)),
      head: () => git(['rev-parse', 'HEAD']).trim(),
      open: (options = {}) => openVault({ env, clock: steppingClock(DEFAULT_START), ids: seededIds(seed++), ...options, root: options.root ?? root }),
    };
    clones.push(clone);
    return clone;
  };

  for (let i = 0; i < count; i += 1) await addClone();
  return {
    dir,
    bare,
    env,
    clones,
    bareGit: (args) => run(bare, args),
    addClone,
    tempDir: (label) => {
      const made1 = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `lucid-${label}-`)));
      made.push(made1);
      return made1;
    },
    cleanup: () => {
      for (const d of made) fs.rmSync(d, { recursive: true, force: true });
    },
  };
}

/** What {@link syncVaultsEachTest} gives a spec file. */
export interface SyncVaultsPerTest {
  /** Makes this test's bare repository and `count` clones, seeded with `files`. */
  setup(files?: Record<string, string>, count?: number): Promise<SyncVaults>;
  /** Opens a clone (closed after the test). */
  open(clone: SyncClone, options?: Partial<OpenVaultOptions>): Promise<Vault>;
  /** This test's repositories, once set up. */
  current(): SyncVaults | null;
}

/**
 * For a spec file of sync tests: each test sets up its own repositories with `setup` and opens clones
 * with `open`; after each test every vault opened is closed and every folder removed.
 */
export function syncVaultsEachTest(defaultFiles: Record<string, string>): SyncVaultsPerTest {
  let world: SyncVaults | null = null;
  const opened: Vault[] = [];
  afterEach(async () => {
    for (const vault of opened.splice(0)) await vault.close();
    world?.cleanup();
    world = null;
  });
  return {
    setup: async (files = defaultFiles, count = 2) => {
      world = await makeSyncVaults(count, files);
      return world;
    },
    open: async (clone, options = {}) => {
      const vault = await clone.open(options);
      opened.push(vault);
      return vault;
    },
    current: () => world,
  };
}
