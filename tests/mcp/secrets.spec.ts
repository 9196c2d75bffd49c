import { describe, expect, it } from 'vitest';
import { cleanedAfterEach, openWithMcp, fieldOf, filesOf, MCP_VAULT_FILES, ok, textOf, type McpPair } from '../support/mcp';
import type { TempVault } from '../support/temp-vault';

// Made up, shaped like the real thing; joined so that no scanner flags this file.
const HEX32 = ['9f3b2c7d', '4e1a8b6c', '0d5f2e9a', '7c3b1d4e'].join('');
const GHP = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
const PASSWORD = 'Tr0ub4dor&3xK9';
const KEY_BODY = 'MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK';
const NOTE = 'notes/handbook.md';

const lists = cleanedAfterEach();

async function setup(): Promise<{ tv: TempVault; mcp: McpPair; session: string }> {
  const { tv, mcp } = await openWithMcp(lists, MCP_VAULT_FILES);
  const { session } = ok<{ session: string }>(await mcp.call('start_session', { agent: 'claude-code', task: 'document the deploy' }));
  return { tv, mcp, session };
}

function history(tv: TempVault): string {
  return tv.git(['log', '-p', '--all', '--format=%B']);
}

type WriteData = { status: string; inbox_path: string | null; message: string };

describe('write_note and the secrets guard, through an MCP client', () => {
  it('set_fields: a key name with a hex value is caught, the reply says why, git never holds it', async () => {
    const { tv, mcp, session } = await setup();
    const result = await mcp.call('write_note', { session, path: 'projects/atlas.md', mode: 'set_fields', fields: { api_key: HEX32 }, reason: 'the key' });
    expect(result.isError).toBe(true);
    const data = result.structuredContent as WriteData;
    expect(data.status).toBe('possible_secret');
    expect(data.message).toMatch(/a credential/);
    expect(JSON.parse(textOf(result))).toEqual(data);
    expect(textOf(result)).not.toContain(HEX32);
    expect(filesOf(tv)).toEqual(['changelog.md', data.inbox_path]);
    const inbox = tv.read(data.inbox_path ?? '');
    expect(fieldOf(inbox, 'flag')).toBe('possible-secret');
    expect(inbox).toContain('api_key: …[masked]');
    expect(history(tv)).not.toContain(HEX32);
  });

  it('a password split across two appends: the first is written, the second waits in the inbox, masked', async () => {
    const { tv, mcp, session } = await setup();
    const first = ok<WriteData>(await mcp.call('write_note', { session, path: NOTE, mode: 'append', content: 'db password = ', reason: 'db' }));
    expect(first.status).toBe('written');
    const second = await mcp.call('write_note', { session, path: NOTE, mode: 'append', content: PASSWORD, reason: 'the value' });
    const data = second.structuredContent as WriteData;
    expect(data.status).toBe('possible_secret');
    expect(textOf(second)).not.toContain(PASSWORD);
    expect(tv.read(data.inbox_path ?? '')).toContain('…[masked]');
    expect(tv.read(NOTE)).not.toContain(PASSWORD);
    expect(history(tv)).not.toContain(PASSWORD);
  });

  it('a private key split across appends never reaches git', async () => {
    const { tv, mcp, session } = await setup();
    ok(await mcp.call('write_note', { session, path: NOTE, mode: 'append', content: '-----BEGIN RSA PRIVATE KEY-----', reason: 'key' }));
    const body = await mcp.call('write_note', { session, path: NOTE, mode: 'append', content: KEY_BODY, reason: 'key' });
    expect((body.structuredContent as WriteData).status).toBe('possible_secret');
    const end = await mcp.call('write_note', { session, path: NOTE, mode: 'append', content: '-----END RSA PRIVATE KEY-----', reason: 'key' });
    expect((end.structuredContent as WriteData).status).toBe('written');
    for (const line of KEY_BODY.split('\n')) expect(history(tv)).not.toContain(line);
  });

  it("a person's uncommitted secret: the agent's append waits in the inbox and the reply says why, without the secret", async () => {
    const { tv, mcp, session } = await setup();
    const typed = `${tv.read(NOTE)}\nDeploy with ${GHP}\n`;
    tv.write(NOTE, typed);
    const result = await mcp.call('write_note', { session, path: NOTE, mode: 'append', content: 'Deploys happen on Fridays.', reason: 'deploy day' });
    expect(result.isError).toBe(true);
    const data = result.structuredContent as WriteData;
    expect(data.status).toBe('conflict');
    expect(data.message).toMatch(/uncommitted changes.*a GitHub token.*never commits secrets/);
    expect(JSON.parse(textOf(result))).toEqual(data);
    expect(textOf(result)).not.toContain(GHP.slice(4));
    expect(tv.read(NOTE)).toBe(typed);
    expect(tv.read(data.inbox_path ?? '')).toContain('Deploys happen on Fridays.');
    expect(history(tv)).not.toContain(GHP.slice(4));
  });

  it('a token in a note path is refused and named masked', async () => {
    const { tv, mcp, session } = await setup();
    const commits = tv.commitCount();
    const result = await mcp.call('write_note', { session, path: `notes/${GHP}.md`, mode: 'create', content: '# x\n', reason: 'x' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('ghp_…[masked]');
    expect(textOf(result)).not.toContain(GHP.slice(4));
    expect(tv.commitCount()).toBe(commits);
  });
});
