import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLayers, MAX_LINES, roomOf } from '../../scripts/check-layers';
import { addArrow, findCircles, type Graph } from '../../scripts/layers/circles';
import { type ImportEdge, importsOf } from '../../scripts/layers/imports';
import { ruleFor } from '../../scripts/layers/rules';

const ROOT = path.resolve('.');

/** Runs the checker as `npm test` does and returns its exit code and what it printed. */
function runChecker(): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/check-layers.ts'], { cwd: ROOT, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Writes `source` to a throwaway file under `dir`, runs the checker, and always removes the file. */
function withPlantedFile(dir: string, source: string): { file: string; status: number | null; output: string } {
  const file = `${dir}/planted-${randomBytes(4).toString('hex')}.ts`;
  writeFileSync(path.join(ROOT, file), source);
  try {
    return { file, ...runChecker() };
  } finally {
    rmSync(path.join(ROOT, file), { force: true });
  }
}

const edge = (specifier: string, target: string | null, typeOnly = false): ImportEdge => ({ specifier, target, typeOnly, line: 1 });

describe('the layer check', () => {
  it('fails on a React import planted in lib/vault, naming the file', () => {
    const planted = withPlantedFile(
      'lib/vault',
      "import { useState } from 'react';\n\n/** Planted by tests/unit/layers.spec.ts. */\nexport const planted = useState;\n",
    );
    expect(planted.status).toBe(1);
    expect(planted.output).toContain(`${planted.file}:1:`);
    expect(planted.output).toContain("imports 'react'");
  });

  it('fails on an @/components import planted in lib/vault, naming the file', () => {
    const planted = withPlantedFile(
      'lib/vault',
      "import { PageHeader } from '@/components/page-header';\n\n/** Planted by tests/unit/layers.spec.ts. */\nexport const planted = PageHeader;\n",
    );
    expect(planted.status).toBe(1);
    expect(planted.output).toContain(`${planted.file}:1: lib/vault imports components/page-header.tsx`);
  });

  it('finds process.env reads, however they are spelled', () => {
    const source = "const a = process.env.LUCID_VAULT;\nconst b = process['env'];\nconst { env } = process;\nconst c = other.env;\n";
    expect(importsOf(ROOT, 'lib/vault/x.ts', source).envReads).toEqual([1, 2, 3]);
  });

  it('lets lib/vault import its own rooms and node built-ins', () => {
    expect(ruleFor('lib/vault/vault.ts', edge('./notes/paths', 'lib/vault/notes/paths.ts'))).toBeNull();
    expect(ruleFor('lib/vault/vault.ts', edge('node:fs', null))).toBeNull();
    expect(ruleFor('lib/vault/vault.ts', edge('next/cache', null))).toMatch(/plain Node/);
    expect(ruleFor('lib/vault/vault.ts', edge('@/lib/server/vault', 'lib/server/vault.ts'))).toMatch(/nothing outside lib\/vault/);
    expect(ruleFor('lib/vault/notes/schema.ts', edge('../agents/contract', 'lib/vault/agents/contract.ts', true))).toMatch(/top room/);
    expect(ruleFor('lib/vault/write/edit.ts', edge('../agents/sessions', 'lib/vault/agents/sessions.ts'))).toMatch(/top room/);
    expect(ruleFor('lib/vault/agents/inbox-ops.ts', edge('../notes/schema', 'lib/vault/notes/schema.ts'))).toBeNull();
    expect(ruleFor('lib/vault/vault.ts', edge('./agents/sessions', 'lib/vault/agents/sessions.ts'))).toBeNull();
    expect(ruleFor('lib/vault/git/repo.ts', edge('../inbox/parse', 'lib/vault/inbox/parse.ts'))).toMatch(/inbox\/ is one of lib\/vault's top rooms/);
    expect(ruleFor('lib/vault/inbox/detail.ts', edge('../agents/write-ops', 'lib/vault/agents/write-ops.ts'))).toBeNull();
  });

  it('lets components import vault types but not vault values or lib/server', () => {
    expect(ruleFor('components/x.tsx', edge('@/lib/vault', 'lib/vault/index.ts', true))).toBeNull();
    expect(ruleFor('components/x.tsx', edge('@/lib/vault', 'lib/vault/index.ts'))).toMatch(/only types/);
    expect(ruleFor('components/x.tsx', edge('@/lib/server/data', 'lib/server/data.ts', true))).toMatch(/never import lib\/server/);
    expect(ruleFor('components/x.tsx', edge('@/app/page', 'app/page.tsx'))).toMatch(/never import app/);
    expect(ruleFor('components/x.tsx', edge('@/lib/queries/search', 'lib/queries/search.ts'))).toBeNull();
  });

  it('keeps cli/ and mcp/ on the vault index', () => {
    expect(ruleFor('cli/main.ts', edge('../lib/vault/index', 'lib/vault/index.ts'))).toBeNull();
    expect(ruleFor('cli/main.ts', edge('../mcp/server', 'mcp/server.ts'))).toBeNull();
    expect(ruleFor('cli/main.ts', edge('../mcp/tools', 'mcp/tools.ts'))).toMatch(/only lib\/vault's index/);
    expect(ruleFor('mcp/tools.ts', edge('../lib/vault/notes/paths', 'lib/vault/notes/paths.ts'))).toMatch(/only lib\/vault's index/);
    expect(ruleFor('mcp/tools.ts', edge('../cli/main', 'cli/main.ts'))).toMatch(/only lib\/vault's index/);
  });

  it('points lib/actions at lib/server and never the other way', () => {
    expect(ruleFor('lib/actions/search.ts', edge('@/lib/server/action', 'lib/server/action.ts'))).toBeNull();
    expect(ruleFor('lib/server/action.ts', edge('@/lib/actions/result', 'lib/actions/result.ts', true))).toBeNull();
    expect(ruleFor('lib/server/data.ts', edge('@/lib/actions/search', 'lib/actions/search.ts'))).toMatch(/below lib\/actions/);
    expect(ruleFor('lib/server/data.ts', edge('@/components/x', 'components/x.tsx'))).toMatch(/nothing in lib\/ imports/);
  });
});

/** Writes `files` (repo-relative path → text) into a fresh temp folder and returns it. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lucid-layers-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

const lines = (count: number) => `${Array.from({ length: count }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`;

describe('the size and circle checks', () => {
  const made: string[] = [];
  const check = (files: Record<string, string>) => {
    const root = tree(files);
    made.push(root);
    return checkLayers(root).map((v) => `${v.file}:${v.line}: ${v.message}`);
  };
  afterEach(() => {
    for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  it('fails on a source file over 500 lines, naming it, and lets one of 500 through', () => {
    const found = check({
      'scripts/big.ts': lines(MAX_LINES + 1),
      'scripts/fits.ts': lines(MAX_LINES),
      'bin/tool': `#!/usr/bin/env node\n${lines(MAX_LINES)}`,
      'tests/unit/huge.spec.ts': lines(MAX_LINES * 2),
    });
    expect(found).toEqual([
      'bin/tool:0: 501 lines: a source file has at most 500; split it along its seams',
      'scripts/big.ts:0: 501 lines: a source file has at most 500; split it along its seams',
    ]);
  });

  it('fails on an import circle between files, however far round, type-only and dynamic imports included', () => {
    const found = check({
      'lib/a.ts': "import { b } from './b';\nexport const a = b;\n",
      'lib/b.ts': "import type { C } from './c';\nexport const b: C = 1;\n",
      'lib/c.ts': "export type C = number;\nexport const load = () => import('./a');\n",
      'cli/one.ts': "export * from './two';\n",
      'cli/two.ts': "import './one';\nexport const two = 2;\n",
      'cli/leaf.ts': "import { two } from './two';\nexport const leaf = two;\n",
    });
    expect(found).toEqual([
      'cli/one.ts:1: import circle: cli/one.ts → cli/two.ts → cli/one.ts',
      'lib/a.ts:1: import circle: lib/a.ts → lib/b.ts → lib/c.ts → lib/a.ts',
    ]);
  });

  it("fails on a circle between lib/vault's rooms, naming the imports that make it, with no file circle", () => {
    const found = check({
      'lib/vault/notes/paths.ts': "import { atomic } from '../write/atomic';\nexport const paths = atomic;\n",
      'lib/vault/write/atomic.ts': 'export const atomic = 1;\n',
      'lib/vault/write/edit.ts': "import type { Note } from '../notes/note';\nexport type Edit = Note;\n",
      'lib/vault/notes/note.ts': 'export type Note = string;\n',
      'lib/vault/git/repo.ts': "import { paths } from '../notes/paths';\nexport const repo = paths;\n",
    });
    expect(found).toEqual([
      'lib/vault/notes/paths.ts:1: lib/vault room circle: notes → write → notes (lib/vault/notes/paths.ts:1 imports lib/vault/write/atomic.ts; lib/vault/write/edit.ts:1 imports lib/vault/notes/note.ts)',
    ]);
  });

  it('finds each circle of a graph once, with the rest of its tangle, and a file that imports itself', () => {
    const graph: Graph = new Map();
    for (const [from, to] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
      ['c', 'd'],
      ['d', 'b'],
      ['e', 'e'],
      ['f', 'a'],
    ])
      addArrow(graph, from, to, 1);
    const circles = findCircles(graph).map((c) => ({ path: c.path.map((step) => step.node), others: c.others }));
    expect(circles).toEqual([
      { path: ['a', 'b', 'c'], others: ['d'] },
      { path: ['e'], others: [] },
    ]);
  });

  it("names lib/vault's rooms by folder, and its own files by name", () => {
    expect(roomOf('lib/vault/notes/paths.ts')).toBe('notes');
    expect(roomOf('lib/vault/eval/generate/index.ts')).toBe('eval');
    expect(roomOf('lib/vault/init.ts')).toBe('init');
    expect(roomOf('lib/server/data.ts')).toBeNull();
  });

  it('passes on the repository itself', () => {
    expect(checkLayers(ROOT)).toEqual([]);
  });
});
