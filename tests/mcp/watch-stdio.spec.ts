import { afterEach, describe, expect, it } from 'vitest';
import { MCP_VAULT_FILES, spawnStdioServer, type StdioServer } from '../support/mcp';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const vaults: TempVault[] = [];
const servers: StdioServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.client.close().catch(() => undefined)));
  for (const tv of vaults.splice(0)) tv.cleanup();
});

describe('lucid mcp watches the vault', () => {
  it('finds a note a person edited on disk after the server started', async () => {
    const tv = makeTempVault({ ...MCP_VAULT_FILES, 'notes/garden.md': '# Garden\n\nThe roses need pruning.\n' });
    vaults.push(tv);
    const server = await spawnStdioServer(tv);
    servers.push(server);
    const search = async (query: string) => {
      const result = await server.call('search_notes', { query });
      expect(result.isError).toBeFalsy();
      return ((result.structuredContent as { results: { path: string }[] }).results ?? []).map((r) => r.path);
    };
    expect(await search('roses pruning')).toContain('notes/garden.md');

    tv.write('notes/garden.md', '# Garden\n\nThe quinces are ripe.\n');
    tv.write('notes/orchard.md', '# Orchard\n\nMore quinces by the wall.\n');
    // A poll with no total of its own (the test's timeout is the only limit): the watcher's events
    // arrive in the server's process, which tells the client nothing until a search shows them.
    let found = await search('quinces');
    while (found.length < 2) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      found = await search('quinces');
    }
    expect(found.sort()).toEqual(['notes/garden.md', 'notes/orchard.md']);
    expect(await search('roses pruning')).not.toContain('notes/garden.md');
    expect(server.stderr()).toMatch(/watching its files for changes/);
    expect(server.stderr()).not.toMatch(/Not watching/);
  });
});
