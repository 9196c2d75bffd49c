import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptInboxItem,
  endSession,
  initVault,
  isoWeekRange,
  moltSkill,
  proposeToInbox,
  rejectInboxItem,
  revertEdit,
  searchNotes,
  showInboxItem,
  startSession,
  summarizeActivity,
  summarizeVault,
  type Vault,
  writeNote,
} from '../../lib/vault/index';
import { makeTempVault, steppingClock, type SteppingClock, type TempVault } from '../support/temp-vault';

/** summarizeActivity on a vault the test builds through the real write path, checked against raw git. */

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

async function installed(clock: SteppingClock): Promise<{ tv: TempVault; vault: Vault }> {
  const tv = makeTempVault({ 'notes/a.md': '# A\n\nfirst\n' });
  vaults.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  const vault = await tv.open({ clock });
  opened.push(vault);
  return { tv, vault };
}

const inboxId = (path: string) => path.slice(path.lastIndexOf('/') + 1, -3);

/** Commits with a Lucid-Edit trailer whose author time is in [since, until), read with raw git. */
function rawEdits(tv: TempVault, since: number, until: number): { time: number; actor: string; op: string }[] {
  const out = tv.git([
    'log',
    '--format=%at%x1f%(trailers:key=Lucid-Edit,valueonly,separator=)%x1f%(trailers:key=Lucid-Actor,valueonly,separator=)%x1f%(trailers:key=Lucid-Op,valueonly,separator=)%x1e',
  ]);
  return out
    .split('\x1e')
    .map((r) => r.trim().split('\x1f'))
    .filter((f) => f.length === 4 && f[1].trim() !== '')
    .map(([t, , actor, op]) => ({ time: Number(t) * 1000, actor: actor.trim(), op: op.trim() }))
    .filter((c) => c.time >= since && c.time < until);
}

describe('summarizeActivity', () => {
  it('counts a week of sessions, edits, inbox decisions, reverts and molts, and nothing outside the week', async () => {
    // Local times: the vault writes and reads times in its own zone, so the test holds in any TZ.
    const clock = steppingClock(new Date(2026, 10, 20, 10, 0, 0));
    const { tv, vault } = await installed(clock);
    const week = isoWeekRange('2026-W48');

    // The week before: one agent edit, left out.
    const before = await startSession(vault, { agent: 'alpha', task: 'warm up' });
    await writeNote(vault, { session: before.session, path: 'notes/old.md', mode: 'create', content: '# Old\n', reason: 'last week' });
    await endSession(vault, { session: before.session, summary: 'ok', outcome: 'done' });

    // Monday of W48: a session that searches, writes, proposes and molts.
    clock.set(new Date(2026, 10, 23, 9, 0, 0));
    const s1 = await startSession(vault, { agent: 'alpha', task: 'write the cards note' });
    await searchNotes(vault, { query: 'cards' }, [s1.session]);
    await writeNote(vault, { session: s1.session, path: 'notes/cards.md', mode: 'create', content: '# Cards\n', reason: 'new note' });
    await writeNote(vault, { session: s1.session, path: 'notes/cards.md', mode: 'append', content: 'more\n', reason: 'more' });
    const appended = await writeNote(vault, { session: s1.session, path: 'notes/cards.md', mode: 'append', content: 'again\n', reason: 'again' });
    const proposals: string[] = [];
    for (const target of ['notes/p1.md', 'notes/p2.md', 'notes/p3.md', 'notes/p4.md']) {
      proposals.push((await proposeToInbox(vault, { session: s1.session, target, action: 'create', content: `# ${target}\n`, reason: 'maybe' })).inbox_path);
    }
    await moltSkill(vault, { session: s1.session, name: 'file-cards', content: 'Do it.\n', trigger: 'when filing cards', reason: 'learned' });
    await moltSkill(vault, { session: s1.session, name: 'file-cards', content: 'Do it better.\n', reason: 'learned more' });
    await endSession(vault, { session: s1.session, summary: 'wrote cards', outcome: 'partial' });

    // Wednesday: the person decides and corrects.
    clock.set(new Date(2026, 10, 25, 14, 0, 0));
    await acceptInboxItem(vault, { id: inboxId(proposals[0]) });
    const second = await showInboxItem(vault, inboxId(proposals[1]));
    await acceptInboxItem(vault, { id: inboxId(proposals[1]), text: '# p2, mine\n', expectedTargetHash: second.currentHash ?? null });
    await rejectInboxItem(vault, { id: inboxId(proposals[2]), reason: 'we never store cards' });
    await revertEdit(vault, { ref: appended.edit_id as string, reason: 'not true' });

    // Thursday: a session that writes before it searches or reads anything.
    clock.set(new Date(2026, 10, 26, 11, 0, 0));
    const hasty = await startSession(vault, { agent: 'gamma', task: 'quick fix' });
    await writeNote(vault, { session: hasty.session, path: 'notes/quick.md', mode: 'create', content: '# Quick\n', reason: 'no look' });
    await endSession(vault, { session: hasty.session, summary: 'fixed', outcome: 'done' });

    // Sunday late: a session still open at the end of the week.
    clock.set(new Date(2026, 10, 29, 23, 0, 0));
    const open = await startSession(vault, { agent: 'beta', task: 'still going' });
    await writeNote(vault, { session: open.session, path: 'notes/beta.md', mode: 'create', content: '# Beta\n', reason: 'late' });

    // The next Monday: left out.
    clock.set(new Date(2026, 10, 30, 0, 0, 30));
    await writeNote(vault, { session: open.session, path: 'notes/next.md', mode: 'create', content: '# Next\n', reason: 'next week' });

    const summary = await summarizeActivity(vault, week);
    const raw = rawEdits(tv, week.since, week.until);
    expect(summary.edits).toBe(raw.length);
    // 3 writes + 4 proposals + 2 molts + the session note; 2 accepts + 1 reject + 1 revert; gamma's write and note; 1 write by beta.
    expect(summary.edits).toBe(17);
    expect(summary.byDay.map((d) => d.day)).toEqual(['2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29']);
    const total = (pick: (d: (typeof summary.byDay)[number]) => Record<string, number>) =>
      summary.byDay.reduce((n, d) => n + Object.values(pick(d)).reduce((a, b) => a + b, 0), 0);
    expect(total((d) => d.byActor)).toBe(summary.edits);
    expect(total((d) => d.byType)).toBe(summary.edits);
    const byActor = Object.fromEntries(summary.byActor.map((a) => [a.actor, a.edits]));
    for (const actor of new Set(raw.map((r) => r.actor))) expect(byActor[actor]).toBe(raw.filter((r) => r.actor === actor).length);
    expect(summary.actors).toEqual(['agent:alpha', 'agent:beta', 'agent:gamma', vault.person]);
    expect(summary.byDay[0].byActor['agent:alpha']).toBe(10);
    expect(summary.byDay[2].byActor[vault.person]).toBe(4);
    expect(summary.byDay[6].byActor['agent:beta']).toBe(1);
    expect(summary.byDay[0].byType).toEqual({ other: 3, inbox: 4, skill: 2, session: 1 });

    expect(summary.sessions.total).toBe(3);
    expect(summary.sessions.byOutcome).toEqual({ done: 1, partial: 1, abandoned: 0, open: 1 });
    expect(summary.sessions.list.map((s) => [s.id, s.outcome, s.edits])).toEqual([
      [open.session, 'open', 2], // a session's edits are all of its edits, the one after the week too
      [hasty.session, 'done', 1],
      [s1.session, 'partial', 9],
    ]);
    expect(summary.protocolFailed).toEqual({
      total: 1,
      sessions: [{ id: hasty.session, path: `sessions/${hasty.session}.md`, failed: ['read-before-write'] }],
    });

    expect(summary.inbox).toMatchObject({ accepted: 1, edited: 1, rejected: 1, pending: 1 });
    expect(summary.inbox.rejections).toEqual([{ path: proposals[2], reason: expect.stringContaining('we never store cards'), actor: vault.person }]);
    expect(summary.reverts.total).toBe(1);
    expect(summary.reverts.list[0]).toMatchObject({ actor: vault.person, path: 'notes/cards.md', reverted: appended.edit_id });
    expect(summary.molts.list.map((m) => [m.skill, m.from, m.to, m.session])).toEqual([
      ['file-cards', 1, 2, s1.session],
      ['file-cards', 0, 1, s1.session],
    ]);
    expect(summary.topNotes[0]).toEqual({ path: 'notes/cards.md', edits: 4 });
    expect(summary.topNotes.some((n) => /^(inbox|sessions)\//.test(n.path) || n.path === 'changelog.md')).toBe(false);
    expect(summary.topNotes.map((n) => n.path)).not.toContain('notes/old.md');
    expect(summary.topNotes.map((n) => n.path)).not.toContain('notes/next.md');
  });

  it('an empty range counts nothing and still lists its days', async () => {
    const clock = steppingClock(new Date(2026, 10, 20, 10, 0, 0));
    const { vault } = await installed(clock);
    const summary = await summarizeActivity(vault, isoWeekRange('2027-W01'));
    expect(summary.edits).toBe(0);
    expect(summary.byDay.map((d) => d.day)).toEqual(['2027-01-04', '2027-01-05', '2027-01-06', '2027-01-07', '2027-01-08', '2027-01-09', '2027-01-10']);
    expect(summary.sessions.total).toBe(0);
    expect(summary.topNotes).toEqual([]);
    expect(summary.actors).toEqual([]);
  });

  it('tells a vault no agent has written to from one an agent has used', async () => {
    const clock = steppingClock(new Date(2026, 10, 20, 10, 0, 0));
    const { vault } = await installed(clock);
    await vault.edit({ actor: vault.person, op: 'update', path: 'notes/a.md', reason: 'mine', changes: [{ path: 'notes/a.md', content: '# A\n\nmine\n' }] });
    expect((await summarizeVault(vault)).agentActivity).toBe(false);
    const s = await startSession(vault, { agent: 'alpha', task: 'first' });
    await writeNote(vault, { session: s.session, path: 'notes/b.md', mode: 'create', content: '# B\n', reason: 'first' });
    expect(await summarizeVault(vault)).toMatchObject({ agentActivity: true, notes: expect.any(Number), pendingInbox: 0 });
  });
});
