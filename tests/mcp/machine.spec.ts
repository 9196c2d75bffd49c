import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_VAULT_FILES, spawnStdioServer, type StdioServer, trailersOf } from '../support/mcp';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/** `lucid mcp` with LUCID_MACHINE set: an agent's commits and its session note say where they were made. */

const vaults: TempVault[] = [];
const servers: StdioServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.client.close().catch(() => undefined)));
  for (const tv of vaults.splice(0)) tv.cleanup();
});

function ok(result: CallToolResult & { structuredContent?: Record<string, unknown> }): Record<string, unknown> {
  if (result.isError) throw new Error(`tool failed: ${result.content[0]?.type === 'text' ? result.content[0].text : ''}`);
  return result.structuredContent ?? {};
}

describe('lucid mcp and LUCID_MACHINE', () => {
  it("puts the environment's machine on the agent's write and on its session note", async () => {
    const tv = makeTempVault(MCP_VAULT_FILES);
    vaults.push(tv);
    tv.env.LUCID_MACHINE = 'mcp-box';
    const server = await spawnStdioServer(tv);
    servers.push(server);
    const { session } = ok(await server.call('start_session', { agent: 'claude-code', task: 'note where I am' })) as { session: string };
    ok(await server.call('search_notes', { query: 'anything' }));
    ok(await server.call('write_note', { session, path: 'notes/where.md', mode: 'create', content: '# Where\n', reason: 'where' }));
    expect(trailersOf(tv)).toMatchObject({ 'Lucid-Session': session, 'Lucid-Machine': 'mcp-box' });
    ok(await server.call('end_session', { session, outcome: 'done', summary: 'noted' }));
    expect(trailersOf(tv)['Lucid-Machine']).toBe('mcp-box');
    expect(tv.read(`sessions/${session}.md`)).toMatch(/^machine: mcp-box$/m);
  });
});
