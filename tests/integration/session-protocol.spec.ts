import { afterEach, describe, expect, it } from 'vitest';
import {
  abandonSessions,
  checkSessionProtocol,
  editNote,
  endSession,
  initVault,
  readNoteForAgent,
  recordDecision,
  searchNotes,
  startSession,
  writeNote,
  type ProtocolCheck,
  type Vault,
} from '../../lib/vault/index';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/** The protocol check of a session, rule by rule, each failing and passing, on fresh temp vaults. */

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

const PROJECT = '---\ntype: project\nname: Atlas\nstatus: active\n---\n# Atlas\n\nThe ledger service.\n';

async function installed(): Promise<{ tv: TempVault; vault: Vault }> {
  const tv = makeTempVault({ 'projects/atlas.md': PROJECT, 'notes/retries.md': '# Retries\n\nWe retry three times.\n' });
  vaults.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  const vault = await tv.open();
  opened.push(vault);
  return { tv, vault };
}

const rule = (check: ProtocolCheck | null, id: string) => {
  const found = check?.rules.find((r) => r.id === id);
  if (!found) throw new Error(`no rule ${id}`);
  return found;
};

const start = async (vault: Vault) => (await startSession(vault, { agent: 'test-agent', task: 'write down the retry policy', project: 'atlas' })).session;
const write = (vault: Vault, session: string, path = 'notes/policy.md') =>
  writeNote(vault, { session, path, mode: 'create', content: '# Policy\n\nRetry with backoff.\n', reason: 'the retry policy' });
const end = (vault: Vault, session: string) => endSession(vault, { session, summary: 'Wrote the policy.', outcome: 'done' });

describe('protocol check: read before write', () => {
  it('passes when the session searched before its first commit', async () => {
    const { tv, vault } = await installed();
    const session = await start(vault);
    await searchNotes(vault, { query: 'retry policy' }, [session]);
    await write(vault, session);
    await end(vault, session);
    // A server in another zone than the session's (Node reads TZ anew when it changes).
    const zone = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati';
    const check = await checkSessionProtocol(vault, session).finally(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });
    const r = rule(check, 'read-before-write');
    expect(r.ok).toBe(true);
    // Times as the session note wrote them (its zone), whatever the server's zone.
    const searched = /^first_search: "?(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/m.exec(tv.read(`sessions/${session}.md`));
    expect(searched).not.toBeNull();
    expect(r.detail).toContain(`first searched at ${searched?.[1]} ${searched?.[2]}, before its first commit`);
  });

  it('fails when the first commit came before the first search', async () => {
    const { vault } = await installed();
    const session = await start(vault);
    await write(vault, session);
    await searchNotes(vault, { query: 'retry policy' }, [session]);
    await end(vault, session);
    const check = await checkSessionProtocol(vault, session);
    expect(rule(check, 'read-before-write')).toMatchObject({ ok: false, detail: expect.stringMatching(/came before it first searched/) });
    expect(check?.ok).toBe(false);
  });

  it('fails when it never searched or read', async () => {
    const { vault } = await installed();
    const session = await start(vault);
    await write(vault, session);
    await end(vault, session);
    expect(rule(await checkSessionProtocol(vault, session), 'read-before-write')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/no search or read/),
    });
  });

  it('counts a read (observed as first_read) before the first commit', async () => {
    const { tv, vault } = await installed();
    const session = await start(vault);
    await readNoteForAgent(vault, { path: 'notes/retries.md' }, [session]);
    await write(vault, session);
    await end(vault, session);
    expect(tv.read(`sessions/${session}.md`)).toMatch(/^first_read: /m);
    expect(rule(await checkSessionProtocol(vault, session), 'read-before-write').ok).toBe(true);
  });

  it('a note written before first_read was observed counts searches only', async () => {
    const { tv, vault } = await installed();
    const session = await start(vault);
    await readNoteForAgent(vault, { path: 'notes/retries.md' }, [session]);
    await write(vault, session);
    await end(vault, session);
    const note = `sessions/${session}.md`;
    tv.write(note, tv.read(note).replace(/^first_read: .*\n/m, ''));
    tv.git(['commit', '-qam', 'an older session note']);
    expect(rule(await checkSessionProtocol(vault, session), 'read-before-write')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/no search was observed/),
    });
  });

  it('passes a session that committed nothing', async () => {
    const { vault } = await installed();
    const session = await start(vault);
    await end(vault, session);
    expect(rule(await checkSessionProtocol(vault, session), 'read-before-write').ok).toBe(true);
  });
});

describe('protocol check: ended', () => {
  it('passes end_session, fails an abandoned session, and says an open one is still open', async () => {
    const { tv, vault } = await installed();
    const trailerOf = (id: string) => tv.git(['log', '-1', '--format=%(trailers:key=Lucid-Tool,valueonly)', '--', `sessions/${id}.md`]).trim();
    const done = await start(vault);
    await end(vault, done);
    expect(trailerOf(done)).toBe('end_session');
    expect(rule(await checkSessionProtocol(vault, done), 'ended')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/^It called end_session \(commit [0-9a-f]{7}/),
    });

    const gone = await start(vault);
    await abandonSessions(vault, [gone]);
    expect(trailerOf(gone)).toBe('');
    const abandoned = await checkSessionProtocol(vault, gone);
    expect(rule(abandoned, 'ended')).toMatchObject({ ok: false, detail: expect.stringMatching(/^Abandoned/) });
    expect(abandoned?.ok).toBe(false);

    // The outcome is what the session says; git says whether it called end_session.
    const gaveUp = await start(vault);
    await endSession(vault, { session: gaveUp, summary: 'Could not reach the ledger.', outcome: 'abandoned' });
    expect(rule(await checkSessionProtocol(vault, gaveUp), 'ended')).toMatchObject({ ok: true, detail: expect.stringMatching(/^It called end_session/) });

    const running = await start(vault);
    await searchNotes(vault, { query: 'retry' }, [running]);
    const open = await checkSessionProtocol(vault, running);
    expect(open?.open).toBe(true);
    expect(rule(open, 'ended')).toMatchObject({ ok: false, detail: expect.stringMatching(/Still open/) });
    expect(await checkSessionProtocol(vault, '20261115-100000-nobody-aaaa')).toBeNull();
  });
});

describe('protocol check: edits logged', () => {
  it("passes Lucid's commits, each with its edit id and changelog line", async () => {
    const { vault } = await installed();
    const session = await start(vault);
    await searchNotes(vault, { query: 'retry' }, [session]);
    await write(vault, session);
    await write(vault, session, 'notes/second.md');
    await end(vault, session);
    expect(rule(await checkSessionProtocol(vault, session), 'edits-logged')).toMatchObject({ ok: true, detail: expect.stringMatching(/All 3 commits/) });
  });

  it('fails a commit naming the session without its changelog line', async () => {
    const { tv, vault } = await installed();
    const session = await start(vault);
    await searchNotes(vault, { query: 'retry' }, [session]);
    await end(vault, session);
    tv.write('notes/sneaky.md', '# Sneaky\n');
    tv.git(['add', 'notes/sneaky.md']);
    tv.git([
      'commit',
      '-qm',
      `create notes/sneaky.md\n\nby hand\n\nLucid-Actor: agent:test-agent\nLucid-Op: create\nLucid-Edit: eaaaaaaaaaaaa\nLucid-Session: ${session}`,
    ]);
    expect(rule(await checkSessionProtocol(vault, session), 'edits-logged')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/does not add the changelog line of eaaaaaaaaaaaa/),
    });
  });

  it('fails a commit naming the session without an edit id', async () => {
    const { tv, vault } = await installed();
    const session = await start(vault);
    await end(vault, session);
    tv.write('notes/sneaky.md', '# Sneaky\n');
    tv.git(['add', 'notes/sneaky.md']);
    tv.git(['commit', '-qm', `create notes/sneaky.md\n\nby hand\n\nLucid-Actor: agent:test-agent\nLucid-Op: create\nLucid-Session: ${session}`]);
    expect(rule(await checkSessionProtocol(vault, session), 'edits-logged')).toMatchObject({ ok: false, detail: expect.stringMatching(/has no Lucid-Edit/) });
  });

  it('fails when a note the session touched has no commit of the session', async () => {
    const { tv, vault } = await installed();
    const session = await start(vault);
    await searchNotes(vault, { query: 'retry' }, [session]);
    await write(vault, session);
    await end(vault, session);
    const note = `sessions/${session}.md`;
    tv.write(note, tv.read(note).replace(/^touched:\n/m, 'touched:\n  - notes/ghost.md\n'));
    tv.git(['commit', '-qam', 'edit the session note by hand']);
    expect(rule(await checkSessionProtocol(vault, session), 'edits-logged')).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/touches notes\/ghost\.md/),
    });
  });
});

describe('protocol check: decisions recorded', () => {
  it('passes record_decision, whose commit carries Lucid-Tool: record_decision', async () => {
    const { tv, vault } = await installed();
    const session = await start(vault);
    await searchNotes(vault, { query: 'retry' }, [session]);
    const recorded = await recordDecision(vault, { session, project: 'atlas', title: 'Retry with backoff', decision: 'Backoff.', rationale: 'Load.' });
    await end(vault, session);
    expect(tv.git(['log', '-1', '--format=%B', recorded.commit])).toMatch(/^Lucid-Tool: record_decision$/m);
    expect(rule(await checkSessionProtocol(vault, session), 'decisions-recorded')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/1 decision commit/),
    });
  });

  it('fails a decision written with write_note, in the decisions folder or elsewhere', async () => {
    const { vault } = await installed();
    for (const path of ['decisions/atlas-retry.md', 'notes/retry-decision.md']) {
      const session = await start(vault);
      await searchNotes(vault, { query: 'retry' }, [session]);
      await writeNote(vault, {
        session,
        path,
        mode: 'create',
        content: '---\ntype: decision\ndate: 2026-11-15\nproject: "[[projects/atlas]]"\nstatus: accepted\n---\n# Retry\n',
        reason: 'decided',
      });
      await end(vault, session);
      expect(rule(await checkSessionProtocol(vault, session), 'decisions-recorded'), path).toMatchObject({
        ok: false,
        detail: expect.stringContaining(`added decision ${path}`),
      });
    }
  });

  it('a plain note written with write_note is no decision', async () => {
    const { vault } = await installed();
    const session = await start(vault);
    await searchNotes(vault, { query: 'retry' }, [session]);
    await write(vault, session);
    await end(vault, session);
    const check = await checkSessionProtocol(vault, session);
    expect(rule(check, 'decisions-recorded')).toMatchObject({ ok: true, detail: 'It recorded no decision and superseded none.' });
    expect(check?.ok).toBe(true);
  });

  /** A decision recorded by an earlier session, for a later one to edit. */
  async function recorded(vault: Vault): Promise<string> {
    const first = await start(vault);
    await searchNotes(vault, { query: 'retry' }, [first]);
    const { path } = await recordDecision(vault, { session: first, project: 'atlas', title: 'Retry with backoff', decision: 'Backoff.', rationale: 'Load.' });
    await end(vault, first);
    return path;
  }

  it("passes an edit of an existing decision's text with edit_note or write_note append", async () => {
    const { tv, vault } = await installed();
    const path = await recorded(vault);
    const session = await start(vault);
    await readNoteForAgent(vault, { path }, [session]);
    await editNote(vault, { session, path, operation: 'find_replace', find: 'Backoff.', replace: 'Exponential backoff, capped at 30 s.', reason: 'the cap' });
    await writeNote(vault, { session, path, mode: 'append', content: 'Measured on the staging ledger.\n', reason: 'evidence' });
    await end(vault, session);
    expect(
      tv
        .git(['log', '--format=%H', `--grep=Lucid-Session: ${session}`, '--', path])
        .trim()
        .split('\n'),
    ).toHaveLength(2);
    const r = rule(await checkSessionProtocol(vault, session), 'decisions-recorded');
    expect(r).toMatchObject({ ok: true, detail: 'It recorded no decision and superseded none.' });
  });

  it("fails a change of a decision's status or superseded_by made without record_decision", async () => {
    for (const fields of [{ status: 'superseded' }, { superseded_by: '[[decisions/atlas-other]]' }] as Record<string, string>[]) {
      const { vault } = await installed();
      const path = await recorded(vault);
      const session = await start(vault);
      await readNoteForAgent(vault, { path }, [session]);
      await writeNote(vault, { session, path, mode: 'set_fields', fields, reason: 'superseded by hand' });
      await end(vault, session);
      const [field, value] = Object.entries(fields)[0];
      const r = rule(await checkSessionProtocol(vault, session), 'decisions-recorded');
      expect(r.ok, field).toBe(false);
      expect(r.detail, field).toContain(`changed ${field} of ${path} from ${field === 'status' ? 'accepted' : 'none'} to ${value}`);
    }
  });

  it("passes superseding through record_decision, which changes the old decision's status in its own commit", async () => {
    const { tv, vault } = await installed();
    const old = await recorded(vault);
    const session = await start(vault);
    await readNoteForAgent(vault, { path: old }, [session]);
    const next = await recordDecision(vault, {
      session,
      project: 'atlas',
      title: 'Retry with jitter',
      decision: 'Jitter.',
      rationale: 'Herds.',
      replaces: old,
    });
    await end(vault, session);
    expect(tv.git(['show', '--name-only', '--format=', next.commit]).trim().split('\n').sort()).toContain(old);
    expect(rule(await checkSessionProtocol(vault, session), 'decisions-recorded')).toMatchObject({
      ok: true,
      detail: expect.stringMatching(/1 decision commit/),
    });
  });
});
