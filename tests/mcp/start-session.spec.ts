import { afterAll, describe, expect, it } from 'vitest';
import type { ReadFirstItem, StartSessionResult } from '../../lib/vault/agents/contract-read';
import { initVault, openVault, renderStart } from '../../lib/vault/index';
import type { Vault } from '../../lib/vault/vault';
import { copyFixture, FIXTURE_VAULTS, haveFixtures, testGitEnv, commitAsOwner } from '../support/fixtures';
import { cleanedAfterEach, openWithMcp, connectInMemory, ok, textOf, type McpPair } from '../support/mcp';
import type { TempVault } from '../support/temp-vault';

/**
 * Issue 12: start_session reads the vault the way a colleague would: the project the task names,
 * its current decisions, the notes search ranks best, earlier sessions only when they are about the
 * same thing, and the last one's summary and next steps inline.
 */

interface Started {
  session: string;
  project: string | null;
  read_first: ReadFirstItem[];
  notes: string[];
}

const project = (name: string) => `---\ntype: project\nname: ${name}\nstatus: active\n---\n\n# ${name}\n`;
const decision = (projectLink: string, status: string, title: string, date = '2026-11-01') =>
  `---\ntype: decision\ndate: ${date}\nproject: "[[${projectLink}]]"\nstatus: ${status}\n---\n\n# ${title}\n`;
const session = (task: string, ended: string, body = '') =>
  `---\ntype: session\nagent: cursor\ntask: ${task}\nstarted: ${ended}\nended: ${ended}\noutcome: done\n---\n\n# ${task}\n\n${body}`;

const VAULT: Record<string, string> = {
  'projects/heron.md': project('Heron'),
  'projects/go.md': project('Go'),
  'decisions/heron-use-sqlite.md': decision('projects/heron', 'accepted', 'Keep the queue in SQLite'),
  'decisions/heron-use-json-files.md': decision('projects/heron', 'superseded', 'Keep the queue in JSON files', '2026-10-01'),
  'sessions/20261101-090000-cursor-aaaa.md': session('log plant growth weight', '2026-11-01T09:30:00+00:00', 'Weighed the tomatoes.\n'),
  'sessions/20261102-090000-cursor-bbbb.md': session(
    'record the squats workout weights',
    '2026-11-02T09:30:00+00:00',
    'Logged three sets.\n\n## Next steps\n\n- Add the deadlift numbers\n',
  ),
  'notes/squats.md': '# Squats\n\nWorkout log: squats at 80 kg, the weight goes up 2.5 kg a week.\n',
  'notes/plants.md': '# Plants\n\nThe tomato plant gained weight.\n',
  'notes/handbook.md': '# Handbook\n\nHow we work.\n',
};

const lists = cleanedAfterEach();
const { opened, pairs } = lists;

async function setup(files: Record<string, string> = VAULT): Promise<{ tv: TempVault; vault: Vault; mcp: McpPair }> {
  const { tv, vault, mcp } = await openWithMcp(lists, files);
  return { tv, vault, mcp };
}

async function start(mcp: McpPair, args: Record<string, unknown>): Promise<Started> {
  return ok<Started>(await mcp.call('start_session', { agent: 'claude-code', ...args }));
}

const pathsOf = (started: Started) => started.read_first.map((r) => r.path);

/** A read_first list small enough to read: at most 12 items, each why one short sentence. */
function expectCompact(started: Started): void {
  expect(started.read_first.length).toBeLessThanOrEqual(12);
  for (const item of started.read_first) {
    expect(item.why.length).toBeGreaterThan(10);
    expect(item.why.length).toBeLessThanOrEqual(160);
    expect(item.why).not.toMatch(/\.\s/);
  }
}

describe('start_session finds the project', () => {
  it('from a name in the task, and lists its current decision (not the superseded one)', async () => {
    const { mcp } = await setup();
    const started = await start(mcp, { task: 'Add retries to the Heron importer' });
    expect(started.project).toBe('projects/heron.md');
    expect(started.read_first[0]).toMatchObject({
      path: 'projects/heron.md',
      title: 'Heron',
      type: 'project',
      why: expect.stringMatching(/task names.*Heron/),
    });
    expect(started.read_first[1]).toMatchObject({ path: 'decisions/heron-use-sqlite.md', why: expect.stringMatching(/current decision of Heron/) });
    expect(pathsOf(started)).not.toContain('decisions/heron-use-json-files.md');
    expect(started.notes).toEqual([]);
    expectCompact(started);
  });

  it('from the project argument, on a note without Lucid type in a nested folder', async () => {
    const nested = '_PARA/Projects/Test Project 2/Test Project 2.md';
    const { mcp } = await setup({
      [nested]: '# Test Project 2\n\nA project kept in PARA folders.\n',
      '_PARA/Projects/Test Project 2/Kickoff.md': '# Kickoff\n',
      '_PARA/Projects/Test Project 1.md': '# Test Project 1\n',
      'decisions/tp2-ship-weekly.md': decision('Test Project 2', 'accepted', 'Ship weekly'),
    });
    for (const given of ['Test Project 2', 'test project 2', '_PARA/Projects/Test Project 2', `${nested.slice(0, -3)}`]) {
      const started = await start(mcp, { task: 'Plan the next release', project: given });
      expect(started.project).toBe(nested);
      expect(started.notes.join(' ')).not.toMatch(/No project note matches/);
      expect(started.read_first[0]).toMatchObject({ path: nested, title: 'Test Project 2', why: expect.stringMatching(/without type: project/) });
      expect(pathsOf(started)).toContain('decisions/tp2-ship-weekly.md');
    }
  });

  it('not from "go ahead" when a project is named Go; from "the Go build" it does', async () => {
    const { mcp } = await setup();
    for (const task of ['go ahead and fix the build', 'Go ahead and fix the build']) {
      const started = await start(mcp, { task });
      expect(started.project).toBeNull();
      expect(pathsOf(started)).not.toContain('projects/go.md');
    }
    expect((await start(mcp, { task: 'Fix the Go build' })).project).toBe('projects/go.md');
  });
});

describe('start_session lists what is related, and only that', () => {
  it('does not list an earlier session that shares one common word with the task; lists the one on the same thing', async () => {
    const { mcp } = await setup();
    const started = await start(mcp, { task: 'look up squats workout weight' });
    const paths = pathsOf(started);
    expect(paths).not.toContain('sessions/20261101-090000-cursor-aaaa.md');
    expect(paths).not.toContain('notes/plants.md');
    const related = started.read_first.find((r) => r.path === 'sessions/20261102-090000-cursor-bbbb.md');
    expect(related?.why).toMatch(/similar task, sharing squats, workout, weight/);
    expectCompact(started);
  });

  it('lists the ordinary note that search ranks first for the task, with its rank and terms', async () => {
    const { vault, mcp } = await setup();
    const task = 'look up squats workout weight';
    const [top] = await vault.search(task);
    expect(top.path).toBe('notes/squats.md');
    const started = await start(mcp, { task });
    expect(started.read_first.find((r) => r.path === top.path)).toMatchObject({
      title: 'Squats',
      type: null,
      why: 'search ranks it 1 for the task; it has squats, workout, weight',
    });
  });

  it("inlines the last related session's summary and next steps, as end_session wrote them", async () => {
    const { mcp } = await setup();
    const first = await start(mcp, { task: 'Add retries to the Heron importer' });
    const ended = ok<{ path: string }>(
      await mcp.call('end_session', {
        session: first.session,
        outcome: 'partial',
        summary: 'Retries work for timeouts.\n\nThe 429 case is still open.',
        next_steps: ['Handle 429 with Retry-After', 'Add a test for the backoff'],
      }),
    );
    const result = await mcp.call('start_session', { agent: 'cursor', task: 'Finish the Heron importer retries' });
    const next = ok<Started>(result);
    const last = next.read_first.find((r) => r.path === ended.path);
    expect(last).toMatchObject({
      why: expect.stringMatching(/last work on Heron \(claude-code, ended \d{4}-\d{2}-\d{2}, partial\)/),
      summary: 'Retries work for timeouts. The 429 case is still open.',
      next_steps: ['Handle 429 with Retry-After', 'Add a test for the backoff'],
    });
    // The model reads it in the JSON text; a person reads it in words (`lucid session start`).
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    expect(renderStart(result.structuredContent as StartSessionResult)).toContain('   Summary: Retries work for timeouts. The 429 case is still open.');
    expect(renderStart(result.structuredContent as StartSessionResult)).toContain(
      '   Next steps:\n   - Handle 429 with Retry-After\n   - Add a test for the backoff',
    );
    // Only the newest related session carries them.
    expect(next.read_first.filter((r) => r.next_steps || r.summary)).toHaveLength(1);
  });

  it('stays within 12 items on a busy project and says where the other decisions are', async () => {
    const files: Record<string, string> = { ...VAULT };
    for (let i = 10; i < 30; i += 1) {
      files[`decisions/heron-${i}.md`] = decision('projects/heron', 'accepted', `Heron importer rule ${i}`, `2026-10-${i}`);
      files[`sessions/202610${i}-090000-cursor-cc${String.fromCharCode(97 + i - 10)}${String.fromCharCode(97 + i - 10)}.md`] = session(
        `tune the Heron importer, part ${i}`,
        `2026-10-${i}T09:30:00+00:00`,
      ).replace('outcome: done', 'outcome: done\nproject: "[[projects/heron]]"');
      files[`notes/importer-${i}.md`] = `# Importer ${i}\n\nThe Heron importer retries.\n`;
    }
    const { mcp } = await setup(files);
    const started = await start(mcp, { task: 'Add retries to the Heron importer' });
    expectCompact(started);
    const ofType = (type: string | null) => started.read_first.filter((r) => r.type === type).map((r) => r.path);
    expect(started.read_first[0].path).toBe('projects/heron.md');
    expect(ofType('decision')).toEqual(['decisions/heron-use-sqlite.md', 'decisions/heron-29.md', 'decisions/heron-28.md']);
    expect(ofType('session')).toHaveLength(3);
    expect(ofType(null)).toHaveLength(4);
    expect(started.read_first).toHaveLength(11);
    expect(started.notes.join(' ')).toMatch(/Heron has 18 more current decisions than listed: search_notes with type "decision" and project "Heron"/);
  });
});

describe.skipIf(!haveFixtures)('start_session on real vaults, committed by their owner and init-ed', () => {
  const env = testGitEnv();
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });
  const TASKS: Record<(typeof FIXTURE_VAULTS)[number], string> = {
    'obsidian-tasks-docs': 'explain how recurring tasks work',
    'obsidian-tasks-demo': 'find tasks in notes with a particular tag',
    'kepano-obsidian': 'bake the brown butter nectarine tart',
    'agent-memory-template': 'review the universal patterns',
  };

  async function openFixture(name: string): Promise<{ vault: Vault; mcp: McpPair }> {
    const { root, cleanup } = copyFixture(name);
    cleanups.push(cleanup);
    commitAsOwner(root, env);
    await initVault({ dir: root, env });
    const vault = await openVault({ root, env });
    opened.push(vault);
    const mcp = await connectInMemory(vault);
    pairs.push(mcp);
    return { vault, mcp };
  }

  for (const name of FIXTURE_VAULTS) {
    it(`${name}: lists the note search ranks first for the task, within 12 short items`, async () => {
      const { vault, mcp } = await openFixture(name);
      const task = TASKS[name];
      const top = (await vault.search(task)).find((hit) => hit.path !== vault.layout.agents);
      expect(top).toBeDefined();
      const started = await start(mcp, { task });
      expect(pathsOf(started)).toContain(top?.path);
      expect(started.read_first.find((r) => r.path === top?.path)?.why).toMatch(/^search ranks it \d+ for the task; it has /);
      expectCompact(started);
    });
  }

  it('kepano-obsidian: a task naming a project kept with categories: [[Projects]] finds it', async () => {
    const { mcp } = await openFixture('kepano-obsidian');
    const started = await start(mcp, { task: 'add an e-ink mode to the Minimal Theme' });
    expect(started.project).toBe('Notes/Minimal Theme.md');
    expect(started.read_first[0].why).toMatch(/task names this project \("Minimal Theme"\)/);
  });
});
