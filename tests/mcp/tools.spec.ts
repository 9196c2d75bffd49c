import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Vault } from '../../lib/vault/vault';
import type { SinceLastSession } from '../../lib/vault/agents/contract-read';
import {
  cleanedAfterEach,
  openWithMcp,
  changelogLines,
  connectInMemory,
  fieldOf,
  filesOf,
  MCP_VAULT_FILES,
  ok,
  textOf,
  trailersOf,
  type McpPair,
} from '../support/mcp';
import { isolatedGitEnv, makeTempVault, sha256, snapshot, type TempVault } from '../support/temp-vault';

const SESSION_ID = /^\d{8}-\d{6}-claude-code-[a-z2-7]{4}$/;
const EDIT_ID = /^e[a-z2-7]{12}$/;
const TOOLS = [
  'dream_candidates',
  'edit_note',
  'end_session',
  'molt_skill',
  'move_note',
  'propose_to_inbox',
  'read_note',
  'record_decision',
  'search_notes',
  'start_session',
  'write_note',
];
const GITHUB_TOKEN = `ghp_${'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8'}`;
const PRIVATE_KEY = `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\nVTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n-----END RSA PRIVATE KEY-----`;

const lists = cleanedAfterEach();
const { vaults, opened, pairs } = lists;

async function setup(files: Record<string, string> = MCP_VAULT_FILES): Promise<{ tv: TempVault; vault: Vault; mcp: McpPair }> {
  const { tv, vault, mcp } = await openWithMcp(lists, files);
  return { tv, vault, mcp };
}

async function start(mcp: McpPair, args: Record<string, unknown> = {}): Promise<string> {
  const result = ok<{ session: string }>(await mcp.call('start_session', { agent: 'claude-code', task: 'Fix the flaky webhook test', ...args }));
  return result.session;
}

/** The git blob id of some text, computed by git itself. */
function gitBlob(text: string): string {
  return execFileSync('git', ['hash-object', '--stdin'], { input: text, env: isolatedGitEnv() as NodeJS.ProcessEnv, encoding: 'utf8' }).trim();
}

/** Runs one write and checks it made exactly one commit with the session's trailers and one changelog line. */
async function oneCommit(tv: TempVault, session: string, run: () => Promise<void>, expected: { op: string; files: (string | RegExp)[] }) {
  const commits = tv.commitCount();
  const lines = changelogLines(tv).length;
  await run();
  expect(tv.commitCount()).toBe(commits + 1);
  expect(changelogLines(tv)).toHaveLength(lines + 1);
  const trailers = trailersOf(tv);
  expect(trailers['Lucid-Actor']).toBe('agent:claude-code');
  expect(trailers['Lucid-Op']).toBe(expected.op);
  expect(trailers['Lucid-Edit']).toMatch(EDIT_ID);
  expect(trailers['Lucid-Session']).toBe(session);
  const files = filesOf(tv);
  expect(files).toHaveLength(expected.files.length + 1);
  expect(files).toContain('changelog.md');
  for (const file of expected.files)
    expect(
      files.some((f) => (typeof file === 'string' ? f === file : file.test(f))),
      String(file),
    ).toBe(true);
  expect(changelogLines(tv)[0]).toContain(`^${trailers['Lucid-Edit']}`);
  expect(changelogLines(tv)[0]).toContain(`[[sessions/${session}|session]]`);
  expect(tv.git(['status', '--porcelain'])).toBe('');
}

describe('the MCP server: tools, instructions and prompt', () => {
  it('lists its tools, every input field described, the readers marked read-only', async () => {
    const { mcp } = await setup();
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
      expect(Object.keys(properties).length, tool.name).toBeGreaterThan(0);
      for (const [field, schema] of Object.entries(properties)) expect(schema.description, `${tool.name}.${field}`).toBeTruthy();
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.outputSchema, tool.name).toBeTruthy();
      const reader = tool.name === 'search_notes' || tool.name === 'read_note' || tool.name === 'dream_candidates';
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(reader);
    }
    // Deleting goes through the inbox: every tool that changes a note says so; move_note deletes `from`.
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ['write_note', 'edit_note', 'move_note']) expect(byName.get(name)?.description, name).toMatch(/propose_to_inbox with action delete/);
    expect(byName.get('move_note')?.annotations?.destructiveHint).toBe(true);
    expect(byName.get('move_note')?.description).toMatch(/changelog, a log, keeps its links as written/);
  });

  it('sends the memory protocol as its instructions and as the memory_protocol prompt', async () => {
    const { mcp } = await setup();
    const instructions = mcp.client.getInstructions() ?? '';
    for (const name of TOOLS) expect(instructions).toContain(name);
    const prompt = await mcp.client.getPrompt({ name: 'memory_protocol' });
    const first = prompt.messages[0].content;
    expect(first.type === 'text' ? first.text : '').toBe(instructions);
  });
});

describe('start_session', () => {
  it('returns the session id and what to read first, each with path, title, type and why; writes nothing to git', async () => {
    const { tv, mcp } = await setup();
    const before = snapshot(tv.root);
    const result = await mcp.call('start_session', { agent: 'Claude Code', task: 'Fix the flaky webhook tests', project: 'atlas' });
    const data = ok<{ session: string; actor: string; project: string; read_first: { path: string; title: string; type: string; why: string }[] }>(result);
    expect(data.session).toMatch(SESSION_ID);
    expect(data.actor).toBe('agent:claude-code');
    expect(data.project).toBe('projects/atlas.md');
    const paths = data.read_first.map((r) => r.path);
    expect(paths[0]).toBe('projects/atlas.md');
    expect(paths).toContain('decisions/atlas-use-postgres.md');
    expect(paths).not.toContain('decisions/atlas-use-mysql.md');
    expect(paths).toContain('sessions/20261110-090000-cursor-abcd.md');
    expect(paths).toContain('skills/triage-flaky-tests.md');
    expect(paths).not.toContain('skills/write-release-notes.md');
    for (const item of data.read_first) {
      expect(item.title).toBeTruthy();
      expect(item.type).toBeTruthy();
      expect(item.why.length).toBeGreaterThan(10);
    }
    expect(data.read_first.find((r) => r.path === 'skills/triage-flaky-tests.md')?.why).toMatch(/trigger/);
    // The text block is the structured result once, as compact JSON (for clients that ignore structuredContent).
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(textOf(result)).not.toContain('\n  ');
    const after = snapshot(tv.root);
    expect(after.head).toBe(before.head);
    expect(after.status).toBe(before.status);
    expect(fs.existsSync(path.join(tv.root, '.lucid', 'sessions', `${data.session}.jsonl`))).toBe(true);
  });

  it("does not report installing Lucid as a person's correction", async () => {
    const tv = makeTempVault({ 'notes/a.md': '# A\n' });
    vaults.push(tv);
    const { initVault } = await import('../../lib/vault/init');
    await initVault({ dir: tv.root, env: tv.env, fallbackUser: 'Test Person' });
    const vault = await tv.open();
    opened.push(vault);
    const mcp = await connectInMemory(vault);
    pairs.push(mcp);
    const data = ok<{ since_last_session: SinceLastSession }>(await mcp.call('start_session', { agent: 'claude-code', task: 'anything' }));
    // The vault's own first commit is an import, in one line; Lucid's init commit is not listed at all.
    expect(data.since_last_session.corrections).toEqual([]);
    expect(data.since_last_session.imports).toEqual([expect.objectContaining({ reason: 'initial', notes: 1, examples: ['notes/a.md'] })]);
  });

  it("matches the project by the repo an agent works in, against the projects' repo field", async () => {
    const { mcp } = await setup();
    const data = ok<{ project: string; read_first: { path: string; why: string }[] }>(
      await mcp.call('start_session', { agent: 'claude-code', task: 'Add tax rates', repo: 'git@github.com:example-team/atlas.git' }),
    );
    expect(data.project).toBe('projects/atlas.md');
    expect(data.read_first[0].why).toMatch(/repo/);
  });

  it('says so when no project matches, and names the known ones', async () => {
    const { mcp } = await setup();
    const data = ok<{ project: string | null; notes: string[] }>(await mcp.call('start_session', { agent: 'claude-code', task: 'x', project: 'zeppelin' }));
    expect(data.project).toBeNull();
    expect(data.notes.join(' ')).toMatch(/No project note matches project "zeppelin".*Atlas/);
  });
});

describe('search_notes and read_note', () => {
  it('search_notes returns ranked notes with snippets, filtered by type and project', async () => {
    const { mcp } = await setup();
    const all = ok<{ results: { path: string; snippet: string }[] }>(await mcp.call('search_notes', { query: 'how we work handbook' }));
    expect(all.results[0].path).toBe('notes/handbook.md');
    expect(all.results[0].snippet).toContain('«');
    const decisions = ok<{ results: { path: string; type: string }[] }>(
      await mcp.call('search_notes', { query: 'postgres mysql', type: 'decision', project: 'Atlas' }),
    );
    expect(decisions.results.map((r) => r.path).sort()).toEqual(['decisions/atlas-use-mysql.md', 'decisions/atlas-use-postgres.md']);
    const unknown = await mcp.call('search_notes', { query: 'x', project: 'zeppelin' });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/No project note matches "zeppelin"/);
  });

  it('read_note returns front matter, body, hash, outgoing links and backlinks, and writes nothing', async () => {
    const { tv, mcp } = await setup();
    const before = snapshot(tv.root);
    const note = ok<{ frontmatter: Record<string, unknown>; body: string; hash: string; backlinks: { from: string }[] }>(
      await mcp.call('read_note', { path: 'projects/atlas.md' }),
    );
    expect(note.hash).toBe(sha256(tv.readBytes('projects/atlas.md')));
    expect(note.frontmatter).toMatchObject({ type: 'project', name: 'Atlas', status: 'active' });
    expect(note.body).toContain('The billing service.');
    expect(note.backlinks.map((b) => b.from).sort()).toEqual([
      'decisions/atlas-use-mysql.md',
      'decisions/atlas-use-postgres.md',
      'notes/handbook.md',
      'sessions/20261110-090000-cursor-abcd.md',
    ]);
    const handbook = ok<{ links: { raw: string; resolved: string | null }[] }>(await mcp.call('read_note', { path: 'notes/handbook.md' }));
    expect(handbook.links).toEqual([{ raw: '[[projects/atlas]]', target: 'projects/atlas', resolved: 'projects/atlas.md', title: 'Atlas' }]);
    const missing = await mcp.call('read_note', { path: 'notes/nope.md' });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/No file notes\/nope\.md/);
    expect(snapshot(tv.root)).toEqual(before);
  });
});

describe('write_note', () => {
  it('create, append, set_fields and replace: each is one commit with the session trailers and one changelog line', async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp);
    const note = 'notes/ideas.md';
    let written: { status: string; hash: string; edit_id: string; commit: string } | undefined;
    await oneCommit(
      tv,
      session,
      async () => {
        written = ok(await mcp.call('write_note', { session, path: note, mode: 'create', content: '# Ideas\n\nFirst.\n', reason: 'started a list of ideas' }));
      },
      { op: 'create', files: [note] },
    );
    expect(written?.status).toBe('written');
    expect(written?.commit).toBe(tv.head());
    expect(trailersOf(tv)['Lucid-Edit']).toBe(written?.edit_id);
    expect(written?.hash).toBe(sha256(tv.readBytes(note)));
    // Not one of Lucid's types: no created or updated is added (issue 13).
    expect(tv.read(note)).toBe('# Ideas\n\nFirst.\n');

    await oneCommit(
      tv,
      session,
      async () => {
        ok(await mcp.call('write_note', { session, path: note, mode: 'append', content: 'Second.', reason: 'one more idea' }));
      },
      { op: 'append', files: [note] },
    );
    expect(tv.read(note)).toMatch(/First\.\n\nSecond\.\n$/);

    await oneCommit(
      tv,
      session,
      async () => {
        ok(
          await mcp.call('write_note', {
            session,
            path: note,
            mode: 'set_fields',
            fields: { status: 'draft', tags: ['ideas', 'q4'] },
            reason: 'marked as a draft',
          }),
        );
      },
      { op: 'update', files: [note] },
    );
    expect(fieldOf(tv.read(note), 'status')).toBe('draft');
    expect(tv.read(note)).toContain('tags:\n  - ideas\n  - q4\n');

    const hash = sha256(tv.readBytes(note));
    await oneCommit(
      tv,
      session,
      async () => {
        ok(
          await mcp.call('write_note', {
            session,
            path: note,
            mode: 'replace',
            content: '---\nstatus: final\n---\n\n# Ideas\n\nOnly this.\n',
            expected_hash: hash,
            reason: 'kept the best idea',
          }),
        );
      },
      { op: 'update', files: [note] },
    );
    expect(tv.read(note)).toBe('---\nstatus: final\n---\n\n# Ideas\n\nOnly this.\n');
  });

  it("set_fields and append keep a note's byte-order mark and its CRLF line endings", async () => {
    const { tv, mcp } = await setup({ ...MCP_VAULT_FILES, 'notes/win.md': '\uFEFF---\r\nstatus: draft\r\n---\r\n\r\nFirst line.\r\n' });
    const session = await start(mcp);
    ok(await mcp.call('write_note', { session, path: 'notes/win.md', mode: 'set_fields', fields: { status: 'accepted' }, reason: 'accept' }));
    ok(await mcp.call('write_note', { session, path: 'notes/win.md', mode: 'append', content: 'Second line.\n', reason: 'add' }));
    const bytes = fs.readFileSync(path.join(tv.root, 'notes/win.md'), 'utf8');
    expect(bytes.startsWith('\uFEFF---\r\nstatus: accepted\r\n')).toBe(true);
    expect(bytes.endsWith('First line.\r\n\r\nSecond line.\r\n')).toBe(true);
    expect(bytes.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('refuses schema violations with the field and the reason, and changes nothing', async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp);
    const before = snapshot(tv.root);
    const bad = await mcp.call('write_note', {
      session,
      path: 'decisions/atlas-maybe.md',
      mode: 'create',
      content: '---\ntype: decision\ndate: 2026-11-15\nproject: "[[projects/atlas]]"\nstatus: maybe\n---\n\n# Maybe\n',
      reason: 'a decision',
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/status must be one of proposed, accepted, superseded \(found "maybe"\)/);
    const field = await mcp.call('write_note', { session, path: 'projects/atlas.md', mode: 'set_fields', fields: { status: 'someday' }, reason: 'x' });
    expect(field.isError).toBe(true);
    expect(textOf(field)).toMatch(/status must be one of active, paused, done/);
    const missing = await mcp.call('write_note', { session, path: 'projects/atlas.md', mode: 'set_fields', fields: { name: null }, reason: 'x' });
    expect(textOf(missing)).toMatch(/name is required for a project note/);
    const after = snapshot(tv.root);
    expect(after.head).toBe(before.head);
    expect(after.status).toBe('');
    expect(after.files['projects/atlas.md']).toBe(before.files['projects/atlas.md']);
    expect(tv.exists('decisions/atlas-maybe.md')).toBe(false);
  });

  it("refuses a bad input with the contract's sentence (the one the operation and the CLI give), and changes nothing", async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp);
    const before = snapshot(tv.root);
    const cases: [string, Record<string, unknown>, string][] = [
      ['write_note', { session, path: 'notes/a.md', mode: 'rewrite', content: 'x', reason: 'r' }, 'mode must be create, replace, append or set_fields.'],
      [
        'write_note',
        { session, path: 'notes/a.md', mode: 'replace', content: 'x', reason: 'r' },
        'replace needs expected_hash: read_note the note first and pass the hash it returns.',
      ],
      [
        'propose_to_inbox',
        { session, target: 'notes/a.md', action: 'create', content: 'x', reason: 'r', confidence: 1.5 },
        'confidence must be between 0 and 1.',
      ],
      ['propose_to_inbox', { session, target: 'notes/a.md', action: 'create', content: 'x', reason: ' ' }, 'reason is required.'],
      ['propose_to_inbox', { session, target: 'notes/a.md', action: 'create', content: 'x', reason: '' }, 'reason is required.'],
      ['end_session', { session, summary: 'x', outcome: 'finished' }, 'outcome must be done, partial or abandoned.'],
    ];
    for (const [name, args, sentence] of cases) {
      const result = await mcp.call(name, args);
      expect(result.isError, sentence).toBe(true);
      // The SDK checks the input against the contract before Lucid runs, and wraps the contract's sentence
      // (once, with the field it is about) in its own prefix.
      const text = textOf(result);
      expect(text.split(sentence).length - 1, text).toBe(1);
      expect(text, sentence).toMatch(
        new RegExp(`^MCP error -32602: Input validation error: Invalid arguments for tool ${name}: ${escapeRegExp(sentence)} at \\w+$`),
      );
    }
    expect(snapshot(tv.root)).toEqual(before);
  });

  it("refuses paths outside the vault and Lucid's own files, and changes nothing", async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp);
    const before = snapshot(tv.root);
    const parent = path.dirname(tv.root);
    for (const target of [
      '../outside.md',
      '/tmp/outside.md',
      'notes/../../outside.md',
      'notes/%2e%2e/%2e%2e/outside.md',
      '.git/hooks/x.md',
      '.obsidian/x.md',
      '.lucid/x.md',
      'changelog.md',
      'inbox/x.md',
      'sessions/x.md',
      'skills/x.md',
      'notes\\x.md',
      'notes/x.txt',
    ]) {
      const result = await mcp.call('write_note', { session, path: target, mode: 'create', content: 'pwned\n', reason: 'try' });
      expect(result.isError, target).toBe(true);
      expect(textOf(result).length, target).toBeGreaterThan(10);
    }
    const read = await mcp.call('read_note', { path: '../../etc/passwd.md' });
    expect(read.isError).toBe(true);
    expect(snapshot(tv.root)).toMatchObject({ head: before.head, status: '' });
    expect(fs.existsSync(path.join(parent, 'outside.md'))).toBe(false);
    expect(fs.existsSync('/tmp/outside.md')).toBe(false);
  });

  it("a stale expected_hash is a conflict: nothing is overwritten and the agent's version goes to the inbox", async () => {
    const { tv, vault, mcp } = await setup();
    const session = await start(mcp);
    const original = tv.read('notes/handbook.md');
    const read = ok<{ hash: string }>(await mcp.call('read_note', { path: 'notes/handbook.md' }));
    await vault.edit({
      actor: 'human:Test Person',
      op: 'update',
      path: 'notes/handbook.md',
      reason: 'my rules',
      changes: [{ path: 'notes/handbook.md', content: "# Handbook\n\nThe person's version.\n" }],
    });
    const personVersion = tv.read('notes/handbook.md');
    const commits = tv.commitCount();
    const result = await mcp.call('write_note', {
      session,
      path: 'notes/handbook.md',
      mode: 'replace',
      content: "# Handbook\n\nThe agent's version.\n",
      expected_hash: read.hash,
      reason: 'rewrote the handbook',
    });
    expect(result.isError).toBe(true);
    const data = result.structuredContent as { status: string; inbox_path: string; hash: string };
    expect(data.status).toBe('conflict');
    expect(data.inbox_path).toMatch(/^inbox\/\d{4}-\d{2}-\d{2}-\d{6}-handbook-[a-z2-7]{4}\.md$/);
    const message = (result.structuredContent as { message: string }).message;
    expect(message).toContain(data.inbox_path);
    expect(message).toMatch(/changed since/);
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(tv.read('notes/handbook.md')).toBe(personVersion);
    expect(tv.commitCount()).toBe(commits + 1);
    expect(filesOf(tv)).toEqual(['changelog.md', data.inbox_path]);
    const inbox = tv.read(data.inbox_path);
    expect(fieldOf(inbox, 'flag')).toBe('conflict');
    expect(fieldOf(inbox, 'action')).toBe('update');
    expect(fieldOf(inbox, 'target')).toBe('notes/handbook.md');
    expect(fieldOf(inbox, 'base_blob')).toBe(gitBlob(original));
    expect(inbox).toMatch(/````markdown\n# Handbook\n\nThe agent's version\.\n````\n$/);
  });

  it('without expected_hash, append is applied to the note as it is under the lock, never failing on a concurrent change', async () => {
    const { tv, vault, mcp } = await setup();
    const session = await start(mcp);
    const calls = Array.from({ length: 6 }, (_, i) =>
      mcp.call('write_note', { session, path: 'notes/handbook.md', mode: 'append', content: `- item ${i}`, reason: `item ${i}` }),
    );
    const person = vault.edit({
      actor: 'human:Test Person',
      op: 'append',
      path: 'notes/handbook.md',
      reason: 'mine',
      changes: [{ path: 'notes/handbook.md', content: `${tv.read('notes/handbook.md')}- the person's item\n` }],
    });
    const results = await Promise.all(calls);
    await person;
    for (const r of results) expect(ok<{ status: string }>(r).status).toBe('written');
    const text = tv.read('notes/handbook.md');
    for (let i = 0; i < 6; i += 1) expect(text.split('\n').filter((l) => l === `- item ${i}`)).toHaveLength(1);
  });
});

describe('the secrets guard', () => {
  it('never commits a key: the write goes to the inbox, masked, flagged possible-secret, and the reply says why', async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp);
    const commits = tv.commitCount();
    const result = await mcp.call('write_note', {
      session,
      path: 'notes/deploy.md',
      mode: 'create',
      content: `# Deploy\n\nUse ${GITHUB_TOKEN} to push.\n\n${PRIVATE_KEY}\n`,
      reason: 'how to deploy',
    });
    expect(result.isError).toBe(true);
    const data = result.structuredContent as { status: string; inbox_path: string };
    expect(data.status).toBe('possible_secret');
    const message = (result.structuredContent as { message: string }).message;
    expect(message).toMatch(/a GitHub token and a private key/);
    expect(message).toContain(data.inbox_path);
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(tv.exists('notes/deploy.md')).toBe(false);
    expect(tv.commitCount()).toBe(commits + 1);
    expect(filesOf(tv)).toEqual(['changelog.md', data.inbox_path]);
    const inbox = tv.read(data.inbox_path);
    expect(fieldOf(inbox, 'flag')).toBe('possible-secret');
    expect(inbox).toContain('ghp_…[masked]');
    expect(inbox).toContain('-----BEGIN RSA PRIVATE KEY-----…[masked]');

    const fields = await mcp.call('write_note', {
      session,
      path: 'projects/atlas.md',
      mode: 'set_fields',
      fields: { summary: 'api_key = "Zx81kLmQ2vN7pR4tY6uW9aB3cD5eF0gH"' },
      reason: 'the key',
    });
    expect((fields.structuredContent as { status: string }).status).toBe('possible_secret');
    const proposal = ok<{ status: string; flag: string; inbox_path: string }>(
      await mcp.call('propose_to_inbox', { session, target: 'notes/aws.md', action: 'create', content: 'key AKIAIOSFODNN7EXAMPLE here', reason: 'aws notes' }),
    );
    expect(proposal).toMatchObject({ status: 'possible_secret', flag: 'possible-secret' });
    expect(tv.read(proposal.inbox_path)).toContain('AKIA…[masked]');

    const history = tv.git(['log', '-p', '--all', '--format=%B']);
    expect(history).not.toContain(GITHUB_TOKEN.slice(4));
    expect(history).not.toContain('MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun');
    expect(history).not.toContain('Zx81kLmQ2vN7pR4tY6uW9aB3cD5eF0gH');
    expect(history).not.toContain('IOSFODNN7EXAMPLE');
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });
});

describe('propose_to_inbox, record_decision and molt_skill', () => {
  it('propose_to_inbox writes the proposal in the vault format, with base_blob for an update', async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp);
    const proposed = `${tv.read('projects/atlas.md').replace('The billing service.', 'The billing service, with ```code``` inside.')}`;
    let result: { inbox_path: string; status: string; flag: string | null } | undefined;
    await oneCommit(
      tv,
      session,
      async () => {
        result = ok(
          await mcp.call('propose_to_inbox', {
            session,
            target: 'projects/atlas.md',
            action: 'update',
            content: proposed,
            reason: 'clarify the summary',
            confidence: 0.7,
          }),
        );
      },
      { op: 'create', files: [/^inbox\/.*\.md$/] },
    );
    expect(result?.status).toBe('proposed');
    expect(result?.flag).toBeNull();
    const inboxPath = result?.inbox_path ?? '';
    expect(inboxPath).toMatch(/^inbox\/\d{4}-\d{2}-\d{2}-\d{6}-atlas-[a-z2-7]{4}\.md$/);
    const text = tv.read(inboxPath);
    expect(fieldOf(text, 'type')).toBe('inbox');
    expect(fieldOf(text, 'proposed_by')).toBe('agent:claude-code');
    expect(fieldOf(text, 'action')).toBe('update');
    expect(fieldOf(text, 'target')).toBe('projects/atlas.md');
    expect(fieldOf(text, 'reason')).toBe('clarify the summary');
    expect(fieldOf(text, 'confidence')).toBe('0.7');
    expect(fieldOf(text, 'session')).toBe(`[[sessions/${session}]]`);
    expect(fieldOf(text, 'base_blob')).toBe(tv.git(['rev-parse', 'HEAD:projects/atlas.md']).trim());
    expect(fieldOf(text, 'created')).toMatch(/T\d{2}:\d{2}:\d{2}[+-]/);
    expect(text).toContain(`\`\`\`\`markdown\n${proposed}\`\`\`\`\n`);

    const invalid = await mcp.call('propose_to_inbox', {
      session,
      target: 'projects/atlas.md',
      action: 'update',
      content: '---\ntype: project\nstatus: active\n---\n',
      reason: 'x',
    });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/name is required/);
  });

  it('a create proposal names its target, not a link to a note that does not exist yet, so lint finds no broken link', async () => {
    const { tv, vault, mcp } = await setup();
    const session = await start(mcp);
    const result = ok<{ inbox_path: string }>(
      await mcp.call('propose_to_inbox', {
        session,
        target: 'people/grace.md',
        action: 'create',
        content: '---\ntype: person\nname: Grace\n---\nOn call.\n',
        reason: 'new teammate',
      }),
    );
    const text = tv.read(result.inbox_path);
    expect(text).toContain('create `people/grace.md`');
    expect(text).not.toContain('[[people/grace]]');
    ok(await mcp.call('end_session', { session, summary: 'Proposed a person note.' }));
    expect((await vault.lint()).brokenLinks).toEqual([]);
    const next = await start(mcp);
    const update = ok<{ inbox_path: string }>(
      await mcp.call('propose_to_inbox', { session: next, target: 'projects/atlas.md', action: 'append', content: 'More.', reason: 'add a line' }),
    );
    expect(tv.read(update.inbox_path)).toContain('[[projects/atlas]]');
  });

  it('record_decision writes the decision and supersedes the replaced one in the same commit', async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp);
    let result: { path: string; superseded: string } | undefined;
    await oneCommit(
      tv,
      session,
      async () => {
        result = ok(
          await mcp.call('record_decision', {
            session,
            project: 'atlas',
            title: 'Use CockroachDB for the ledger',
            decision: 'Move the ledger to CockroachDB.',
            rationale: 'Multi-region writes.',
            replaces: 'decisions/atlas-use-postgres.md',
          }),
        );
      },
      { op: 'create', files: ['decisions/atlas-use-cockroachdb-for-the-ledger.md', 'decisions/atlas-use-postgres.md'] },
    );
    expect(result).toMatchObject({ path: 'decisions/atlas-use-cockroachdb-for-the-ledger.md', superseded: 'decisions/atlas-use-postgres.md' });
    const decision = tv.read('decisions/atlas-use-cockroachdb-for-the-ledger.md');
    expect(fieldOf(decision, 'type')).toBe('decision');
    expect(fieldOf(decision, 'status')).toBe('accepted');
    expect(fieldOf(decision, 'project')).toBe('[[projects/atlas]]');
    expect(fieldOf(decision, 'replaces')).toBe('[[decisions/atlas-use-postgres]]');
    expect(decision).toContain('## Why\n\nMulti-region writes.');
    const old = tv.read('decisions/atlas-use-postgres.md');
    expect(fieldOf(old, 'status')).toBe('superseded');
    expect(fieldOf(old, 'superseded_by')).toBe('[[decisions/atlas-use-cockroachdb-for-the-ledger]]');
    expect(old).toContain('date: 2026-11-01\nproject: "[[projects/atlas]]"\nstatus: superseded\n');

    const again = await mcp.call('record_decision', {
      session,
      project: 'atlas',
      title: 'x',
      decision: 'y',
      rationale: 'z',
      replaces: 'decisions/atlas-use-postgres.md',
    });
    expect(again.isError).toBe(true);
    expect(textOf(again)).toMatch(/already superseded/);
  });

  it('molt_skill creates version 1, then each molt raises the version by one, committed as a molt with its trailer', async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp);
    const noTrigger = await mcp.call('molt_skill', { session, name: 'deploy-safely', content: '1. Check CI.', reason: 'new' });
    expect(noTrigger.isError).toBe(true);
    expect(textOf(noTrigger)).toMatch(/trigger/);
    await oneCommit(
      tv,
      session,
      async () => {
        const created = ok<{ version: number; previous_version: number }>(
          await mcp.call('molt_skill', {
            session,
            name: 'deploy-safely',
            content: '1. Check CI.\n',
            trigger: 'before a deploy',
            reason: 'wrote down the deploy steps',
          }),
        );
        expect(created).toMatchObject({ version: 1, previous_version: 0 });
      },
      { op: 'molt', files: ['skills/deploy-safely.md'] },
    );
    expect(trailersOf(tv)['Lucid-Molt']).toBe('deploy-safely 0->1');
    const skill = tv.read('skills/deploy-safely.md');
    expect(fieldOf(skill, 'version')).toBe('1');
    expect(fieldOf(skill, 'trigger')).toBe('before a deploy');

    await oneCommit(
      tv,
      session,
      async () => {
        const molted = ok<{ version: number; path: string }>(
          await mcp.call('molt_skill', {
            session,
            name: 'triage-flaky-tests',
            content: '1. Run the test 50 times.\n2. Quarantine it.\n',
            reason: 'more runs catch more flakes',
          }),
        );
        expect(molted).toMatchObject({ version: 3, path: 'skills/triage-flaky-tests.md' });
      },
      { op: 'molt', files: ['skills/triage-flaky-tests.md'] },
    );
    expect(trailersOf(tv)['Lucid-Molt']).toBe('triage-flaky-tests 2->3');
    const molted = tv.read('skills/triage-flaky-tests.md');
    expect(molted).toMatch(
      /^---\ntype: skill\nname: triage-flaky-tests\nversion: 3\ntrigger: a test passes and fails on the same code \(flaky tests\)\nlast_updated: \d{4}-\d{2}-\d{2}\nupdated: \d{4}-\d{2}-\d{2}\n---\n\n1\. Run the test 50 times\.\n2\. Quarantine it\.\n$/,
    );
  });
});

describe('end_session and abandoned sessions', () => {
  it('end_session writes the session note with what the server observed', async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp, { project: 'atlas' });
    ok(await mcp.call('search_notes', { query: 'webhook retries' }));
    ok(await mcp.call('search_notes', { query: 'flaky tests' }));
    ok(await mcp.call('read_note', { path: 'projects/atlas.md' }));
    ok(await mcp.call('read_note', { path: 'skills/triage-flaky-tests.md' }));
    ok(await mcp.call('write_note', { session, path: 'notes/handbook.md', mode: 'append', content: '- Retry webhooks.', reason: 'noted' }));
    const proposal = ok<{ inbox_path: string }>(
      await mcp.call('propose_to_inbox', { session, target: 'projects/atlas.md', action: 'append', content: 'More.', reason: 'maybe' }),
    );
    const path = `sessions/${session}.md`;
    let ended: { path: string; outcome: string; observed: Record<string, unknown> } | undefined;
    await oneCommit(
      tv,
      session,
      async () => {
        ended = ok(await mcp.call('end_session', { session, summary: 'Noted the retry rule.', outcome: 'partial', next_steps: ['Ask Ada about retries'] }));
      },
      { op: 'create', files: [path] },
    );
    expect(ended?.path).toBe(path);
    expect(ended?.observed).toMatchObject({
      searched: ['webhook retries', 'flaky tests'],
      read: ['projects/atlas.md', 'skills/triage-flaky-tests.md'],
      touched: ['notes/handbook.md'],
      inbox: [proposal.inbox_path],
      skills_used: ['skills/triage-flaky-tests.md'],
    });
    const observed = ended?.observed as { first_search: string; first_write: string };
    expect(Date.parse(observed.first_search)).toBeLessThan(Date.parse(observed.first_write));
    const note = tv.read(path);
    expect(fieldOf(note, 'type')).toBe('session');
    expect(fieldOf(note, 'agent')).toBe('claude-code');
    expect(fieldOf(note, 'outcome')).toBe('partial');
    expect(fieldOf(note, 'project')).toBe('[[projects/atlas]]');
    expect(fieldOf(note, 'first_search')).toBe(observed.first_search);
    expect(fieldOf(note, 'first_write')).toBe(observed.first_write);
    expect(note).toContain('searched:\n  - webhook retries\n  - flaky tests\n');
    expect(note).toContain('skills_used:\n  - "[[skills/triage-flaky-tests]]"\n');
    expect(note).toContain('## Next steps\n\n- Ask Ada about retries\n');
    expect(fs.existsSync(`${tv.root}/.lucid/sessions/${session}.jsonl`)).toBe(false);

    const twice = await mcp.call('end_session', { session, summary: 'again' });
    expect(twice.isError).toBe(true);
    expect(textOf(twice)).toMatch(/has ended/);
    const after = await mcp.call('write_note', { session, path: 'notes/handbook.md', mode: 'append', content: 'x', reason: 'x' });
    expect(textOf(after)).toMatch(/has ended.*start_session/);
    const never = await mcp.call('write_note', {
      session: '20261115-100000-claude-code-zzzz',
      path: 'notes/handbook.md',
      mode: 'append',
      content: 'x',
      reason: 'x',
    });
    expect(textOf(never)).toMatch(/No open session.*start_session/);
  });

  it('ends the sessions of a client that goes away without end_session as abandoned, with what was observed', async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp);
    ok(await mcp.call('search_notes', { query: 'handbook' }));
    ok(await mcp.call('write_note', { session, path: 'notes/handbook.md', mode: 'append', content: 'half done', reason: 'started' }));
    const commits = tv.commitCount();
    await mcp.close();
    const notes = await mcp.lucid.abandonOpenSessions();
    expect(notes).toEqual([`sessions/${session}.md`]);
    expect(tv.commitCount()).toBe(commits + 1);
    const note = tv.read(`sessions/${session}.md`);
    expect(fieldOf(note, 'outcome')).toBe('abandoned');
    expect(note).toContain('touched:\n  - notes/handbook.md\n');
    expect(note).toContain('searched:\n  - handbook\n');
    expect(trailersOf(tv)['Lucid-Session']).toBe(session);
  });
});

describe("people's corrections reach the next agent", () => {
  it("a write over a person's uncommitted edit commits it as theirs first and tells the agent to read it", async () => {
    const { tv, mcp } = await setup();
    const session = await start(mcp);
    tv.write('notes/handbook.md', '# Handbook\n\nHow we work. Deploys need a second pair of eyes.\n');
    const result = await mcp.call('write_note', { session, path: 'notes/handbook.md', mode: 'append', content: 'Run the tests first.', reason: 'test rule' });
    const written = ok<{ message: string; commit: string }>(result);
    const saved = tv.git(['rev-parse', `${written.commit}^`]).trim();
    expect(trailersOf(tv, saved)['Lucid-Actor']).toBe('human:Test Person');
    expect(written.message).toContain(
      `notes/handbook.md had changes human:Test Person saved and had not committed: Lucid committed them as theirs first (commit ${saved.slice(0, 7)})`,
    );
    expect(written.message).toContain('read_note notes/handbook.md');
    expect(tv.read('notes/handbook.md')).toContain('Deploys need a second pair of eyes.');
  });

  it('a rejection, an edit and a revert made by a person show in the next start_session', async () => {
    const { tv, vault, mcp } = await setup();
    const first = await start(mcp);
    const proposal = ok<{ inbox_path: string }>(
      await mcp.call('propose_to_inbox', {
        session: first,
        target: 'notes/cards.md',
        action: 'create',
        content: '# Cards\n\nStore card numbers for retries.\n',
        reason: 'retries need the card',
      }),
    );
    const written = ok<{ edit_id: string }>(
      await mcp.call('write_note', { session: first, path: 'notes/handbook.md', mode: 'append', content: 'Deploy on Fridays.', reason: 'deploy rule' }),
    );
    ok(await mcp.call('end_session', { session: first, summary: 'done' }));

    await vault.edit({
      actor: 'human:Test Person',
      op: 'reject',
      path: proposal.inbox_path,
      reason: 'we never store card numbers',
      changes: [{ path: proposal.inbox_path, content: null }],
    });
    const handbook = tv.read('notes/handbook.md');
    await vault.edit({
      actor: 'human:Test Person',
      op: 'revert',
      path: 'notes/handbook.md',
      reason: 'no deploys on Fridays',
      changes: [{ path: 'notes/handbook.md', content: handbook.replace(/\nDeploy on Fridays\.\n$/, '') }],
      trailers: [['Lucid-Reverts', written.edit_id]],
    });
    await vault.edit({
      actor: 'human:Test Person',
      op: 'update',
      path: 'projects/atlas.md',
      reason: 'new owner',
      changes: [{ path: 'projects/atlas.md', content: tv.read('projects/atlas.md').replace('The billing service.', 'The billing service, owned by Ada.') }],
    });

    const next = await mcp.call('start_session', { agent: 'claude-code', task: 'Add card retries' });
    const since = ok<{ since_last_session: SinceLastSession }>(next).since_last_session;
    expect(since.previous_session).toBe(`sessions/${first}.md`);
    // Grouped by note, the note changed most recently first.
    expect(since.corrections.map((c) => c.path)).toEqual(['projects/atlas.md', 'notes/handbook.md', 'notes/cards.md']);
    const [atlas, handbookNote, cards] = since.corrections;
    expect(cards).toMatchObject({ exists: false, yours: true, more_changes: 0 });
    expect(cards.changes).toEqual([
      expect.objectContaining({
        kind: 'rejected',
        by: 'human:Test Person',
        op: 'reject',
        reason: 'we never store card numbers',
        proposal: { inbox_path: proposal.inbox_path, target: 'notes/cards.md', action: 'create', proposed_by: 'agent:claude-code', yours: true },
      }),
    ]);
    expect(handbookNote).toMatchObject({ exists: true, yours: true });
    expect(handbookNote.changes).toEqual([
      expect.objectContaining({
        kind: 'reverted',
        reason: 'no deploys on Fridays',
        undid: expect.objectContaining({
          edit: written.edit_id,
          actor: 'agent:claude-code',
          op: 'append',
          reason: 'deploy rule',
          paths: ['notes/handbook.md'],
        }),
      }),
    ]);
    expect(handbookNote.changes[0].lines).toContain('+ Deploy on Fridays.');
    expect(atlas).toMatchObject({ exists: true, yours: false });
    expect(atlas.changes).toEqual([
      expect.objectContaining({ kind: 'edited', by: 'human:Test Person', op: 'update', reason: 'new owner', status: 'modified' }),
    ]);
    expect(textOf(next)).toContain('we never store card numbers');
    expect(textOf(next)).toContain('no deploys on Fridays');

    const other = ok<{ since_last_session: SinceLastSession }>(await mcp.call('start_session', { agent: 'cursor', task: 'x' }));
    const rejection = other.since_last_session.corrections.find((c) => c.path === 'notes/cards.md');
    expect(rejection).toMatchObject({ yours: false });
    expect(rejection?.changes[0].proposal?.yours).toBe(false);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
