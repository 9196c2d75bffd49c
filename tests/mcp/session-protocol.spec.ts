import { describe, expect, it } from 'vitest';
import { checkSessionProtocol } from '../../lib/vault/index';
import { cleanedAfterEach, fieldOf, MCP_VAULT_FILES, ok, openWithMcp, trailersOf, type McpPair } from '../support/mcp';

/** The protocol check of sessions an agent runs through a real MCP SDK client. */

const lists = cleanedAfterEach();

const start = async (mcp: McpPair) =>
  ok<{ session: string }>(await mcp.call('start_session', { agent: 'claude-code', task: 'Write down the retry policy of atlas' })).session;
const write = (mcp: McpPair, session: string, path: string) =>
  mcp.call('write_note', { session, path, mode: 'create', content: '# Retry policy\n\nThree tries with backoff.\n', reason: 'the retry policy' });

describe('protocol check of MCP sessions', () => {
  it('flags a session that writes before it searches', async () => {
    const { tv, vault, mcp } = await openWithMcp(lists, MCP_VAULT_FILES);
    const session = await start(mcp);
    ok(await write(mcp, session, 'notes/retry-policy.md'));
    ok(await mcp.call('search_notes', { query: 'retry policy' }));
    ok(await mcp.call('end_session', { session, summary: 'Wrote the policy, then looked.', outcome: 'done' }));
    const note = tv.read(`sessions/${session}.md`);
    expect(Date.parse(fieldOf(note, 'first_search') ?? '')).toBeGreaterThan(Date.parse(fieldOf(note, 'first_write') ?? ''));
    const check = await checkSessionProtocol(vault, session);
    expect(check?.ok).toBe(false);
    expect(check?.rules.find((r) => r.id === 'read-before-write')).toMatchObject({ ok: false, detail: expect.stringMatching(/came before it first searched/) });
    expect(check?.rules.filter((r) => !r.ok).map((r) => r.id)).toEqual(['read-before-write']);
  });

  it('passes a session that searches and reads first, records its decision and ends', async () => {
    const { tv, vault, mcp } = await openWithMcp(lists, MCP_VAULT_FILES);
    const session = await start(mcp);
    ok(await mcp.call('search_notes', { query: 'atlas ledger database' }));
    ok(await mcp.call('read_note', { path: 'projects/atlas.md' }));
    ok(await write(mcp, session, 'notes/retry-policy.md'));
    const decision = ok<{ commit: string }>(
      await mcp.call('record_decision', { session, project: 'atlas', title: 'Retry webhooks with backoff', decision: 'Backoff.', rationale: 'Load.' }),
    );
    expect(trailersOf(tv, decision.commit)['Lucid-Tool']).toBe('record_decision');
    ok(await mcp.call('end_session', { session, summary: 'Looked first, then wrote.', outcome: 'done' }));
    expect(fieldOf(tv.read(`sessions/${session}.md`), 'first_read')).toMatch(/T/);
    const check = await checkSessionProtocol(vault, session);
    expect(check?.rules.map((r) => [r.id, r.ok])).toEqual([
      ['read-before-write', true],
      ['ended', true],
      ['edits-logged', true],
      ['decisions-recorded', true],
    ]);
    expect(check?.ok).toBe(true);
  });
});
