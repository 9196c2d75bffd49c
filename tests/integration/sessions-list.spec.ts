import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  abandonSessions,
  acceptInboxItem,
  endSession,
  initVault,
  listSessions,
  moltSkill,
  proposeToInbox,
  readNoteForAgent,
  rejectInboxItem,
  searchNotes,
  sessionDetail,
  startSession,
  writeNote,
  type Vault,
} from '../../lib/vault/index';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/** The sessions list (order, filters, paging that reads only its page) and one session's page, on temp vaults. */

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

const idOf = (inboxPath: string) => inboxPath.slice(inboxPath.lastIndexOf('/') + 1, -3);
const project = (name: string) => `---\ntype: project\nname: ${name}\nstatus: active\n---\n# ${name}\n`;

async function installed(): Promise<{ tv: TempVault; vault: Vault }> {
  const tv = makeTempVault({ 'projects/atlas.md': project('Atlas'), 'projects/comet.md': project('Comet'), 'notes/retries.md': '# Retries\n' });
  vaults.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  const vault = await tv.open();
  opened.push(vault);
  return { tv, vault };
}

/** Six sessions: two agents, two projects, every outcome; returns their ids oldest first. */
async function sixSessions(vault: Vault): Promise<string[]> {
  const plan: [string, string, 'done' | 'partial' | 'abandoned' | 'open'][] = [
    ['alpha', 'atlas', 'done'],
    ['beta', 'comet', 'partial'],
    ['alpha', 'comet', 'abandoned'],
    ['beta', 'atlas', 'done'],
    ['alpha', 'atlas', 'done'],
    ['beta', 'atlas', 'open'],
  ];
  const ids: string[] = [];
  for (const [i, [agent, proj, outcome]] of plan.entries()) {
    const { session } = await startSession(vault, { agent, task: `task ${i}`, project: proj });
    ids.push(session);
    await searchNotes(vault, { query: 'retries' }, [session]);
    await writeNote(vault, { session, path: `notes/n${i}.md`, mode: 'create', content: `# N${i}\n`, reason: `note ${i}` });
    if (outcome === 'abandoned') await abandonSessions(vault, [session]);
    else if (outcome !== 'open') await endSession(vault, { session, summary: `did ${i}`, outcome });
  }
  return ids;
}

describe('listSessions', () => {
  it('lists every session newest first, the open one live, with edits from the commit index', async () => {
    const { vault } = await installed();
    const ids = await sixSessions(vault);
    const page = await listSessions(vault, {});
    expect(page.rows.map((r) => r.id)).toEqual([...ids].reverse());
    expect(page.nextCursor).toBeNull();
    expect(page.agents).toEqual(['alpha', 'beta']);
    expect(page.projects).toEqual(['projects/atlas.md', 'projects/comet.md']);
    const [open, ...ended] = page.rows;
    expect(open).toMatchObject({ outcome: 'open', path: null, ended: null, durationMs: null, protocolOk: null, edits: 1 });
    expect(ended.map((r) => r.outcome)).toEqual(['done', 'done', 'abandoned', 'partial', 'done']);
    for (const row of ended) {
      expect(row.edits).toBe(1);
      expect(row.durationMs).toBeGreaterThan(0);
      expect(row.protocolOk).toBe(row.outcome !== 'abandoned');
    }
  });

  it('pages by cursor, reading only the notes of the page', async () => {
    const { vault } = await installed();
    const ids = await sixSessions(vault);
    const read = vi.spyOn(vault, 'readNote');
    const first = await listSessions(vault, { limit: 2 });
    expect(first.rows.map((r) => r.id)).toEqual([ids[5], ids[4]]);
    // The open session comes from its state: the page's other note and the next one (is there an older page?) were read.
    expect(read.mock.calls.filter(([p]) => String(p).startsWith('sessions/')).map(([p]) => p)).toEqual([`sessions/${ids[4]}.md`, `sessions/${ids[3]}.md`]);
    const seen = [...first.rows.map((r) => r.id)];
    let cursor = first.nextCursor;
    while (cursor) {
      const page = await listSessions(vault, { limit: 2, cursor });
      seen.push(...page.rows.map((r) => r.id));
      cursor = page.nextCursor;
    }
    expect(seen).toEqual([...ids].reverse());
    expect(first.newer).toBeNull();
    // A last page that is exactly full offers no Older.
    const second = await listSessions(vault, { limit: 3, cursor: (await listSessions(vault, { limit: 3 })).nextCursor });
    expect(second.rows.map((r) => r.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(second.nextCursor).toBeNull();
  });

  it('pages back to newer pages from any cursor, filtered or not, to the first page', async () => {
    const { vault } = await installed();
    const ids = await sixSessions(vault);
    for (const [query, expected] of [
      [{}, [...ids].reverse()],
      [{ agent: 'alpha' }, [ids[4], ids[2], ids[0]]],
      [{ project: 'projects/atlas.md' }, [ids[5], ids[4], ids[3], ids[0]]],
    ] as const) {
      // Older to the last page, remembering each page's rows and cursor.
      const pages: { cursor: string | null; rows: string[] }[] = [];
      let cursor: string | null = null;
      do {
        const page = await listSessions(vault, { ...query, limit: 2, cursor });
        pages.push({ cursor, rows: page.rows.map((r) => r.id) });
        cursor = page.nextCursor;
      } while (cursor);
      expect(
        pages.flatMap((p) => p.rows),
        JSON.stringify(query),
      ).toEqual(expected);
      // Newer from the last page: each step lands on the page before it, the last on the first page.
      for (let at = pages.length - 1; at > 0; at -= 1) {
        const { newer } = await listSessions(vault, { ...query, limit: 2, cursor: pages[at].cursor });
        expect(newer, `${JSON.stringify(query)} page ${at}`).toEqual({ cursor: pages[at - 1].cursor });
        const back = await listSessions(vault, { ...query, limit: 2, cursor: newer?.cursor });
        expect(back.rows.map((r) => r.id)).toEqual(pages[at - 1].rows);
      }
    }
  });

  it('filters by agent, project, outcome and date', async () => {
    const { vault } = await installed();
    const ids = await sixSessions(vault);
    const of = async (query: Parameters<typeof listSessions>[1]) => (await listSessions(vault, query)).rows.map((r) => r.id);
    expect(await of({ agent: 'alpha' })).toEqual([ids[4], ids[2], ids[0]]);
    expect(await of({ agent: 'agent:beta', project: 'projects/atlas.md' })).toEqual([ids[5], ids[3]]);
    expect(await of({ outcome: 'abandoned' })).toEqual([ids[2]]);
    expect(await of({ outcome: 'open' })).toEqual([ids[5]]);
    const all = (await listSessions(vault, {})).rows;
    const startOf = (id: string) => Date.parse(all.find((r) => r.id === id)?.started ?? '');
    expect(await of({ since: startOf(ids[2]), until: startOf(ids[4]) })).toEqual([ids[3], ids[2]]);
    expect(await of({ agent: 'nobody' })).toEqual([]);
  });

  it('says nothing when the vault has no sessions', async () => {
    const { vault } = await installed();
    expect(await listSessions(vault, {})).toEqual({
      rows: [],
      nextCursor: null,
      newer: null,
      agents: [],
      projects: ['projects/atlas.md', 'projects/comet.md'],
      // The install's commits name where they were made and by whom.
      machines: [vault.machine],
      persons: [vault.person.replace(/^human:/, '')],
    });
  });
});

describe('sessionDetail', () => {
  it('ties the session to its commits, reads, inbox items and their fate, and skills', async () => {
    const { tv, vault } = await installed();
    const { session } = await startSession(vault, { agent: 'alpha', task: 'tidy the retries', project: 'atlas' });
    await searchNotes(vault, { query: 'retries' }, [session]);
    await readNoteForAgent(vault, { path: 'notes/retries.md' }, [session]);
    await writeNote(vault, { session, path: 'notes/backoff.md', mode: 'create', content: '# Backoff\n', reason: 'backoff' });
    await moltSkill(vault, { session, name: 'tidy', trigger: 'when tidying', content: '# Tidy\n\nSteps.\n', reason: 'first version' });
    const proposals = [];
    for (const name of ['keep', 'drop', 'wait']) {
      proposals.push(await proposeToInbox(vault, { session, target: `notes/${name}.md`, action: 'create', content: `# ${name}\n`, reason: `propose ${name}` }));
    }
    await endSession(vault, { session, summary: 'Tidied the retries.', outcome: 'done', next_steps: ['check the backoff'] });
    await acceptInboxItem(vault, { id: idOf(proposals[0].inbox_path) });
    await rejectInboxItem(vault, { id: idOf(proposals[1].inbox_path), reason: 'not needed' });

    const detail = await sessionDetail(vault, session);
    if (!detail) throw new Error('no detail');
    const trailered = tv
      .git(['log', '--format=%H', `--grep=^Lucid-Session: ${session}$`])
      .trim()
      .split('\n');
    expect(detail.commits.map((c) => c.sha).sort()).toEqual([...trailered].sort());
    expect(detail.summary).toBe('Tidied the retries.');
    expect(detail.nextSteps).toEqual(['check the backoff']);
    expect(detail.searched).toEqual(['retries']);
    expect(detail.read).toEqual([{ path: 'notes/retries.md', exists: true }]);
    expect(detail.inbox.map((i) => [i.target, i.state, i.reason])).toEqual([
      ['notes/keep.md', 'accepted', null],
      ['notes/drop.md', 'rejected', 'not needed'],
      ['notes/wait.md', 'pending', null],
    ]);
    expect(detail.skills).toEqual([{ path: 'skills/tidy.md', read: false, molts: [expect.objectContaining({ to: 1 })] }]);
    expect(detail.protocol.ok).toBe(true);
    expect(detail.row.inboxRaised).toBe(3);
    expect(await sessionDetail(vault, '20261115-100000-nobody-aaaa')).toBeNull();
    expect(await sessionDetail(vault, '../etc/passwd')).toBeNull();
  });
});
