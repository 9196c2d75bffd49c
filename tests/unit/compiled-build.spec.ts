import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BUILD_DIR, BUILD_FORMAT, BUILD_RECORD, freshBuild, stampOf } from '../../bin/compiled.mjs';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'lucid-compiled-'));
  mkdirSync(path.join(root, 'cli'));
  writeFileSync(path.join(root, 'cli', 'main.ts'), 'export const a = 1;\n');
  writeFileSync(path.join(root, 'package.json'), '{}\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Writes a build record over `files` as they are now (plus any stamps given). */
function record(files: string[], extra: Record<string, [number, number]> = {}, format = BUILD_FORMAT) {
  mkdirSync(path.join(root, BUILD_DIR), { recursive: true });
  const inputs = { ...Object.fromEntries(files.map((f) => [f, stampOf(root, f)])), ...extra };
  writeFileSync(
    path.join(root, BUILD_DIR, BUILD_RECORD),
    JSON.stringify({ format, outputs: ['main.mjs'], inputs, verbs: [{ name: 'x', summary: 'y', module: 'core' }] }),
  );
}

describe('freshBuild: whether bin/lucid may run the compiled CLI', () => {
  it('is fresh when every recorded source is as it was, and hands back the verb index', () => {
    record(['cli/main.ts', 'package.json']);
    const build = freshBuild(root);
    expect(build).toMatchObject({ fresh: true, dir: path.join(root, BUILD_DIR) });
    expect(build.fresh && build.record.verbs).toEqual([{ name: 'x', summary: 'y', module: 'core' }]);
  });

  it('is stale when there is no build, or one of another format', () => {
    expect(freshBuild(root)).toEqual({ fresh: false, why: 'the CLI is not compiled' });
    record(['cli/main.ts'], {}, BUILD_FORMAT + 1);
    expect(freshBuild(root)).toMatchObject({ fresh: false, why: expect.stringContaining('another version') });
  });

  it('is stale when a source is newer than the build', () => {
    record(['cli/main.ts', 'package.json']);
    const later = new Date(Date.now() + 5_000);
    utimesSync(path.join(root, 'cli', 'main.ts'), later, later);
    expect(freshBuild(root)).toEqual({ fresh: false, why: 'cli/main.ts changed since the CLI was compiled' });
  });

  it('is stale when a source changed size but kept its time, or was restored to an older time', () => {
    record(['cli/main.ts']);
    const before = stampOf(root, 'cli/main.ts');
    writeFileSync(path.join(root, 'cli', 'main.ts'), 'export const a = 12;\n');
    utimesSync(path.join(root, 'cli', 'main.ts'), before[0] / 1000, before[0] / 1000);
    expect(freshBuild(root).fresh).toBe(false);
    record(['cli/main.ts']);
    utimesSync(path.join(root, 'cli', 'main.ts'), new Date(2020, 0, 1), new Date(2020, 0, 1));
    expect(freshBuild(root).fresh).toBe(false);
  });

  it('is stale when a source is gone, or an awaited one appears', () => {
    record(['cli/main.ts'], { 'lib/worker.ts': [-1, -1] });
    expect(freshBuild(root).fresh).toBe(true);
    mkdirSync(path.join(root, 'lib'));
    writeFileSync(path.join(root, 'lib', 'worker.ts'), 'export {};\n');
    expect(freshBuild(root)).toEqual({ fresh: false, why: 'lib/worker.ts changed since the CLI was compiled' });
    rmSync(path.join(root, 'lib', 'worker.ts'));
    rmSync(path.join(root, 'cli', 'main.ts'));
    expect(freshBuild(root)).toEqual({ fresh: false, why: 'cli/main.ts changed since the CLI was compiled' });
  });

  it('is stale when a source was recorded as changing while it was compiled', () => {
    record(['cli/main.ts'], { 'package.json': [-2, -2] });
    expect(freshBuild(root).fresh).toBe(false);
  });
});
