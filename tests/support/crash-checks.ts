import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findTempFiles, type TempVault } from './temp-vault';
import { workerArgs } from './worker-bundle';

/** The crash worker (tests/support/crash-worker.ts). */
export const CRASH_WORKER = fileURLToPath(new URL('./crash-worker.ts', import.meta.url));

/** What the crash worker puts in every text it writes. */
export const AGENT_MARKER = 'agent-crasher-text';

/** How a worker run ended. */
export interface WorkerExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the crash worker on `tv` and waits for it to end. `killAfterReadyMs`: the parent kills it
 * that long after it printed `ready` (random kills); otherwise it kills itself at its stage.
 */
export function runCrashWorker(tv: TempVault, args: string[], options: { env?: Record<string, string>; killAfterReadyMs?: number } = {}): Promise<WorkerExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...workerArgs(CRASH_WORKER), tv.root, ...args], {
      env: { ...tv.env, ...options.env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (options.killAfterReadyMs !== undefined && stdout.includes('ready\n') && !child.killed) {
        const delay = options.killAfterReadyMs;
        options.killAfterReadyMs = undefined;
        setTimeout(() => child.kill('SIGKILL'), delay);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Every `Lucid-Edit` trailer value in the repository's history. */
export function committedEditIds(tv: TempVault): Set<string> {
  const out = tv.git(['log', '--format=%(trailers:key=Lucid-Edit,valueonly)']);
  return new Set(
    out
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean),
  );
}

/** The edit ids the changelog (and its archives) names. */
export function changelogEditIds(tv: TempVault): string[] {
  if (!tv.exists('changelog.md')) return [];
  return [...tv.read('changelog.md').matchAll(/\b(e[a-z2-7]{12})\b/g)].map((m) => m[1]);
}

/** Changelog lines whose edit has no commit. */
export function changelogLinesWithoutCommit(tv: TempVault): string[] {
  const committed = committedEditIds(tv);
  return changelogEditIds(tv).filter((id) => !committed.has(id));
}

/**
 * Commits authored by the person whose patch adds or removes the agent's text: the agent's words
 * under a person's name, or an agent's edit undone in the person's name.
 */
export function misattributedCommits(tv: TempVault, personName: string): string[] {
  const shas = tv.git(['log', '--format=%H%x09%an']).trim().split('\n');
  return shas
    .map((line) => line.split('\t'))
    .filter(([, author]) => author === personName)
    .map(([sha]) => sha)
    .filter((sha) => new RegExp(`^[+-].*${AGENT_MARKER}`, 'm').test(tv.git(['show', '--format=', '--no-color', sha])));
}

/** Paths with staged differences between the real index and HEAD. */
export function stagedPaths(tv: TempVault): string[] {
  return tv.git(['diff', '--cached', '--name-only']).split('\n').filter(Boolean);
}

/** Lucid's crash leftovers: temp files anywhere, temp indexes and a write-ahead record in `.lucid/`. */
export function crashLeftovers(tv: TempVault): string[] {
  const state = path.join(tv.root, '.lucid');
  const own = fs.existsSync(state)
    ? fs
        .readdirSync(state)
        .filter((n) => n.startsWith('index-') || n === 'write-ahead.json')
        .map((n) => `.lucid/${n}`)
    : [];
  return [...findTempFiles(tv.root), ...own];
}
