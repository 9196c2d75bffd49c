import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
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

  it('lucid write --file refuses bytes that are not UTF-8 (never silently U+FFFD) and a NUL, and writes nothing', () => {
    const dir = path.join(base, 'encodings');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'Start.md'), '# Start\n');
    expect(lucid(['init', dir]).code).toBe(0);
    const git = (args: string[]) => spawnSync('git', args, { cwd: dir, encoding: 'utf8', env: testGitEnv() as unknown as NodeJS.ProcessEnv }).stdout;
    const started = lucid(['session', 'start', '--vault', dir, '--agent', 'aider', '--task', 'encodings', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const session = JSON.parse(started.stdout).session as string;
    const afterStart = git(['rev-parse', 'HEAD']);
    const write = (file: string, input?: Buffer) =>
      spawnSync(BIN, ['write', 'notes/cafe.md', '--vault', dir, '--session', session, '--mode', 'create', '--file', file, '--reason', 'x'], {
        cwd: base,
        input,
        encoding: 'utf8',
        env: { ...testGitEnv(), LUCID_USER: 'Cli Person' } as unknown as NodeJS.ProcessEnv,
        timeout: 60_000,
      });

    const latin1 = path.join(base, 'latin1.md');
    writeFileSync(latin1, Buffer.from('# Caf\xe9\n\nd\xe9j\xe0 vu\n', 'latin1'));
    for (const result of [write(latin1), write('-', Buffer.from('# Caf\xe9\n', 'latin1'))]) {
      expect(result.status).not.toBe(0);
      expect(result.stderr).toMatch(/not valid UTF-8 \(line 1\); nothing was written/);
      expect(result.stdout).toBe('');
    }
    const nul = path.join(base, 'nul.md');
    writeFileSync(nul, '# A\n\nx\u0000y\n');
    const refused = write(nul);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/NUL character \(U\+0000\) on line \d+ of the new text/);
    expect(existsSync(path.join(dir, 'notes/cafe.md'))).toBe(false);
    expect(git(['rev-parse', 'HEAD'])).toBe(afterStart);

    const utf8 = path.join(base, 'utf8.md');
    writeFileSync(utf8, '\uFEFF# Café\n\ndéjà vu\n');
    const written = write(utf8);
    expect(written.status, written.stderr).toBe(0);
    // A note of none of Lucid's types gets no field it did not ask for.
    expect(readFileSync(path.join(dir, 'notes/cafe.md'), 'utf8')).toBe('\uFEFF# Café\n\ndéjà vu\n');
  });

  it('reports a path outside the vault as an error on stderr', () => {
    const dir = path.join(base, 'notes');
    const result = lucid(['read', '--vault', dir, '../../etc/passwd']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/outside the vault|markdown/);
    expect(result.stdout).toBe('');
  });
});
