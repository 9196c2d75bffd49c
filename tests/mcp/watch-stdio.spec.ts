import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { MCP_VAULT_FILES } from '../support/mcp';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const BIN = path.resolve('bin/lucid');

const vaults: TempVault[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close().catch(() => undefined)));
  for (const tv of vaults.splice(0)) tv.cleanup();
});

describe('lucid mcp watches the vault', () => {
  it('finds a note a person edited on disk after the server started', async () => {
    const tv = makeTempVault({ ...MCP_VAULT_FILES, 'notes/garden.md': '# Garden\n\nThe roses need pruning.\n' });
    vaults.push(tv);
    const transport = new StdioClientTransport({
      command: BIN,
      args: ['mcp', '--vault', tv.root],
      env: { ...(tv.env as Record<string, string>), LUCID_USER: 'Test Person' },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const client = new Client({ name: 'lucid-watch-test', version: '0.0.0' });
    clients.push(client);
    await client.connect(transport);
    const search = async (query: string) => {
      const result = (await client.callTool({ name: 'search_notes', arguments: { query } }, undefined, { timeout: 60_000 })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      return ((result.structuredContent as { results: { path: string }[] }).results ?? []).map((r) => r.path);
    };
    expect(await search('roses pruning')).toContain('notes/garden.md');

    tv.write('notes/garden.md', '# Garden\n\nThe quinces are ripe.\n');
    tv.write('notes/orchard.md', '# Orchard\n\nMore quinces by the wall.\n');
    const deadline = Date.now() + 15_000;
    let found: string[] = [];
    while (Date.now() < deadline) {
      found = await search('quinces');
      if (found.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(found.sort()).toEqual(['notes/garden.md', 'notes/orchard.md']);
    expect(await search('roses pruning')).not.toContain('notes/garden.md');
    expect(stderr).toMatch(/watching its files for changes/);
    expect(stderr).not.toMatch(/Not watching/);
  });
});
