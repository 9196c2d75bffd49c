import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { testGitEnv } from '../support/fixtures';

const BIN = path.resolve('bin/lucid');
const base = mkdtempSync(path.join(os.tmpdir(), 'lucid-cli-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Runs the real CLI from another folder, as a user would. */
function lucid(args: string[], cwd = base) {
  const result = spawnSync(BIN, args, {
    cwd,
    encoding: 'utf8',
    env: { ...testGitEnv(), LUCID_USER: 'Cli Person' } as unknown as NodeJS.ProcessEnv,
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the lucid CLI', () => {
  it('prints help for the tool and for each command', () => {
    const top = lucid(['--help']);
    expect(top.code).toBe(0);
    for (const command of ['init', 'lint', 'search', 'read', 'log', 'doctor']) {
      expect(top.stdout).toContain(command);
      const help = lucid([command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout).toContain(`lucid ${command}`);
    }
  });

  it('says what to do when the folder is missing or not a git repository', () => {
    const missing = lucid(['lint', '--vault', path.join(base, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/does not exist.*lucid init/);
    const plain = path.join(base, 'plain');
    mkdirSync(plain);
    const notRepo = lucid(['search', '--vault', plain, 'x']);
    expect(notRepo.code).toBe(1);
    expect(notRepo.stderr).toMatch(/not a git repository.*lucid init/);
    expect(notRepo.stdout).toBe('');
  });

  it('rejects unknown commands and options with exit code 2', () => {
    expect(lucid(['frobnicate']).code).toBe(2);
    const bad = lucid(['lint', '--nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--nope');
  });

  it('inits a folder, then lints, searches, reads and logs it', () => {
    const dir = path.join(base, 'notes');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'Kitchen.md'), '# Kitchen\n\nThe espresso machine descaling happens monthly. See [[Pantry]].\n');
    const init = lucid(['init', dir]);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain('Committed');
    expect(readFileSync(path.join(dir, 'Kitchen.md'), 'utf8')).toContain('espresso');

    const again = lucid(['init', dir]);
    expect(again.stdout).toContain('nothing changed');

    const lint = lucid(['lint', '--vault', dir, '--json']);
    expect(lint.code).toBe(1);
    const report = JSON.parse(lint.stdout);
    expect(report.brokenLinks).toEqual([expect.objectContaining({ path: 'Kitchen.md', target: 'Pantry' })]);

    const search = lucid(['search', '--vault', dir, 'how often is the espresso machine descaled?', '--json']);
    expect(search.code, search.stderr).toBe(0);
    expect(JSON.parse(search.stdout)[0].path).toBe('Kitchen.md');

    const read = lucid(['read', '--vault', dir, 'Kitchen.md', '--json']);
    const note = JSON.parse(read.stdout);
    expect(note.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(note.links[0]).toMatchObject({ target: 'Pantry', resolved: null });

    const log = lucid(['log', '--vault', dir, '--json']);
    const commits = JSON.parse(log.stdout);
    expect(commits[0]).toMatchObject({ op: 'init', actor: 'human:Cli Person' });

    const doctor = lucid(['doctor', '--vault', dir]);
    expect(doctor.stdout).toContain('repository state');
    expect(doctor.stdout).toContain('commit index');
  });

  it('reports a path outside the vault as an error on stderr', () => {
    const dir = path.join(base, 'notes');
    const result = lucid(['read', '--vault', dir, '../../etc/passwd']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/outside the vault|markdown/);
    expect(result.stdout).toBe('');
  });
});
