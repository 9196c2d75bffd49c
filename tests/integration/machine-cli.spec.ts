import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initVault, openVault, seededIds } from '../../lib/vault/index';
import { testGitEnv } from '../support/fixtures';
import { makeTempVault, steppingClock, type TempVault } from '../support/temp-vault';

/** LUCID_MACHINE through the real CLI, and its --machine and --person filters, run from another folder as a user would. */

const BIN = path.resolve('bin/lucid');
let tv: TempVault;

function lucid(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(BIN, args, {
    cwd: tv.tempDir('cwd'),
    encoding: 'utf8',
    env: { ...testGitEnv(), ...env } as unknown as NodeJS.ProcessEnv,
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const machineOf = (rev: string) => tv.git(['log', '-1', '--format=%(trailers:key=Lucid-Machine,valueonly)', rev]).trim();

beforeAll(async () => {
  tv = makeTempVault({ 'notes/a.md': '# A\n' });
  await initVault({ dir: tv.root, env: tv.env, machine: 'desk-a' });
  const vault = await openVault({ root: tv.root, env: tv.env, clock: steppingClock(new Date(2026, 10, 24, 10, 0)), ids: seededIds(77), machine: 'desk-a' });
  try {
    await vault.edit({ actor: 'agent:here', op: 'create', path: 'notes/b.md', reason: 'b', changes: [{ path: 'notes/b.md', content: '# B\n' }] });
  } finally {
    vault.close();
  }
});
afterAll(() => tv.cleanup());

describe('the CLI and LUCID_MACHINE', () => {
  it("a person's commit through the CLI carries LUCID_MACHINE when it is set, else git config lucid.machine", () => {
    tv.write('notes/c.md', '# C\n');
    const set = lucid(['commit-uncommitted', '--vault', tv.root, 'notes/c.md'], { LUCID_MACHINE: 'cli-box' });
    expect(set.code, set.stderr).toBe(0);
    expect(machineOf('HEAD')).toBe('cli-box');
    tv.git(['config', 'lucid.machine', 'configured']);
    tv.write('notes/d.md', '# D\n');
    const fromConfig = lucid(['commit-uncommitted', '--vault', tv.root, 'notes/d.md'], { LUCID_MACHINE: '' });
    expect(fromConfig.code, fromConfig.stderr).toBe(0);
    expect(machineOf('HEAD')).toBe('configured');
  });

  it('lucid log --machine and --person list only the commits made there', () => {
    const onA = JSON.parse(lucid(['log', '--vault', tv.root, '--machine', 'desk-a', '--json']).stdout) as { machine: string; op: string }[];
    expect(onA.map((r) => r.op)).toEqual(['create', 'init']);
    expect(onA.every((r) => r.machine === 'desk-a')).toBe(true);
    expect(JSON.parse(lucid(['log', '--vault', tv.root, '--person', 'Nobody', '--json']).stdout)).toEqual([]);
  });

  it('lucid report --machine narrows the text and --write refuses a narrowed report', () => {
    const printed = lucid(['report', '--vault', tv.root, '--week', '2026-W48', '--machine', 'desk-a']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('Only the work done on the machine `desk-a`.');
    const refused = lucid(['report', '--vault', tv.root, '--week', '2026-W48', '--machine', 'desk-a', '--write']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("--write saves the whole team's report");
  });
});
