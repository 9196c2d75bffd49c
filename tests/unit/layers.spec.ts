import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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
