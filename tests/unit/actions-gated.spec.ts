import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ACTIONS = path.resolve('lib/actions');

/** Every export of a 'use server' file is an action reachable by POST: each must be made by gatedAction. */
describe('server actions', () => {
  const files = readdirSync(ACTIONS).filter((f) => f.endsWith('.ts'));
  const serverFiles = files.filter((f) => /^\s*['"]use server['"]/.test(readFileSync(path.join(ACTIONS, f), 'utf8')));

  it('live in lib/actions and there is at least one', () => {
    expect(serverFiles.length).toBeGreaterThan(0);
  });

  for (const file of serverFiles) {
    it(`${file}: every export goes through the request gate`, () => {
      const source = readFileSync(path.join(ACTIONS, file), 'utf8');
      const exports = [...source.matchAll(/^export\s+(.*)$/gm)].map((m) => m[1]);
      expect(exports.length).toBeGreaterThan(0);
      for (const line of exports) {
        expect(line, `${file}: export ${line}`).toMatch(/^const \w+ = gatedAction\(/);
      }
    });
  }

  it('no other file declares server functions', () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (['node_modules', '.next', '.git', '.lucid-demo', 'tests', 'test-results', '.ci-out'].includes(entry.name)) continue;
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (/\.(ts|tsx)$/.test(entry.name) && !full.startsWith(ACTIONS) && /['"]use server['"]/.test(readFileSync(full, 'utf8'))) offenders.push(full);
      }
    };
    walk(path.resolve('.'));
    expect(offenders).toEqual([]);
  });
});
