import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { initVault, isVaultError, type EditResult, type Op, type Vault, type VaultError } from '../../lib/vault/index';
import { isolatedGitEnv, makeTempVault, type TempVault } from './temp-vault';

/** A temp vault with Lucid installed (`lucid init`), opened, for the revert and uncommitted-work specs. */
export async function installedVault(files: Record<string, string> = {}): Promise<{ tv: TempVault; vault: Vault }> {
  const tv = makeTempVault(files);
  await initVault({ dir: tv.root, env: tv.env });
  return { tv, vault: await tv.open() };
}

/**
 * The temp vaults of one spec file, each test's closed and removed after it. `setUp(files)` makes an
 * installed, opened vault (of `defaults` when no files are given); `keep` and `keepTemp` take another
 * opened vault or a temp vault made otherwise, to be closed or removed the same way. Call it once, at
 * the top of the spec file: it registers an afterEach.
 */
export function vaultsPerTest(defaults: Record<string, string>) {
  const temps: TempVault[] = [];
  const opened: Vault[] = [];
  afterEach(() => {
    for (const v of opened.splice(0)) v.close();
    for (const tv of temps.splice(0)) tv.cleanup();
  });
  return {
    async setUp(files: Record<string, string> = defaults): Promise<{ tv: TempVault; vault: Vault }> {
      const made = await installedVault(files);
      temps.push(made.tv);
      opened.push(made.vault);
      return made;
    },
    keep(vault: Vault): Vault {
      opened.push(vault);
      return vault;
    },
    keepTemp(tv: TempVault): TempVault {
      temps.push(tv);
      return tv;
    },
  };
}

/** The VaultError `promise` is rejected with; anything else (a result, another error) fails the test. */
export async function vaultRejection(promise: Promise<unknown>): Promise<VaultError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isVaultError(error)) throw new Error(`expected a VaultError, got ${String(error)}`);
  return error;
}

/** An agent's edit through the one write path (no session): one commit with its changelog line. */
export function agentEdit(vault: Vault, path: string, content: string | null, op: Op = 'update', actor = 'agent:writer'): Promise<EditResult> {
  return vault.edit({ actor, op, path, reason: `${op} of ${path}`, changes: [{ path, content }] });
}

/** Everything "nothing changed" means (SECURITY-TESTS #42), read with raw git and raw fs. */
export interface Frozen {
  /** sha256 of every file outside .git/ and Lucid's local state .lucid/ (its indexes follow HEAD). */
  files: Record<string, string>;
  head: string;
  /** `git ls-files -s`: every index entry with its stage. */
  stages: string;
  /** sha256 of .git/index's bytes. */
  index: string;
  /** `git status --porcelain`, run without refreshing the index. */
  status: string;
  /** Revert, cherry-pick, merge or sequencer state git would leave. */
  gitState: string[];
}

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** Reads the vault's state without changing it (git runs with GIT_OPTIONAL_LOCKS=0, so status never rewrites the index). */
export function freeze(tv: TempVault): Frozen {
  const index = sha(fs.readFileSync(path.join(tv.root, '.git', 'index')));
  const env = { ...isolatedGitEnv(), GIT_OPTIONAL_LOCKS: '0' } as unknown as NodeJS.ProcessEnv;
  const git = (args: string[]) => execFileSync('git', args, { cwd: tv.root, env, encoding: 'utf8' });
  const files: Record<string, string> = {};
  const walk = (dir: string, prefix: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (rel === '.git' || rel === '.lucid') continue;
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs, rel);
      else files[rel] = sha(fs.readFileSync(abs));
    }
  };
  walk(tv.root, '');
  const gitState = ['REVERT_HEAD', 'CHERRY_PICK_HEAD', 'MERGE_HEAD', 'sequencer', 'rebase-merge', 'rebase-apply'].filter((name) =>
    fs.existsSync(path.join(tv.root, '.git', name)),
  );
  return { files, head: git(['rev-parse', 'HEAD']).trim(), stages: git(['ls-files', '-s']), index, status: git(['status', '--porcelain']), gitState };
}

/** Files of the vault (outside .git/) that hold a conflict marker. */
export function filesWithMarkers(tv: TempVault): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (rel === '.git') continue;
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs, rel);
      else if (/^(<<<<<<<|>>>>>>>)/m.test(fs.readFileSync(abs, 'latin1'))) out.push(rel);
    }
  };
  walk(tv.root, '');
  return out;
}

/** Lucid's scratch files (a dry run's index, a merge's texts) that must not stay in .lucid/. */
export function revertScratch(tv: TempVault): string[] {
  const dir = path.join(tv.root, '.lucid');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.startsWith('revert-') || name.startsWith('merge-') || name.startsWith('index-')) : [];
}

/** The trailers of a commit as `Key: value` lines, read with raw git. */
export function trailersOf(tv: TempVault, commit: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of tv.git(['log', '-1', '--format=%(trailers:only,unfold)', commit]).split('\n')) {
    const at = line.indexOf(': ');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 2);
  }
  return out;
}

/** The paths a commit changed, read with raw git. */
export function pathsOf(tv: TempVault, commit: string): string[] {
  return tv.git(['show', '--format=', '--name-only', '--no-renames', commit]).split('\n').filter(Boolean).sort();
}

/** The changelog lines the last commit added (raw git diff of changelog.md). */
export function addedChangelogLines(tv: TempVault, commit = 'HEAD'): string[] {
  return tv
    .git(['diff', `${commit}~1`, commit, '--', 'changelog.md'])
    .split('\n')
    .filter((l) => l.startsWith('+- '))
    .map((l) => l.slice(1));
}

export const FIVE_LINES = 'one\ntwo\nthree\nfour\nfive\n';

export type { TempVault };
