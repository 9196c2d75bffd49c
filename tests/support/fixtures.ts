import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The real vaults in ../shared/fixtures/vaults (present for developers and CI, absent in a user's clone). */
export const FIXTURES_DIR = path.resolve(process.cwd(), '../shared/fixtures/vaults');
export const FIXTURE_VAULTS = ['obsidian-tasks-docs', 'obsidian-tasks-demo', 'kepano-obsidian', 'agent-memory-template'] as const;
export const haveFixtures = existsSync(FIXTURES_DIR);
if (!haveFixtures) {
  console.warn(`Skipping the tests on real vaults: ${FIXTURES_DIR} does not exist (it ships with the project's shared folder, not with a clone).`);
}

/** Copies a fixture vault into a fresh temp folder (writable), never touching the original. */
export function copyFixture(name: string): { root: string; cleanup: () => void } {
  const base = mkdtempSync(path.join(os.tmpdir(), `lucid-fx-${name}-`));
  const root = path.join(base, 'vault');
  cpSync(path.join(FIXTURES_DIR, name, 'vault'), root, { recursive: true });
  const makeWritable = (dir: string) => {
    chmodSync(dir, 0o755);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) makeWritable(p);
      else chmodSync(p, 0o644);
    }
  };
  makeWritable(root);
  return { root, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** sha256 of every file under root (outside .git), by vault-relative path. */
export function hashTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs, rel);
      else out.set(rel, createHash('sha256').update(readFileSync(abs)).digest('hex'));
    }
  };
  walk(root, '');
  return out;
}

/** An environment for git in tests: no global or system config, a fixed identity. */
export function testGitEnv(): Record<string, string | undefined> {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    TZ: process.env.TZ,
  };
}

/** Puts a copied fixture under git as its owner keeps it: `git init`, user "Owner", one commit of every file. */
export function commitAsOwner(root: string, env: Record<string, string | undefined>, message: string[] = ['Initial commit']): void {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, env: env as NodeJS.ProcessEnv, stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Owner');
  git('config', 'user.email', 'owner@example.invalid');
  git('add', '-A');
  git('commit', '-q', ...message.flatMap((m) => ['-m', m]));
}
