import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { initVault, openVault, parseChangelogLine } from '../../lib/vault/index';
import { copyFixture, FIXTURE_VAULTS, haveFixtures, testGitEnv } from '../support/fixtures';
import { connectInMemory, ok } from '../support/mcp';

const env = testGitEnv();

describe.skipIf(!haveFixtures)('the whole protocol on lucid init-ed copies of the real vaults', () => {
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });

  for (const name of FIXTURE_VAULTS) {
    it(`${name}: start, search, read, write, propose, molt and end; every write is one commit and one changelog line`, async () => {
      const { root, cleanup } = copyFixture(name);
      cleanups.push(cleanup);
      const report = await initVault({ dir: root, env, fallbackUser: 'Fixture Person' });
      const git = (args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: env as NodeJS.ProcessEnv });
      const headBefore = Number(git(['rev-list', '--count', 'HEAD']).trim());
      const vault = await openVault({ root, env, fallbackUser: 'Fixture Person' });
      const mcp = await connectInMemory(vault);
      try {
        const { session } = ok<{ session: string }>(await mcp.call('start_session', { agent: 'test-agent', task: 'learn how this vault is organised' }));
        const hits = ok<{ results: { path: string }[] }>(await mcp.call('search_notes', { query: 'how is this organised' }));
        const readable = hits.results.length > 0 ? hits.results[0].path : 'AGENTS.md';
        ok(await mcp.call('read_note', { path: readable }));
        ok(
          await mcp.call('write_note', {
            session,
            path: 'agent-notes/overview.md',
            mode: 'create',
            content: '# Overview\n\nWhat I learned.\n',
            reason: 'first notes',
          }),
        );
        ok(await mcp.call('write_note', { session, path: 'agent-notes/overview.md', mode: 'append', content: '\n- one more thing\n', reason: 'add a point' }));
        ok(
          await mcp.call('propose_to_inbox', {
            session,
            target: 'agent-notes/overview.md',
            action: 'append',
            content: '\n- unsure\n',
            reason: 'not sure this is right',
            confidence: 0.3,
          }),
        );
        ok(
          await mcp.call('molt_skill', {
            session,
            name: 'read-this-vault',
            content: '# Read this vault\n\n1. Start at the index.\n',
            trigger: 'a task in this vault',
            reason: 'first version',
          }),
        );
        const ended = ok<{ path: string }>(await mcp.call('end_session', { session, summary: 'looked around', outcome: 'done' }));
        expect(ended.path.startsWith(`${report.layout.sessions}/`)).toBe(true);

        const commits = Number(git(['rev-list', '--count', 'HEAD']).trim()) - headBefore;
        expect(commits).toBe(5);
        const lines = git(['show', `HEAD~5:${report.layout.changelog}`])
          .split('\n')
          .filter((l) => parseChangelogLine(l));
        const now = git(['show', `HEAD:${report.layout.changelog}`])
          .split('\n')
          .filter((l) => parseChangelogLine(l));
        expect(now.length - lines.length).toBe(5);
        for (let i = 0; i < 5; i += 1) {
          const message = git(['log', '-1', '--format=%B', `HEAD~${i}`]);
          expect(message).toContain('Lucid-Actor: agent:test-agent');
          expect(message).toContain(`Lucid-Session: ${session}`);
          const editId = /^Lucid-Edit: (\S+)$/m.exec(message)?.[1];
          expect(now.some((l) => l.endsWith(`^${editId}`))).toBe(true);
        }
        expect(git(['status', '--porcelain'])).toBe('');
      } finally {
        await mcp.close();
        vault.close();
      }
    });
  }
});
