import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { reportFigure, scale, stressTimeout } from '../support/stress';
import { findTempFiles, makeTempVault, type TempVault } from '../support/temp-vault';
import { workerArgs } from '../support/worker-bundle';

// Catalog #38: three processes (as the dashboard, an MCP server and the CLI would be) append
// uniquely tagged lines to one shared note and to 20 other notes at the same time.

const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WORKER = fileURLToPath(new URL('../support/race-append-worker.ts', import.meta.url));
const WORKERS = ['w1', 'w2', 'w3'];
const SHARED = 'notes/shared.md';
const OTHERS = Array.from({ length: 20 }, (_, i) => `notes/other-${String(i).padStart(2, '0')}.md`);

const vaults: TempVault[] = [];
afterEach(() => {
  for (const tv of vaults.splice(0)) tv.cleanup();
});

interface Summary {
  worker: string;
  appended: number;
  commits: string[];
  errors: Record<string, number>;
}

function runWorker(tv: TempVault, worker: string, count: number, seed: number, goFile: string) {
  const child = spawn(process.execPath, [...workerArgs(WORKER), tv.root, worker, String(count), String(seed), goFile, SHARED, ...OTHERS], {
    cwd: PROJECT_ROOT,
    env: tv.env as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function tagOf(worker: string, i: number, target: 'shared' | 'other'): string {
  return `tag-${worker}-${target}-${String(i).padStart(5, '0')}`;
}

describe('#38 concurrent appends from three processes', () => {
  // Each worker makes 2 x perWorker edits (about 90 ms each here, serialized by the vault lock):
  // 300 edits at CI scale, the catalog's 3 x 1,000 to the shared note (6,000 edits) under stress.
  const perWorker = scale(50, 1000);

  it(
    `3 processes x ${perWorker} appends to one note and ${perWorker} to 20 others: every tag exactly once, no error reaches a caller`,
    async () => {
      const files: Record<string, string> = { [SHARED]: '# Shared\n' };
      for (const other of OTHERS) files[other] = `# ${path.basename(other, '.md')}\n`;
      const tv = makeTempVault(files);
      vaults.push(tv);
      const goFile = path.join(tv.tempDir('barrier'), 'go');
      const before = tv.commitCount();

      const runs = WORKERS.map((worker, i) => runWorker(tv, worker, perWorker, 3800 + i, goFile));
      // A poll with no total of its own: the workers are other processes, and their ready files are the
      // only sign they are ready (each opens its vault first, which takes long on a loaded machine); a
      // worker that ended before it was ready ends the wait, and its exit is reported below.
      let ended = false;
      for (const run of runs) void run.then(() => (ended = true));
      while (!ended && WORKERS.some((w) => !fs.existsSync(`${goFile}.ready-${w}`))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      fs.writeFileSync(goFile, '');
      const results = await Promise.all(runs);

      expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
      const summaries = results.map((r) => JSON.parse(r.stdout) as Summary);
      const errors: Record<string, number> = {};
      for (const summary of summaries) for (const [code, n] of Object.entries(summary.errors)) errors[code] = (errors[code] ?? 0) + n;

      const lines = [SHARED, ...OTHERS].flatMap((note) =>
        tv
          .read(note)
          .split('\n')
          .filter((line) => line.startsWith('tag-')),
      );
      const counts = new Map<string, number>();
      for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
      const expected = WORKERS.flatMap((w) => Array.from({ length: perWorker }, (_, i) => [tagOf(w, i, 'shared'), tagOf(w, i, 'other')]).flat());
      const lost = expected.filter((tag) => !counts.has(tag)).length;
      const duplicated = [...counts.values()].filter((n) => n > 1).length;
      const total = expected.length;
      reportFigure('#38 concurrent appends', 'appends', total);
      reportFigure('#38 concurrent appends', 'lost', lost);
      reportFigure('#38 concurrent appends', 'duplicated', duplicated);
      reportFigure(
        '#38 concurrent appends',
        'errors reaching a caller',
        Object.values(errors).reduce((a, b) => a + b, 0),
      );

      expect(errors).toEqual({});
      expect(results.map((r) => r.stderr)).toEqual(['', '', '']);
      expect(lost).toBe(0);
      expect(duplicated).toBe(0);
      expect(lines).toHaveLength(total);
      expect(
        tv
          .read(SHARED)
          .split('\n')
          .filter((line) => line.startsWith('tag-')),
      ).toHaveLength(WORKERS.length * perWorker);
      // Each worker's lines to the shared note are in its own order: no append overtook an earlier one.
      for (const w of WORKERS) {
        const mine = tv
          .read(SHARED)
          .split('\n')
          .filter((line) => line.startsWith(`tag-${w}-`));
        expect(mine).toEqual(Array.from({ length: perWorker }, (_, i) => tagOf(w, i, 'shared')));
      }

      expect(summaries.map((s) => s.appended)).toEqual(WORKERS.map(() => 2 * perWorker));
      expect(new Set(summaries.flatMap((s) => s.commits)).size).toBe(total);
      expect(tv.commitCount()).toBe(before + total);
      const ops = tv
        .git(['log', `-${total}`, '--format=%(trailers:key=Lucid-Op,valueonly)'])
        .split('\n')
        .filter(Boolean);
      expect(ops).toEqual(Array(total).fill('append'));
      expect(tv.git(['status', '--porcelain'])).toBe('');
      expect(findTempFiles(tv.root)).toEqual([]);
      expect(fs.readdirSync(path.join(tv.root, '.lucid')).filter((name) => name.startsWith('index-'))).toEqual([]);
    },
    stressTimeout(120_000),
  );
});
