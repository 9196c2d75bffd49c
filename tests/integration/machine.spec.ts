import { execFileSync } from 'node:child_process';
import { hostname } from 'node:os';
import nodePath from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import {
  abandonSessions,
  acceptInboxItem,
  applyDreamRun,
  endSession,
  findDreamCandidates,
  initVault,
  listOpenSessions,
  listSessions,
  moltSkill,
  openVault,
  orphanedSessions,
  proposeToInbox,
  revertEdit,
  seededIds,
  startSession,
  summarizeActivity,
  writeNote,
  type Vault,
} from '../../lib/vault/index';
import { SKILL_FLAKY, SKILL_RETRY } from '../support/dream-vault';
import { DEFAULT_START, makeTempVault, steppingClock, TEST_PERSON, type TempVault } from '../support/temp-vault';

/** Lucid-Machine: where the vault is open, the trailer of every commit Lucid makes, and the commit index's machine and person. */

const temps: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of temps.splice(0)) tv.cleanup();
});

let seed = 500;
async function openAt(tv: TempVault, machine?: string, root = tv.root): Promise<Vault> {
  const vault = await openVault({
    root,
    env: tv.env,
    clock: steppingClock(DEFAULT_START),
    ids: seededIds(seed++),
    ...(machine === undefined ? {} : { machine }),
  });
  opened.push(vault);
  return vault;
}

async function installed(files: Record<string, string> = {}, machine = 'desk-a'): Promise<{ tv: TempVault; vault: Vault }> {
  const tv = makeTempVault(files);
  temps.push(tv);
  await initVault({ dir: tv.root, env: tv.env, machine });
  return { tv, vault: await openAt(tv, machine) };
}

function trailersAt(tv: TempVault, rev: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of tv.git(['log', '-1', '--format=%(trailers:only,unfold)', rev]).split('\n')) {
    const at = line.indexOf(': ');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 2);
  }
  return out;
}

/** A second clone of the vault, its own person and machine, that the first brings in with a plain fast-forward (as a sync would). */
function secondClone(tv: TempVault, person: string): { dir: string; git: (args: string[]) => string } {
  const dir = tv.tempDir('clone');
  const git = (args: string[]) =>
    execFileSync('git', args, { cwd: dir, env: tv.env as NodeJS.ProcessEnv, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  execFileSync('git', ['clone', '-q', tv.root, dir], { env: tv.env as NodeJS.ProcessEnv, stdio: 'ignore' });
  git(['config', 'user.name', person]);
  git(['config', 'user.email', 'second@example.invalid']);
  return { dir, git };
}

describe('vault.machine', () => {
  it('is the option when given, else git config lucid.machine, else the host name; always one short line', async () => {
    const tv = makeTempVault();
    temps.push(tv);
    expect((await openAt(tv)).machine).toBe(hostname().slice(0, 64).trim() || 'unknown');
    tv.git(['config', 'lucid.machine', 'studio-mac']);
    expect((await openAt(tv)).machine).toBe('studio-mac');
    expect((await openAt(tv, 'from-env')).machine).toBe('from-env');
    // A name with a line break and a control character cannot add a trailer of its own.
    expect((await openAt(tv, 'evil\nLucid-Actor: human:Mallory\u0007')).machine).toBe('evil Lucid-Actor: human:Mallory');
    expect((await openAt(tv, 'x'.repeat(100))).machine).toBe('x'.repeat(64));
    // Nothing left after cleaning: the next source answers.
    expect((await openAt(tv, '\n\t')).machine).toBe('studio-mac');
  });
});

describe('the Lucid-Machine trailer', () => {
  it('is on init, a write, an accept, a revert, a molt and a session note, last after the standard trailers', async () => {
    const { tv, vault } = await installed({ 'notes/a.md': '# A\n' });
    expect(trailersAt(tv, 'HEAD')).toMatchObject({ 'Lucid-Op': 'init', 'Lucid-Machine': 'desk-a' });
    const { session } = await startSession(vault, { agent: 'writer', task: 'machines' });
    const written = await writeNote(vault, { session, path: 'notes/b.md', mode: 'create', content: '# B\n', reason: 'add b' });
    if (written.status !== 'written') throw new Error(written.message);
    const lines = tv.git(['log', '-1', '--format=%(trailers:only,unfold)', 'HEAD']).trim().split('\n');
    expect(lines.at(-1)).toBe('Lucid-Machine: desk-a');
    expect(lines.slice(0, 4).map((l) => l.split(':')[0])).toEqual(['Lucid-Actor', 'Lucid-Op', 'Lucid-Edit', 'Lucid-Session']);

    const proposal = await proposeToInbox(vault, { session, target: 'notes/c.md', action: 'create', content: '# C\n', reason: 'maybe c' });
    expect(trailersAt(tv, 'HEAD')['Lucid-Machine']).toBe('desk-a');
    await acceptInboxItem(vault, { id: nodePath.basename(proposal.inbox_path, '.md') });
    expect(trailersAt(tv, 'HEAD')).toMatchObject({ 'Lucid-Op': 'accept', 'Lucid-Machine': 'desk-a' });

    const reverted = await revertEdit(vault, { ref: written.edit_id });
    expect(trailersAt(tv, reverted.commit)).toMatchObject({ 'Lucid-Op': 'revert', 'Lucid-Machine': 'desk-a' });

    await moltSkill(vault, { session, name: 'triage', content: '1. Look\n2. Fix\n', reason: 'first version', trigger: 'when a bug is reported' });
    expect(trailersAt(tv, 'HEAD')).toMatchObject({ 'Lucid-Op': 'molt', 'Lucid-Machine': 'desk-a' });

    await endSession(vault, { session, outcome: 'done', summary: 'done' });
    expect(trailersAt(tv, 'HEAD')).toMatchObject({ 'Lucid-Session': session, 'Lucid-Machine': 'desk-a' });
    // Every commit Lucid made carries it; only the temp vault's own first commit does not.
    const all = tv.git(['log', '--format=%H']).trim().split('\n');
    expect(all.filter((sha) => trailersAt(tv, sha)['Lucid-Machine'] !== 'desk-a')).toEqual([all.at(-1)]);
  });

  it('is on every commit of a dream run, on its own branch', async () => {
    const { tv, vault } = await installed({ 'skills/flaky-ci.md': SKILL_FLAKY, 'skills/retry-intermittent-tests.md': SKILL_RETRY }, 'dreamer');
    const findings = await findDreamCandidates(vault, { now: new Date(Date.now() + 90 * 86_400_000) });
    const head = tv.head();
    const run = await applyDreamRun(vault, findings);
    expect(run.changes.length).toBeGreaterThan(0);
    for (const change of run.changes) expect(trailersAt(tv, change.sha)).toMatchObject({ 'Lucid-Dream': run.runId, 'Lucid-Machine': 'dreamer' });
    expect(tv.head()).toBe(head);
  });
});

describe('the commit index: machine and person', () => {
  it('records where and at whose vault each commit was made, filters by them and lists the values seen', async () => {
    const { tv, vault } = await installed({ 'notes/a.md': '# A\n' });
    await vault.edit({ actor: 'agent:here', op: 'create', path: 'notes/here.md', reason: 'here', changes: [{ path: 'notes/here.md', content: '# Here\n' }] });
    // The second clone: its person, its machine, an agent writing there; brought in by a fast-forward.
    const other = secondClone(tv, 'Second Person');
    const there = await openAt(tv, 'desk-b', other.dir);
    await there.edit({
      actor: 'agent:there',
      op: 'create',
      path: 'notes/there.md',
      reason: 'there',
      changes: [{ path: 'notes/there.md', content: '# There\n' }],
    });
    await there.edit({ actor: 'human:Second Person', op: 'update', path: 'notes/a.md', reason: 'mine', changes: [{ path: 'notes/a.md', content: '# A!\n' }] });
    tv.git(['pull', '-q', '--ff-only', other.dir, 'main']);

    const index = await vault.commits();
    const paths = (rows: { paths: { path: string }[] }[]) => rows.flatMap((r) => r.paths.map((p) => p.path).filter((p) => p.startsWith('notes/'))).sort();
    expect(paths(index.list({ machine: 'desk-b' }))).toEqual(['notes/a.md', 'notes/there.md']);
    expect(paths(index.list({ machine: 'desk-a', actor: 'agent:here' }))).toEqual(['notes/here.md']);
    expect(paths(index.list({ person: 'Second Person' }))).toEqual(['notes/a.md', 'notes/there.md']);
    expect(index.list({ person: 'Second Person', machine: 'desk-a' })).toEqual([]);
    // A person's own edit: the committer is the actor's name.
    const own = index.list({ actor: 'human:Second Person' })[0];
    expect(own).toMatchObject({ person: 'Second Person', machine: 'desk-b' });
    // The temp vault's first commit was made without Lucid: no machine, its committer as the person.
    const first = index.list({ oldestFirst: true, limit: 1 })[0];
    expect(first).toMatchObject({ machine: null, person: TEST_PERSON, actor: null });
    expect(index.origins()).toEqual({ machines: ['desk-a', 'desk-b'], persons: ['Second Person', TEST_PERSON].sort() });
    expect(index.origins(1)).toEqual({ machines: ['desk-a'], persons: [['Second Person', TEST_PERSON].sort()[0]] });
    expect(index.countWhere({ machine: 'nowhere' })).toBe(0);
  });

  it('rebuilds an index of the schema before machines from git, filling machine and person', async () => {
    const { tv, vault } = await installed({ 'notes/a.md': '# A\n' });
    await vault.edit({ actor: 'agent:here', op: 'create', path: 'notes/b.md', reason: 'b', changes: [{ path: 'notes/b.md', content: '# B\n' }] });
    vault.close();
    // What version 3 left in .lucid/: its tables, its version, and HEAD as indexed (so no update would run).
    const dbPath = nodePath.join(tv.root, '.lucid', 'commits.sqlite');
    const db = new Database(dbPath);
    db.exec('DROP TABLE IF EXISTS commits; DROP TABLE IF EXISTS commit_paths; DROP TABLE IF EXISTS meta;');
    db.exec(`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
      CREATE TABLE commits (seq INTEGER PRIMARY KEY, sha TEXT UNIQUE NOT NULL, time INTEGER NOT NULL, author TEXT NOT NULL,
        actor TEXT, op TEXT, edit_id TEXT, session TEXT, parents INTEGER NOT NULL, subject TEXT NOT NULL, reason TEXT NOT NULL, trailers TEXT NOT NULL, paths TEXT NOT NULL);
      CREATE TABLE commit_paths (seq INTEGER NOT NULL, path TEXT NOT NULL, status TEXT NOT NULL, old_path TEXT);`);
    db.prepare("INSERT INTO meta (key, value) VALUES ('version', '3'), ('head', ?)").run(tv.head());
    db.close();

    const reopened = await openAt(tv, 'desk-a');
    const index = await reopened.commits();
    expect(index.count()).toBe(Number(tv.git(['rev-list', '--count', 'HEAD']).trim()));
    expect(index.list({ machine: 'desk-a' }).map((r) => r.op)).toEqual(['create', 'init']);
  });
});

describe('sessions and machines', () => {
  it('a session note keeps its machine; the list shows and filters sessions by machine and person; the week narrows too', async () => {
    const { tv, vault } = await installed({ 'notes/a.md': '# A\n' });
    const here = await startSession(vault, { agent: 'alpha', task: 'here' });
    await writeNote(vault, { session: here.session, path: 'notes/h.md', mode: 'create', content: '# H\n', reason: 'h' });
    await endSession(vault, { session: here.session, outcome: 'done', summary: 'done here' });
    expect(tv.read(`sessions/${here.session}.md`)).toMatch(/^machine: desk-a$/m);

    const other = secondClone(tv, 'Second Person');
    const there = await openAt(tv, 'desk-b', other.dir);
    const away = await startSession(there, { agent: 'beta', task: 'there' });
    await writeNote(there, { session: away.session, path: 'notes/t.md', mode: 'create', content: '# T\n', reason: 't' });
    await endSession(there, { session: away.session, outcome: 'done', summary: 'done there' });
    tv.git(['pull', '-q', '--ff-only', other.dir, 'main']);
    const open = await startSession(vault, { agent: 'alpha', task: 'still open here' });

    const all = await listSessions(vault, {});
    expect(Object.fromEntries(all.rows.map((r) => [r.task, [r.machine, r.person]]))).toEqual({
      here: ['desk-a', TEST_PERSON],
      there: ['desk-b', 'Second Person'],
      'still open here': ['desk-a', TEST_PERSON],
    });
    expect(all.machines).toEqual(['desk-a', 'desk-b']);
    expect((await listSessions(vault, { machine: 'desk-b' })).rows.map((r) => r.task)).toEqual(['there']);
    expect((await listSessions(vault, { person: TEST_PERSON })).rows.map((r) => r.task)).toEqual(['still open here', 'here']);
    expect((await listSessions(vault, { machine: 'desk-b', person: TEST_PERSON })).rows).toEqual([]);

    const week = { since: DEFAULT_START.getTime() - 86_400_000, until: DEFAULT_START.getTime() + 7 * 86_400_000 };
    const everyone = await summarizeActivity(vault, week);
    const onB = await summarizeActivity(vault, week, { machine: 'desk-b' });
    expect(onB.origin).toEqual({ machine: 'desk-b' });
    expect(onB.sessions.list.map((s) => s.task)).toEqual(['there']);
    expect(onB.byActor.map((a) => a.actor)).toEqual(['agent:beta']);
    expect(onB.edits).toBeLessThan(everyone.edits);
    expect((await summarizeActivity(vault, week, { person: 'Nobody' })).edits).toBe(0);
    await endSession(vault, { session: open.session, outcome: 'done', summary: 'ok' });
  });

  it('never ends as abandoned a session another machine opened, even in a folder both machines share', async () => {
    const { tv, vault } = await installed();
    // The same folder opened as another machine (a shared drive): its session state sits in the same .lucid/.
    const laptop = await openAt(tv, 'laptop-b');
    const theirs = await startSession(laptop, { agent: 'beta', task: 'theirs', owner: { kind: 'mcp', pid: 2 ** 22 + 1, host: hostname() } });
    const mine = await startSession(vault, { agent: 'alpha', task: 'mine', owner: { kind: 'mcp', pid: 2 ** 22 + 2, host: hostname() } });
    expect(listOpenSessions(vault).map((s) => [s.id, s.machine])).toEqual(
      [
        [theirs.session, 'laptop-b'],
        [mine.session, 'desk-a'],
      ].sort(),
    );
    // The sweep of a starting MCP server on desk-a: both processes are gone, only its own machine's session is an orphan.
    const dead = () => false;
    expect(orphanedSessions(vault, { kind: 'mcp', pid: process.pid, host: hostname() }, dead).map((s) => s.id)).toEqual([mine.session]);
    // Asked outright, desk-a still leaves laptop-b's session open.
    expect(await abandonSessions(vault, [theirs.session, mine.session])).toEqual([`sessions/${mine.session}.md`]);
    expect(tv.exists(`sessions/${theirs.session}.md`)).toBe(false);
    expect(listOpenSessions(vault).map((s) => s.id)).toEqual([theirs.session]);
    // Its own machine ends it as it ends its own.
    expect(await abandonSessions(laptop, [theirs.session])).toEqual([`sessions/${theirs.session}.md`]);
    expect(tv.read(`sessions/${theirs.session}.md`)).toMatch(/^machine: laptop-b$/m);
  });

  it("a clone never sees another clone's open sessions: they live in .lucid/, which git never carries", async () => {
    const { tv } = await installed();
    const other = secondClone(tv, 'Second Person');
    const there = await openAt(tv, 'desk-b', other.dir);
    const away = await startSession(there, { agent: 'beta', task: 'there', owner: { kind: 'mcp', pid: 2 ** 22 + 3, host: hostname() } });
    await writeNote(there, { session: away.session, path: 'notes/t.md', mode: 'create', content: '# T\n', reason: 't' });
    tv.git(['pull', '-q', '--ff-only', other.dir, 'main']);
    const vault = await openAt(tv, 'desk-a');
    expect(listOpenSessions(vault)).toEqual([]);
    expect(orphanedSessions(vault, { kind: 'mcp', pid: process.pid, host: hostname() }, () => false)).toEqual([]);
    // Its edits arrived, with where they were made.
    expect((await vault.commits()).list({ session: away.session })[0]).toMatchObject({ machine: 'desk-b', person: 'Second Person' });
    expect(listOpenSessions(there).map((s) => s.id)).toEqual([away.session]);
  });
});
