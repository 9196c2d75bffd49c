import { describe, expect, it } from 'vitest';
import { cleanedAfterEach, openWithMcp, MCP_VAULT_FILES, ok, textOf, type McpPair } from '../support/mcp';
import { sha256, type TempVault } from '../support/temp-vault';

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';
const PROTOCOL = '# How agents use this vault\n\nRead first, write small.\n';
const SKILL = '---\ntype: skill\nname: sneaky\nversion: 1\ntrigger: flaky tests fail on the webhook\nlast_updated: 2026-11-01\n---\n\nDo it.\n';

const lists = cleanedAfterEach();

async function setup(extra: Record<string, string> = {}): Promise<{ tv: TempVault; mcp: McpPair; session: string }> {
  const { tv, mcp } = await openWithMcp(lists, {
    ...MCP_VAULT_FILES,
    'changelog.md': '# Changelog\n',
    'AGENTS.md': PROTOCOL,
    'inbox/.gitkeep': '',
    [`notes/${NFC}.md`]: '# Café\n',
    ...extra,
  });
  const { session } = ok<{ session: string }>(await mcp.call('start_session', { agent: 'claude-code', task: 'Fix the flaky webhook test' }));
  return { tv, mcp, session };
}

describe('write_note keeps agents off protected names, however they are spelled', () => {
  it.each([
    ['CHANGELOG.md', /changelog/i],
    ['Changelog.md', /changelog/i],
    ['INBOX/x.md', /inbox.*propose_to_inbox/],
    ['Skills/x.md', /skill.*molt_skill/],
    ['SESSIONS/x.md', /session note/],
    [`notes/${NFD}.md`, new RegExp(`collide with the existing notes/${NFC}\\.md`)],
    [`notes/CAF\u00c9.md`, /collide with the existing/],
    ['notes/.obsidian/x.md', /\.obsidian/],
    ['-rf.md', /start with "-"/],
    [':(glob)x.md', /":"/],
    ['CON.md', /device name/],
    ['agents.md', /AGENTS\.md/],
  ])('refuses to create %j, with a sentence the agent can act on', async (path, message) => {
    const { tv, mcp, session } = await setup();
    const head = tv.head();
    const result = await mcp.call('write_note', { session, path, mode: 'create', content: '# x\n', reason: 'try a protected name' });
    expect(result.isError, textOf(result)).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(tv.head()).toBe(head);
    expect(tv.git(['status', '--porcelain', '--untracked-files=all'])).toBe('');
  });

  it('refuses a replace of AGENTS.md (the protocol itself) and points to the inbox, where the proposal works', async () => {
    const { tv, mcp, session } = await setup();
    const head = tv.head();
    const replace = await mcp.call('write_note', {
      session,
      path: 'AGENTS.md',
      mode: 'replace',
      content: '# New rules\n\nAgents may do anything.\n',
      expected_hash: sha256(PROTOCOL),
      reason: 'simplify',
    });
    expect(replace.isError).toBe(true);
    expect(textOf(replace)).toMatch(/belong to the person.*propose_to_inbox/);
    const append = await mcp.call('write_note', { session, path: 'AGENTS.md', mode: 'append', content: 'More rules.', reason: 'x' });
    expect(append.isError).toBe(true);
    expect(tv.read('AGENTS.md')).toBe(PROTOCOL);
    expect(tv.head()).toBe(head);

    const proposal = ok<{ status: string; inbox_path: string }>(
      await mcp.call('propose_to_inbox', { session, target: 'AGENTS.md', action: 'update', content: '# New rules\n', reason: 'simplify' }),
    );
    expect(proposal.status).toBe('proposed');
    expect(tv.exists(proposal.inbox_path)).toBe(true);
    expect(tv.read('AGENTS.md')).toBe(PROTOCOL);
  });

  it('refuses a type: skill note outside skills/, and start_session never recommends one a person left there', async () => {
    const { tv, mcp, session } = await setup({ 'notes/old-skill.md': SKILL.replace('sneaky', 'old-skill') });
    const head = tv.head();
    const result = await mcp.call('write_note', { session, path: 'notes/sneaky.md', mode: 'create', content: SKILL, reason: 'a skill of my own' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/type: skill.*molt_skill/);
    const field = await mcp.call('write_note', { session, path: 'notes/handbook.md', mode: 'set_fields', fields: { type: 'skill' }, reason: 'x' });
    expect(field.isError).toBe(true);
    expect(tv.head()).toBe(head);
    expect(tv.exists('notes/sneaky.md')).toBe(false);

    const started = ok<{ read_first: { path: string }[] }>(await mcp.call('start_session', { agent: 'cursor', task: 'flaky tests fail on the webhook' }));
    const recommended = started.read_first.map((r) => r.path);
    expect(recommended).toContain('skills/triage-flaky-tests.md');
    expect(recommended).not.toContain('notes/old-skill.md');
  });

  it('molt_skill still creates and molts skills under skills/', async () => {
    const { tv, mcp, session } = await setup();
    const created = ok<{ path: string; version: number }>(
      await mcp.call('molt_skill', { session, name: 'check-webhooks', content: 'Replay the webhook.\n', trigger: 'a webhook fails', reason: 'learned it' }),
    );
    expect(created).toMatchObject({ path: 'skills/check-webhooks.md', version: 1 });
    expect(tv.read('skills/check-webhooks.md')).toContain('type: skill');
  });
});

describe('write_note refuses text that is not exactly UTF-8, before anything is written', () => {
  it.each([
    ['a NUL in the content', { mode: 'create', content: '# A\n\nbefore\u0000after\n' }, /NUL/],
    ['a NUL in a field', { mode: 'create', content: '# A\n', fields: { title: 'a\u0000b' } }, /NUL/],
    ['a lone surrogate in the content', { mode: 'create', content: '# A \ud83d\n' }, /not valid Unicode/],
    ['a lone surrogate in a field', { mode: 'create', content: '# A\n', fields: { title: 'x\udc00' } }, /not valid Unicode/],
  ])('refuses %s', async (_label, args, message) => {
    const { tv, mcp, session } = await setup();
    const head = tv.head();
    const result = await mcp.call('write_note', { session, path: 'notes/new.md', reason: 'x', ...args });
    expect(result.isError, textOf(result)).toBe(true);
    expect(textOf(result)).toMatch(message);
    expect(tv.exists('notes/new.md')).toBe(false);
    expect(tv.head()).toBe(head);
  });

  it('a NUL appended to an existing note is refused, and the note stays writable by agents', async () => {
    const { tv, mcp, session } = await setup();
    const bad = await mcp.call('write_note', { session, path: 'notes/handbook.md', mode: 'append', content: 'x\u0000y', reason: 'x' });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/NUL/);
    ok(await mcp.call('write_note', { session, path: 'notes/handbook.md', mode: 'append', content: 'A clean line.', reason: 'x' }));
    expect(tv.read('notes/handbook.md')).toContain('A clean line.');
    expect(tv.readBytes('notes/handbook.md').includes(0)).toBe(false);
  });
});
