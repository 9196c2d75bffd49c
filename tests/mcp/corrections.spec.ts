import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { SinceLastSession, StartSessionResult } from '../../lib/vault/agents/contract-read';
import { initVault, openVault, renderStart } from '../../lib/vault/index';
import { isNoteFile } from '../../lib/vault/notes/paths';
import { commitAsOwner, copyFixture, FIXTURE_VAULTS, haveFixtures, testGitEnv } from '../support/fixtures';
import { connectInMemory, ok, textOf } from '../support/mcp';

/**
 * Issue 11 on real vaults: each correction a person makes with raw git or a plain file write, as
 * they would in a terminal or in Obsidian, reaches the next agent's start_session with their words.
 */

const env = testGitEnv();
const TOKEN = `ghp_${'A1b2C3d4E5'.repeat(3)}abcdef`;
const BIN = path.resolve('bin/lucid');

/** Starts `lucid mcp` on the vault and connects a real SDK client over stdio. */
async function overStdio(root: string): Promise<{ call(name: string, args: Record<string, unknown>): Promise<CallToolResult>; close(): Promise<void> }> {
  const transport = new StdioClientTransport({ command: BIN, args: ['mcp', '--vault', root], env: env as Record<string, string>, stderr: 'pipe' });
  const client = new Client({ name: 'lucid-corrections-test', version: '0.0.0' });
  await client.connect(transport);
  return {
    call: async (name, args) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult,
    close: () => client.close(),
  };
}

describe.skipIf(!haveFixtures)("a person's corrections on real vaults reach the next start_session", () => {
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });

  for (const [i, name] of FIXTURE_VAULTS.entries()) {
    // One vault is served by `lucid mcp` over stdio, as an agent's client runs it; the others in process.
    const stdio = i === 0;
    it(`${name}: an import in one line, then an edit, a git revert, a rejection, an accept by hand, a move and an uncommitted edit${stdio ? ' (over stdio)' : ''}`, async () => {
      const { root, cleanup } = copyFixture(name);
      cleanups.push(cleanup);
      const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: env as NodeJS.ProcessEnv });
      // The vault as its owner keeps it: under git, one commit of everything.
      commitAsOwner(root, env, ['Initial commit', 'My notes as they were.']);
      const imported = git('ls-files', '-z').split('\0').filter(isNoteFile);
      const report = await initVault({ dir: root, env });
      expect(git('check-attr', 'merge', '--', report.layout.changelog).trim()).toBe(`${report.layout.changelog}: merge: union`);

      const vault = await openVault({ root, env });
      const first = await connectInMemory(vault);
      const started = await first.call('start_session', { agent: 'test-agent', task: 'learn how this vault is organised' });
      const { session, since_last_session: fresh } = ok<{ session: string; since_last_session: SinceLastSession }>(started);
      // The owner's import is one line, not twenty "edited" lines.
      expect(fresh.corrections).toEqual([]);
      expect(fresh.imports).toEqual([
        expect.objectContaining({
          by: 'human:Owner',
          reason: 'Initial commit\n\nMy notes as they were.',
          notes: imported.length,
          examples: imported.slice(0, 3),
        }),
      ]);
      expect(JSON.parse(textOf(started))).toEqual(started.structuredContent);
      expect(
        renderStart(ok<StartSessionResult>(started))
          .split('\n')
          .filter((l) => l.includes('human:Owner')),
      ).toHaveLength(1);

      const deploys = ok<{ edit_id: string; commit: string }>(
        await first.call('write_note', {
          session,
          path: 'agent-notes/deploys.md',
          mode: 'create',
          content: '# Deploys\n\nDeploy on Fridays.\n',
          reason: 'deploy rule',
        }),
      );
      ok(
        await first.call('write_note', {
          session,
          path: 'agent-notes/owners.md',
          mode: 'create',
          content: '# Owners\n\nAda owns billing.\n',
          reason: 'who owns what',
        }),
      );
      const propose = async (target: string, action: string, content: string, reason: string) =>
        ok<{ inbox_path: string }>(await first.call('propose_to_inbox', { session, target, action, content, reason })).inbox_path;
      const cards = await propose('agent-notes/cards.md', 'create', '# Cards\n\nStore card numbers for retries.\n', 'retries need the card');
      const glossary = await propose('agent-notes/glossary.md', 'create', '# Glossary\n\nARR: annual revenue.\n', 'terms I met');
      const later = await propose('agent-notes/owners.md', 'append', '\nGrace owns support.\n', 'not sure who owns support');
      ok(await first.call('end_session', { session, summary: 'learned the layout', outcome: 'done' }));
      await first.close();
      vault.close();

      // The owner corrects the agent with plain git, as they would in a terminal.
      const changelogBefore = fs
        .readFileSync(path.join(root, report.layout.changelog), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('- '));
      git('revert', '--no-edit', deploys.commit);
      const changelogAfter = fs.readFileSync(path.join(root, report.layout.changelog), 'utf8');
      expect(changelogAfter).not.toMatch(/^(<<<<<<<|>>>>>>>|=======)/m);
      for (const line of changelogBefore) expect(changelogAfter).toContain(line);
      expect(git('status', '--porcelain').trim()).toBe('');

      fs.writeFileSync(path.join(root, 'agent-notes/owners.md'), '# Owners\n\nGrace owns billing.\n');
      git('add', 'agent-notes/owners.md');
      git('commit', '-q', '-m', 'Grace owns billing now', '-m', 'Ada moved to the platform team.');
      git('rm', '-q', cards);
      git('commit', '-q', '-m', 'We never store card numbers');
      git('rm', '-q', glossary);
      fs.writeFileSync(path.join(root, 'agent-notes/glossary.md'), '# Glossary\n\nARR: annual recurring revenue.\n');
      git('add', 'agent-notes/glossary.md');
      git('commit', '-q', '-m', 'Wrote the glossary myself');
      fs.mkdirSync(path.join(root, 'someday'), { recursive: true });
      git('mv', later, 'someday/support-owner.md');
      git('commit', '-q', '-m', 'Later');
      // And saves in Obsidian without committing: a note (with a token pasted by mistake) and Obsidian's settings.
      const edited = imported.find((p) => !p.startsWith(`${report.layout.inbox}/`)) ?? imported[0];
      fs.appendFileSync(path.join(root, edited), `\nAsk Grace before deploying. The CI token is ${TOKEN}\n`);
      fs.mkdirSync(path.join(root, '.obsidian'), { recursive: true });
      fs.writeFileSync(path.join(root, '.obsidian/app.json'), '{"promptDelete": false}\n');

      const next = stdio ? await overStdio(root) : await connectInMemory(await openVault({ root, env }));
      try {
        const result = await next.call('start_session', { agent: 'test-agent', task: 'update the owners' });
        const since = ok<{ since_last_session: SinceLastSession }>(result).since_last_session;
        expect(since.imports).toEqual([]);
        expect(since.more_notes).toBe(0);
        // Newest first, one entry per note: the uncommitted edit, then the commits from the last back.
        expect(since.corrections.map((c) => c.path)).toEqual([
          edited,
          'agent-notes/owners.md',
          'agent-notes/glossary.md',
          'agent-notes/cards.md',
          'agent-notes/deploys.md',
        ]);
        const [onDisk, owners, glossaryNote, cardsNote, deploysNote] = since.corrections;

        expect(onDisk).toMatchObject({ exists: true, yours: false });
        expect(onDisk.changes).toEqual([expect.objectContaining({ kind: 'uncommitted', by: 'human:Owner', commit: null, status: 'modified' })]);
        const pasted = onDisk.changes[0].lines?.find((l) => l.startsWith('+ Ask Grace before deploying. The CI token is '));
        expect(pasted).toBeDefined();
        expect(pasted).not.toContain(TOKEN);
        expect(JSON.stringify(since)).not.toContain(TOKEN);

        expect(owners).toMatchObject({ exists: true, yours: true });
        expect(owners.changes).toEqual([
          expect.objectContaining({
            kind: 'moved',
            by: 'human:Owner',
            reason: 'Later',
            moved_to: 'someday/support-owner.md',
            proposal: expect.objectContaining({ inbox_path: later, action: 'append', proposed_by: 'agent:test-agent', yours: true }),
          }),
          expect.objectContaining({ kind: 'edited', by: 'human:Owner', op: 'commit', reason: 'Grace owns billing now\n\nAda moved to the platform team.' }),
        ]);
        expect(glossaryNote.changes).toEqual([
          expect.objectContaining({
            kind: 'accepted_by_hand',
            reason: 'Wrote the glossary myself',
            proposal: expect.objectContaining({ inbox_path: glossary }),
          }),
        ]);
        expect(cardsNote).toMatchObject({ exists: false, yours: true });
        expect(cardsNote.changes).toEqual([
          expect.objectContaining({
            kind: 'rejected',
            reason: 'We never store card numbers',
            proposal: expect.objectContaining({ inbox_path: cards, action: 'create', yours: true }),
          }),
        ]);
        expect(deploysNote).toMatchObject({ exists: false, yours: true });
        expect(deploysNote.changes).toEqual([
          expect.objectContaining({
            kind: 'reverted',
            by: 'human:Owner',
            reason: 'Revert "create agent-notes/deploys.md"',
            undid: expect.objectContaining({ edit: deploys.edit_id, actor: 'agent:test-agent', op: 'create', reason: 'deploy rule' }),
          }),
        ]);
        expect(deploysNote.changes[0].lines).toContain('+ Deploy on Fridays.');

        // The model reads the structured result once, as JSON; a person reads it in words (`lucid session start`).
        const json = textOf(result);
        expect(JSON.parse(json)).toEqual(result.structuredContent);
        expect(json).not.toContain('.obsidian');
        expect(json).not.toContain(TOKEN);
        const text = renderStart(ok<StartSessionResult>(result));
        for (const words of ['Grace owns billing now', 'We never store card numbers', 'Wrote the glossary myself', 'someday/support-owner.md']) {
          expect(json).toContain(words);
          expect(text).toContain(words);
        }
        expect(text).toContain('not yet committed');
        expect(text).toContain('- agent-notes/deploys.md: it does not exist now');
        expect(text).not.toContain('.obsidian');
        expect(text).not.toContain(TOKEN);
      } finally {
        await next.close();
      }
    });
  }
});
