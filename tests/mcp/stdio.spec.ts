import fs from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { changelogLines, fieldOf, filesOf, stdioServersEachTest, trailersOf } from '../support/mcp';

const { tempVault, spawnServer } = stdioServersEachTest();

function ok(result: CallToolResult & { structuredContent?: Record<string, unknown> }): Record<string, unknown> {
  if (result.isError) throw new Error(`tool failed: ${result.content[0]?.type === 'text' ? result.content[0].text : ''}`);
  return result.structuredContent ?? {};
}

describe('lucid mcp over stdio', () => {
  it('an agent new to the vault gets the project and its decision from a task that names it, and finds the decision in other words', async () => {
    const tv = tempVault({
      'projects/heron.md': '---\ntype: project\nname: Heron\nstatus: active\n---\n\n# Heron\n\nThe support desk.\n',
      'decisions/heron-tickets-in-postgres.md':
        '---\ntype: decision\ndate: 2026-11-02\nproject: "[[projects/heron]]"\nstatus: accepted\n---\n\n# Heron stores tickets in PostgreSQL\n\nOne table per queue, JSONB for custom fields.\n',
      'README.md': '# Team notes\n\nWhich tools we use, which services we run, and who to ask about the database, the ticketing, the service desk and more.\n',
      'notes/standup.md': '# Standup\n\nTicket triage moved to Tuesdays.\n',
    });
    const server = await spawnServer(tv);
    const started = ok(await server.call('start_session', { agent: 'claude-code', task: 'add ticket search to Heron' })) as {
      project: string;
      read_first: { path: string }[];
    };
    expect(started.project).toBe('projects/heron.md');
    expect(started.read_first.map((r) => r.path).slice(0, 2)).toEqual(['projects/heron.md', 'decisions/heron-tickets-in-postgres.md']);
    const found = ok(await server.call('search_notes', { query: 'Where does the support desk keep its tickets?' })) as {
      results: { path: string; score: number }[];
    };
    expect(found.results.slice(0, 3).map((r) => r.path)).toContain('decisions/heron-tickets-in-postgres.md');
    const scores = found.results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('serves a whole session: every write one commit with trailers and one changelog line, the session note at the end', async () => {
    const tv = tempVault();
    const server = await spawnServer(tv);
    const pid = server.transport.pid;
    expect(server.client.getInstructions()).toContain('start_session');
    const { tools } = await server.client.listTools();
    expect(tools).toHaveLength(11);

    const started = ok(
      await server.call('start_session', { agent: 'claude-code', task: 'Fix the flaky webhook tests', repo: 'https://github.com/example-team/atlas' }),
    );
    const session = started.session as string;
    expect(started.project).toBe('projects/atlas.md');
    ok(await server.call('search_notes', { query: 'postgres ledger' }));
    const read = ok(await server.call('read_note', { path: 'notes/handbook.md' }));

    const before = tv.commitCount();
    const writes: [string, Record<string, unknown>, string][] = [
      [
        'write_note',
        { session, path: 'notes/handbook.md', mode: 'append', content: 'Retry webhooks with backoff.', expected_hash: read.hash, reason: 'retry rule' },
        'append',
      ],
      ['propose_to_inbox', { session, target: 'projects/atlas.md', action: 'append', content: 'Webhooks retry.', reason: 'maybe', confidence: 0.4 }, 'create'],
      [
        'record_decision',
        { session, project: 'atlas', title: 'Retry webhooks for a day', decision: 'Retry for 24 hours.', rationale: 'Customers go down for hours.' },
        'create',
      ],
      ['molt_skill', { session, name: 'triage-flaky-tests', content: '1. Run it 50 times.\n', reason: 'more runs' }, 'molt'],
      ['end_session', { session, summary: 'Wrote the retry rule and its decision.', next_steps: ['Measure retries'] }, 'create'],
    ];
    for (const [i, [name, args, op]] of writes.entries()) {
      ok(await server.call(name, args));
      expect(tv.commitCount(), name).toBe(before + i + 1);
      expect(changelogLines(tv), name).toHaveLength(i + 1);
      const trailers = trailersOf(tv);
      expect(trailers, name).toMatchObject({ 'Lucid-Actor': 'agent:claude-code', 'Lucid-Op': op, 'Lucid-Session': session });
      expect(trailers['Lucid-Edit']).toMatch(/^e[a-z2-7]{12}$/);
      expect(filesOf(tv)).toContain('changelog.md');
    }
    const note = tv.read(`sessions/${session}.md`);
    expect(fieldOf(note, 'outcome')).toBe('done');
    expect(note).toContain('searched:\n  - postgres ledger\n');
    expect(note).toContain('read:\n  - notes/handbook.md\n');
    expect(note).toMatch(/touched:\n {2}- notes\/handbook\.md\n {2}- decisions\/atlas-retry-webhooks-for-a-day\.md\n {2}- skills\/triage-flaky-tests\.md\n/);
    expect(note).toMatch(/inbox:\n {2}- inbox\/.*-atlas-[a-z2-7]{4}\.md\n/);
    expect(fieldOf(note, 'first_search')).toMatch(/T/);
    expect(fieldOf(note, 'first_write')).toMatch(/T/);
    expect(tv.git(['status', '--porcelain'])).toBe('');

    await server.client.close();
    // The process ended (its 'close' event), so nothing of it is left running.
    await server.exited;
    expect(() => process.kill(pid!, 0)).toThrow();
    expect(server.stderr()).toContain('lucid mcp: serving');
    expect(tv.commitCount()).toBe(before + writes.length);
  });

  it('ends the session as abandoned, committed, when the client goes away without end_session', async () => {
    const tv = tempVault();
    const server = await spawnServer(tv);
    const session = ok(await server.call('start_session', { agent: 'cursor', task: 'Tidy the handbook' })).session as string;
    ok(await server.call('search_notes', { query: 'handbook' }));
    ok(await server.call('write_note', { session, path: 'notes/handbook.md', mode: 'append', content: 'Half a thought.', reason: 'started tidying' }));
    const before = tv.commitCount();
    await server.client.close();
    // The server commits the abandoned session before it exits: once it has, the commit is there.
    await server.exited;
    expect(tv.exists(`sessions/${session}.md`)).toBe(true);
    expect(tv.commitCount()).toBe(before + 1);
    const note = tv.read(`sessions/${session}.md`);
    expect(fieldOf(note, 'outcome')).toBe('abandoned');
    expect(note).toContain('touched:\n  - notes/handbook.md\n');
    expect(note).toContain('searched:\n  - handbook\n');
    expect(trailersOf(tv)).toMatchObject({ 'Lucid-Actor': 'agent:cursor', 'Lucid-Op': 'create', 'Lucid-Session': session });
    expect(filesOf(tv)).toEqual(['changelog.md', `sessions/${session}.md`]);
    expect(fs.readdirSync(path.join(tv.root, '.lucid', 'sessions'))).toEqual([]);
    expect(fs.existsSync(path.join(tv.root, '.lucid', 'vault.lock'))).toBe(false);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it("ends its sessions as abandoned on SIGTERM; a killed server's sessions are ended by the next server", async () => {
    const tv = tempVault();
    const terminated = await spawnServer(tv);
    const first = ok(await terminated.call('start_session', { agent: 'cursor', task: 'one' })).session as string;
    process.kill(terminated.transport.pid!, 'SIGTERM');
    expect(await terminated.exited).toEqual({ code: 0, signal: null });
    expect(tv.exists(`sessions/${first}.md`)).toBe(true);
    expect(fieldOf(tv.read(`sessions/${first}.md`), 'outcome')).toBe('abandoned');

    const killed = await spawnServer(tv);
    const second = ok(await killed.call('start_session', { agent: 'cursor', task: 'two' })).session as string;
    const pid = killed.transport.pid!;
    process.kill(pid, 'SIGKILL');
    expect((await killed.exited).signal).toBe('SIGKILL');
    expect(tv.exists(`sessions/${second}.md`)).toBe(false);
    // A server ends the sessions a stopped server left open before it takes requests: once it answers, they are ended.
    const next = await spawnServer(tv);
    await next.client.listTools();
    expect(tv.exists(`sessions/${second}.md`)).toBe(true);
    const note = tv.read(`sessions/${second}.md`);
    expect(fieldOf(note, 'outcome')).toBe('abandoned');
    expect(note).toContain('stopped without ending it');
    expect(next.stderr()).toContain('left open by a stopped server');
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });
});
