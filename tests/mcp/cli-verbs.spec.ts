import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changelogLines, fieldOf, filesOf, MCP_VAULT_FILES, trailersOf } from '../support/mcp';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const BIN = path.resolve('bin/lucid');

const vaults: TempVault[] = [];
afterEach(() => {
  for (const tv of vaults.splice(0)) tv.cleanup();
});

function lucid(tv: TempVault, args: string[], input?: string) {
  const result = spawnSync(BIN, [...args, '--vault', tv.root], {
    cwd: tv.tempDir('cwd'),
    encoding: 'utf8',
    env: { ...tv.env, LUCID_USER: 'Cli Person' } as unknown as NodeJS.ProcessEnv,
    input,
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

function json(result: { code: number | null; stdout: string; stderr: string }): Record<string, unknown> {
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('the agent verbs of the CLI', () => {
  it('session start, write, propose, decide, molt and session end: the same operations, one commit each', () => {
    const tv = makeTempVault(MCP_VAULT_FILES);
    vaults.push(tv);
    const started = json(lucid(tv, ['session', 'start', '--agent', 'aider', '--task', 'Document the flaky tests', '--project', 'atlas', '--json']));
    const session = started.session as string;
    expect(session).toMatch(/^\d{8}-\d{6}-aider-[a-z2-7]{4}$/);
    expect((started.read_first as { path: string }[])[0].path).toBe('projects/atlas.md');
    expect(json(lucid(tv, ['session', 'list', '--json']))).toEqual([expect.objectContaining({ session, agent: 'agent:aider' })]);

    const steps: { args: string[]; input?: string; op: string; file: RegExp }[] = [
      {
        args: ['write', 'notes/flaky.md', '--session', session, '--mode', 'create', '--content', '# Flaky tests\n', '--reason', 'started a list'],
        op: 'create',
        file: /^notes\/flaky\.md$/,
      },
      {
        args: ['write', 'notes/flaky.md', '--session', session, '--mode', 'set_fields', '--field', 'status=draft', '--field', 'count=2', '--reason', 'draft'],
        op: 'update',
        file: /^notes\/flaky\.md$/,
      },
      {
        args: [
          'propose',
          'projects/atlas.md',
          '--session',
          session,
          '--action',
          'append',
          '--content',
          'Flaky tests live in notes/flaky.md.',
          '--reason',
          'link it',
          '--confidence',
          '0.5',
        ],
        op: 'create',
        file: /^inbox\/.*-atlas-[a-z2-7]{4}\.md$/,
      },
      {
        args: [
          'decide',
          '--session',
          session,
          '--project',
          'atlas',
          '--title',
          'Quarantine flaky tests',
          '--decision',
          'Quarantine them.',
          '--rationale',
          'They block merges.',
        ],
        op: 'create',
        file: /^decisions\/atlas-quarantine-flaky-tests\.md$/,
      },
      {
        args: ['molt', 'quarantine-tests', '--session', session, '--file', '-', '--trigger', 'a test is flaky', '--reason', 'the steps'],
        input: '1. Tag it.\n2. Open an issue.\n',
        op: 'molt',
        file: /^skills\/quarantine-tests\.md$/,
      },
      {
        args: ['session', 'end', session, '--summary', 'Documented flaky tests.', '--next', 'Review quarantine weekly'],
        op: 'create',
        file: new RegExp(`^sessions/${session}\\.md$`),
      },
    ];
    for (const step of steps) {
      const commits = tv.commitCount();
      const result = lucid(tv, [...step.args, '--json'], step.input);
      expect(result.stderr, step.args[0]).toBe('');
      expect(result.code, step.args[0]).toBe(0);
      expect(tv.commitCount()).toBe(commits + 1);
      expect(trailersOf(tv)).toMatchObject({ 'Lucid-Actor': 'agent:aider', 'Lucid-Op': step.op, 'Lucid-Session': session });
      const files = filesOf(tv);
      expect(
        files.some((f) => step.file.test(f)),
        `${step.args[0]}: ${files.join(', ')}`,
      ).toBe(true);
    }
    expect(changelogLines(tv)).toHaveLength(steps.length);
    expect(fieldOf(tv.read('notes/flaky.md'), 'count')).toBe('2');
    expect(fieldOf(tv.read('skills/quarantine-tests.md'), 'version')).toBe('1');
    const note = tv.read(`sessions/${session}.md`);
    expect(note).toContain('touched:\n  - notes/flaky.md\n  - decisions/atlas-quarantine-flaky-tests.md\n  - skills/quarantine-tests.md\n');
    expect(note).toContain('## Next steps\n\n- Review quarantine weekly\n');
    expect(lucid(tv, ['session', 'list']).stdout).toContain('No open sessions.');
  });

  it('a write with a secret exits 1, says where the masked version went, and commits no secret', () => {
    const tv = makeTempVault(MCP_VAULT_FILES);
    vaults.push(tv);
    const session = json(lucid(tv, ['session', 'start', '--agent', 'aider', '--task', 'x', '--json'])).session as string;
    const key = 'sk-ant-api03-Xy7Qw2Er5Ty8Ui1Op4As6Df9Gh3Jk0Lz';
    const result = lucid(tv, ['write', 'notes/keys.md', '--session', session, '--mode', 'create', '--content', `ANTHROPIC_API_KEY=${key}`, '--reason', 'keys']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/an Anthropic API key.*inbox\/.*possible-secret/);
    expect(tv.exists('notes/keys.md')).toBe(false);
    expect(tv.git(['log', '-p', '--all'])).not.toContain(key.slice(7));
    const missing = lucid(tv, ['write', 'notes/x.md', '--session', session, '--mode', 'create', '--reason', 'x']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('content is required for mode create. (give it with --content TEXT or --file PATH)');
    const badMode = lucid(tv, ['write', 'notes/x.md', '--session', session, '--mode', 'rewrite', '--content', 'x', '--reason', 'x']);
    expect(badMode.code).toBe(2);
    expect(badMode.stderr).toContain('mode must be create, replace, append or set_fields. (give it with --mode)');
  });

  it('lucid mcp --print-config prints ready configuration with absolute paths for each client', () => {
    const tv = makeTempVault();
    vaults.push(tv);
    for (const client of ['claude-code', 'claude-desktop', 'cursor', 'vscode']) {
      const result = lucid(tv, ['mcp', '--print-config', client]);
      expect(result.code, client).toBe(0);
      const config = JSON.parse(result.stdout) as {
        mcpServers?: Record<string, { command: string; args: string[] }>;
        servers?: Record<string, { command: string; args: string[] }>;
      };
      const server = (config.mcpServers ?? config.servers)?.lucid;
      expect(server, client).toBeDefined();
      expect(path.isAbsolute(server?.command ?? ''), client).toBe(true);
      expect(server?.args).toEqual([BIN, 'mcp', '--vault', tv.root]);
      expect(result.stderr.length, client).toBeGreaterThan(10);
    }
    expect(lucid(tv, ['mcp', '--print-config', 'emacs']).code).toBe(2);
    const help = spawnSync(BIN, ['--help'], { encoding: 'utf8' });
    for (const command of ['mcp', 'session', 'write', 'propose', 'decide', 'molt']) expect(help.stdout).toContain(`  ${command} `);
  });
});
