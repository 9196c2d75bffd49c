import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshBuild } from '../../bin/compiled.mjs';
import { testGitEnv } from '../support/fixtures';

const REPO = path.resolve('.');
const base = mkdtempSync(path.join(os.tmpdir(), 'lucid-compiled-cli-'));
/** A copy of the package (node_modules linked) whose sources the tests edit. */
const copy = path.join(base, 'package');
const env = { ...testGitEnv(), LUCID_USER: 'Cli Person' } as unknown as NodeJS.ProcessEnv;

function run(command: string, args: string[], cwd = base) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env, timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}
/** The copy's bin/lucid, as a user runs it. */
const lucid = (args: string[]) => run(path.join(copy, 'bin', 'lucid'), args);
/** The TypeScript sources of this checkout through tsx, without bin/lucid. */
const fromSources = (args: string[]) =>
  run(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `import { main } from ${JSON.stringify(path.join(REPO, 'cli', 'main.ts'))}; process.exitCode = await main(process.argv.slice(1));`,
      '--',
      ...args,
    ],
    REPO,
  );
/** This checkout's compiled CLI, compiled first when stale. */
const compiled = (args: string[]) => run(path.join(REPO, 'bin', 'lucid'), args);

const BANNER = 'lucid: a memory for AI agents that people can read, correct and trust';
const edit = (file: string, from: string, to: string) => {
  const text = readFileSync(path.join(copy, file), 'utf8');
  expect(text).toContain(from);
  writeFileSync(path.join(copy, file), text.replace(from, to));
};

beforeAll(() => {
  mkdirSync(copy);
  for (const entry of ['bin', 'cli', 'lib', 'mcp', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json']) {
    cpSync(path.join(REPO, entry), path.join(copy, entry), { recursive: true });
  }
  symlinkSync(path.join(REPO, 'node_modules'), path.join(copy, 'node_modules'));
  const built = run(process.execPath, ['--import', 'tsx', 'scripts/build-cli.ts'], copy);
  expect(built.code, built.stderr).toBe(0);
}, 180_000);
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('bin/lucid and the compiled CLI', () => {
  it('runs the compiled CLI while its sources are unchanged, and compiles again when one changed', () => {
    expect(freshBuild(copy).fresh).toBe(true);
    // Marks the compiled output (not a source): a start that prints the mark ran the build.
    const main = path.join(copy, '.cli-build', 'main.mjs');
    writeFileSync(main, readFileSync(main, 'utf8').replace(BANNER, `COMPILED ${BANNER}`));
    const fresh = lucid(['--help']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stdout).toContain(`COMPILED ${BANNER}`);
    expect(fresh.stderr).toBe('');

    edit('cli/main.ts', 'Usage: lucid <command> [options]', 'Usage (edited): lucid <command> [options]');
    expect(freshBuild(copy)).toEqual({ fresh: false, why: 'cli/main.ts changed since the CLI was compiled' });
    const edited = lucid(['--help']);
    expect(edited.code, edited.stderr).toBe(0);
    expect(edited.stdout).toContain('Usage (edited): lucid');
    expect(edited.stdout).not.toContain('COMPILED');
    expect(edited.stderr).toBe('');
    expect(freshBuild(copy).fresh).toBe(true);
    expect(readFileSync(main, 'utf8')).toContain('Usage (edited): lucid');
  }, 180_000);

  it('runs the sources when another process is compiling, and says so on stderr when compiling fails', () => {
    // A fresh lock: another process is compiling; this one must not wait for it nor run the old build.
    edit('cli/core-commands.ts', 'Check git identity, repository state, locks and indexes', 'Check everything (edited)');
    writeFileSync(path.join(copy, '.cli-build', '.lock'), '');
    const busy = lucid(['--help']);
    expect(busy.code, busy.stderr).toBe(0);
    expect(busy.stdout).toContain('Check everything (edited)');
    expect(busy.stderr).toBe('');
    expect(freshBuild(copy).fresh).toBe(false);
    rmSync(path.join(copy, '.cli-build', '.lock'));

    // The build's folder cannot be made (a file is in the way): the sources run, stdout stays clean.
    rmSync(path.join(copy, '.cli-build'), { recursive: true });
    writeFileSync(path.join(copy, '.cli-build'), 'not a folder');
    const failed = lucid(['--help']);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toContain('Check everything (edited)');
    expect(failed.stdout).not.toContain('compile');
    expect(failed.stderr).toMatch(/^lucid: could not compile the CLI \(.+\); running from the sources, slower\. To compile it: npm run build:cli\n$/);
    rmSync(path.join(copy, '.cli-build'));
  }, 180_000);

  it('prints and writes the same as the sources: help, a read, a write, the log', () => {
    for (const args of [['--help'], ['read', '--help'], ['frobnicate'], ['lint', '--nope']]) {
      const a = compiled(args);
      const b = fromSources(args);
      expect({ code: a.code, stdout: a.stdout, stderr: a.stderr }, args.join(' ')).toEqual({ code: b.code, stdout: b.stdout, stderr: b.stderr });
    }
    const vault = path.join(base, 'vault');
    mkdirSync(vault);
    writeFileSync(path.join(vault, 'Kitchen.md'), '# Kitchen\n\nThe espresso machine is descaled monthly.\n');
    expect(compiled(['init', vault]).code).toBe(0);
    const ids = (text: string) => text.replace(/\b[0-9a-f]{7,40}\b/g, 'SHA').replace(/\(edit [0-9a-z]+,/g, '(edit ID,');
    const started = compiled(['session', 'start', '--vault', vault, '--agent', 'aider', '--task', 'compare the builds', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const session = JSON.parse(started.stdout).session as string;
    const write = (runner: typeof compiled, name: string) =>
      runner([
        'write',
        `notes/${name}.md`,
        '--vault',
        vault,
        '--session',
        session,
        '--mode',
        'create',
        '--content',
        `# ${name}\n\nWritten by the CLI.\n`,
        '--reason',
        'a test',
      ]);
    const a = write(compiled, 'one');
    const b = write(fromSources, 'two');
    expect(a.code, a.stderr).toBe(0);
    expect(ids(a.stdout).replace('one', 'NAME')).toBe(ids(b.stdout).replace('two', 'NAME'));
    expect(existsSync(path.join(vault, 'notes', 'two.md'))).toBe(true);
    for (const args of [
      ['read', 'notes/one.md', '--vault', vault, '--json'],
      ['search', 'espresso descaled', '--vault', vault],
      ['log', '--vault', vault],
    ]) {
      const x = compiled(args);
      const y = fromSources(args);
      expect(x.code, x.stderr).toBe(0);
      expect(x.stdout, args[0]).toBe(y.stdout);
    }
  }, 180_000);
});
