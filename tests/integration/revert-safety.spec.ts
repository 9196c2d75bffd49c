import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { isVaultError, planRevert, revertEdit } from '../../lib/vault/index';
import {
  addedChangelogLines,
  agentEdit,
  filesWithMarkers,
  FIVE_LINES,
  freeze,
  pathsOf,
  revertScratch,
  trailersOf,
  vaultRejection,
  vaultsPerTest,
} from '../support/revert-vault';
import { sha256, TEST_PERSON } from '../support/temp-vault';

/** SECURITY-TESTS #42 (a revert that conflicts), #43 (uncommitted work) and #44 (refs), checked with raw git. */

const { setUp, keep } = vaultsPerTest({ 'notes/a.md': FIVE_LINES, 'notes/b.md': '# B\n\nbee\n', 'notes/c.md': '# C\n\nsea\n' });

describe('#42 a revert that conflicts changes nothing at all', () => {
  it('C changes line 3, a later D changes it again: the dry run and the revert name D, and HEAD, the index and every file stay byte-identical', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'one\ntwo\nTHREE by C\nfour\nfive\n', 'update', 'agent:first');
    const d = await agentEdit(vault, 'notes/a.md', 'one\ntwo\nthree by D\nfour\nfive\n', 'update', 'agent:second');
    const before = freeze(tv);

    const plan = await planRevert(vault, c.editId);
    expect(plan).toMatchObject({ ok: false, refused: null, commit: c.commit, edit: c.editId, actor: 'agent:first', op: 'update', foreign: false });
    expect(plan.blockers).toEqual([
      {
        kind: 'conflict',
        path: 'notes/a.md',
        laterEdits: [{ edit: d.editId, commit: d.commit, actor: 'agent:second', op: 'update', subject: 'update notes/a.md' }],
      },
    ]);
    expect(plan.message).toContain(d.editId);
    expect(plan.message).toContain('notes/a.md');
    expect(freeze(tv)).toEqual(before);

    const error = await vaultRejection(revertEdit(vault, { ref: c.editId }));
    expect(error.code).toBe('conflict');
    expect(error.message).toBe(plan.message);
    const after = freeze(tv);
    expect(after).toEqual(before);
    expect(after.gitState).toEqual([]);
    expect(after.stages).not.toMatch(/ [123]\t/);
    expect(filesWithMarkers(tv)).toEqual([]);
    expect(revertScratch(tv)).toEqual([]);
    expect(tv.read('notes/a.md')).toBe('one\ntwo\nthree by D\nfour\nfive\n');
  });

  it('when D touched other lines, the revert succeeds and changes only C’s hunk, in one commit with one changelog line', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'one\nTWO by C\nthree\nfour\nfive\n');
    await agentEdit(vault, 'notes/a.md', 'one\nTWO by C\nthree\nfour\nFIVE by D\n');
    const count = tv.commitCount();

    const plan = await planRevert(vault, c.editId);
    expect(plan).toMatchObject({ ok: true, blockers: [], refused: null, paths: ['notes/a.md'] });
    expect(plan.patch).toContain('-TWO by C');
    expect(plan.patch).toContain('+two');
    expect(plan.patch).not.toMatch(/^[-+].*FIVE/m);

    const result = await revertEdit(vault, { ref: c.editId, reason: 'C was wrong' });
    expect(tv.read('notes/a.md')).toBe('one\ntwo\nthree\nfour\nFIVE by D\n');
    expect(tv.commitCount()).toBe(count + 1);
    expect(tv.head()).toBe(result.commit);
    expect(pathsOf(tv, result.commit)).toEqual(['changelog.md', 'notes/a.md']);
    const diff = tv.git(['diff', '-U0', `${result.commit}~1`, result.commit, '--', 'notes/a.md']);
    expect(diff.split('\n').filter((l) => /^[-+][^-+]/.test(l))).toEqual(['-TWO by C', '+two']);
    expect(trailersOf(tv, result.commit)).toMatchObject({
      'Lucid-Actor': `human:${TEST_PERSON}`,
      'Lucid-Op': 'revert',
      'Lucid-Edit': result.editId,
      'Lucid-Reverts': c.editId,
    });
    const lines = addedChangelogLines(tv);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`human:${TEST_PERSON} · revert [[notes/a]] · C was wrong`);
    expect(lines[0]).toContain(c.editId);
    expect(lines[0]).toMatch(new RegExp(`\\^${result.editId}$`));
    // The reverted edit's own changelog line is untouched.
    expect(tv.read('changelog.md').match(new RegExp(`\\^${c.editId}$`, 'm'))).not.toBeNull();
    expect(freeze(tv).status).toBe('');
  });
});

describe('#43 a revert with uncommitted work', () => {
  it('refuses when a file involved has uncommitted changes, naming it; every uncommitted byte stays', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'one\nTWO\nthree\nfour\nfive\n');
    tv.write('notes/a.md', 'one\nTWO\nthree\nfour\nfive\nmy own line, not committed\n');
    tv.write('notes/b.md', '# B\n\nbee, edited in Obsidian\n');
    const before = freeze(tv);

    const plan = await planRevert(vault, c.editId);
    expect(plan.ok).toBe(false);
    expect(plan.blockers).toEqual([{ kind: 'uncommitted', path: 'notes/a.md', laterEdits: [] }]);
    expect(plan.message).toContain('notes/a.md has uncommitted changes');
    const error = await vaultRejection(revertEdit(vault, { ref: c.editId }));
    expect(error.code).toBe('dirty_worktree');
    expect(freeze(tv)).toEqual(before);
    expect(tv.read('notes/a.md')).toBe('one\nTWO\nthree\nfour\nfive\nmy own line, not committed\n');
  });

  it('proceeds for a clean file while other notes hold uncommitted work, which stays uncommitted and byte-identical', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/c.md', '# C\n\nsea, changed by an agent\n');
    tv.write('notes/a.md', 'uncommitted a\n');
    tv.write('notes/b.md', 'uncommitted b\n');
    tv.write('notes/new.md', 'a new note, not committed\n');
    const result = await revertEdit(vault, { ref: c.editId });
    expect(tv.read('notes/c.md')).toBe('# C\n\nsea\n');
    expect(pathsOf(tv, result.commit)).toEqual(['changelog.md', 'notes/c.md']);
    expect(tv.read('notes/a.md')).toBe('uncommitted a\n');
    expect(tv.read('notes/b.md')).toBe('uncommitted b\n');
    expect(tv.read('notes/new.md')).toBe('a new note, not committed\n');
    expect(freeze(tv).status.split('\n').filter(Boolean).sort()).toEqual([' M notes/a.md', ' M notes/b.md', '?? notes/new.md']);
  });

  it('an agent write that arrives during the revert waits for the lock or fails cleanly: never overwritten, never lost', async () => {
    for (let round = 0; round < 4; round += 1) {
      const { tv, vault } = await setUp();
      const other = await tv.open();
      keep(other);
      const c = await agentEdit(vault, 'notes/a.md', 'one\nTWO\nthree\nfour\nfive\n');
      const seen = sha256(tv.readBytes('notes/a.md'));
      const count = tv.commitCount();
      const agentText = `one\nTWO\nthree\nfour\nfive\nagent round ${round}\n`;
      let go: () => void = () => undefined;
      const barrier = new Promise<void>((resolve) => {
        go = resolve;
      });
      const reverting = barrier.then(() => revertEdit(vault, { ref: c.editId }));
      const writing = barrier.then(() =>
        other.edit({
          actor: 'agent:late',
          op: 'update',
          path: 'notes/a.md',
          reason: 'late',
          changes: [{ path: 'notes/a.md', content: agentText, expectedHash: seen }],
        }),
      );
      go();
      const [revert, write] = await Promise.allSettled([reverting, writing]);
      const text = tv.read('notes/a.md');
      // Whichever goes first, the other either builds on it or is refused as a conflict: nothing is lost.
      const why = (r: PromiseSettledResult<unknown>) => (r.status === 'rejected' ? String(r.reason?.code ?? r.reason) : 'ok');
      expect(revert.status === 'fulfilled' || isVaultError(revert.reason, 'conflict'), why(revert)).toBe(true);
      expect(write.status === 'fulfilled' || isVaultError(write.reason, 'conflict'), why(write)).toBe(true);
      expect(revert.status === 'fulfilled' || write.status === 'fulfilled').toBe(true);
      expect(text.includes(`agent round ${round}`)).toBe(write.status === 'fulfilled');
      expect(text.split('\n')[1]).toBe(revert.status === 'fulfilled' ? 'two' : 'TWO');
      expect(tv.commitCount()).toBe(count + [revert, write].filter((r) => r.status === 'fulfilled').length);
      expect(freeze(tv).status).toBe('');
      expect(filesWithMarkers(tv)).toEqual([]);
    }
  });
});

describe('#44 refs and odd names', () => {
  it('refuses refs that are not an edit id or a full sha of this history, before git sees them', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'changed\n');
    const out = path.join(tv.tempDir('inject'), 'x');
    const before = freeze(tv);
    for (const ref of [
      `--output=${out}`,
      '-c core.pager=sh',
      'HEAD~1;rm -rf .',
      'HEAD',
      c.commit.slice(0, 12),
      `${c.commit}x`,
      'g'.repeat(40),
      'E'.repeat(13),
      '',
    ]) {
      const error = await vaultRejection(planRevert(vault, ref));
      expect(error.code, ref).toBe('invalid_input');
      await vaultRejection(revertEdit(vault, { ref }));
    }
    const unknown = await vaultRejection(planRevert(vault, '0123456789abcdef0123456789abcdef01234567'));
    expect(unknown.code).toBe('not_found');
    expect((await vaultRejection(planRevert(vault, 'eaaaaaaaaaaaa'))).code).toBe('not_found');
    expect(fs.existsSync(out)).toBe(false);
    expect(freeze(tv)).toEqual(before);
    // The full sha, in capitals too, names the same commit as the edit id.
    expect((await planRevert(vault, c.commit.toUpperCase())).commit).toBe(c.commit);
  });

  it('reverts edits of notes named HEAD.md, -n.md and --help.md', async () => {
    const { tv, vault } = await setUp({ 'HEAD.md': 'head\n', '-n.md': 'dash n\n', '--help.md': 'help\n' });
    for (const name of ['HEAD.md', '-n.md', '--help.md']) {
      const c = await agentEdit(vault, name, 'changed by an agent\n');
      const plan = await planRevert(vault, c.editId);
      expect(plan.paths).toEqual([name]);
      await revertEdit(vault, { ref: c.editId });
      expect(tv.read(name)).not.toBe('changed by an agent\n');
    }
    expect(tv.read('HEAD.md')).toBe('head\n');
    expect(tv.read('-n.md')).toBe('dash n\n');
    expect(tv.read('--help.md')).toBe('help\n');
    // Restoring a deleted note under a name new files may not have (a leading dash) is refused by
    // the write path's name rules: the plan says so, and nothing changes.
    const deleted = await agentEdit(vault, '-n.md', null, 'delete');
    const plan = await planRevert(vault, deleted.editId);
    expect(plan.ok).toBe(false);
    expect(plan.refused).toContain('-n.md');
    expect((await vaultRejection(revertEdit(vault, { ref: deleted.editId }))).code).toBe('forbidden');
    expect(tv.exists('-n.md')).toBe(false);
  });
});

describe('a revert never writes a merge made from an older HEAD', () => {
  it('an agent edit committed after the revert read HEAD and before it checked the disk makes it a conflict, and the agent line stays', async () => {
    const { tv, vault } = await setUp();
    const other = await tv.open();
    keep(other);
    const c = await agentEdit(vault, 'notes/a.md', 'ONE by C\ntwo\nthree\nfour\nfive\n', 'update', 'agent:first');
    // Deterministic interleaving: the revert's first blob read waits for another writer's commit.
    const run = vault.repo.run;
    let raced = false;
    vault.repo.run = async (call) => {
      if (!raced && call.args[0] === 'cat-file' && call.args[1] === 'blob') {
        raced = true;
        await agentEdit(other, 'notes/a.md', 'ONE by C\ntwo\nthree\nfour\nFIVE by the agent\n', 'update', 'agent:second');
      }
      return run(call);
    };
    const error = await vaultRejection(revertEdit(vault, { ref: c.editId }));
    vault.repo.run = run;
    expect(raced).toBe(true);
    expect(error.code).toBe('conflict');
    expect(tv.read('notes/a.md')).toBe('ONE by C\ntwo\nthree\nfour\nFIVE by the agent\n');
    // Taken again once the race is over, the revert merges onto the agent's edit and keeps it.
    await revertEdit(vault, { ref: c.editId });
    expect(tv.read('notes/a.md')).toBe('one\ntwo\nthree\nfour\nFIVE by the agent\n');
  });
});

describe('scratch a killed revert, merge or commit left behind', () => {
  it('is swept when the vault is opened, once over a minute old; fresh ones and other files stay', async () => {
    const { tv } = await setUp();
    const state = path.join(tv.root, '.lucid');
    const old = new Date(Date.now() - 10 * 60_000);
    const stale = ['revert-abcdefghij.ours', 'revert-abcdefghij.base', 'revert-abcdefghij.theirs', 'revert-bcdefghijk.index', 'stage-cdefghijkm'];
    for (const name of stale) fs.writeFileSync(path.join(state, name), 'x');
    fs.mkdirSync(path.join(state, 'merge-defghijkmn'));
    for (const name of ['current', 'base', 'proposal']) fs.writeFileSync(path.join(state, 'merge-defghijkmn', name), 'x');
    for (const name of [...stale, 'merge-defghijkmn/current', 'merge-defghijkmn/base', 'merge-defghijkmn/proposal', 'merge-defghijkmn']) {
      fs.utimesSync(path.join(state, name), old, old);
    }
    fs.writeFileSync(path.join(state, 'revert-efghijkmnp.ours'), 'a live revert');
    fs.writeFileSync(path.join(state, 'revert-notes.txt'), 'not scratch');
    fs.utimesSync(path.join(state, 'revert-notes.txt'), old, old);
    keep(await tv.open());
    expect(
      fs
        .readdirSync(state)
        .filter((n) => /^(revert|merge|stage)-/.test(n))
        .sort(),
    ).toEqual(['revert-efghijkmnp.ours', 'revert-notes.txt']);
  });
});

describe("a dry run leaves the vault's id sequence alone", () => {
  it('merging and diffing on scratch files takes no id from the vault', async () => {
    const { vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'ONE by C\ntwo\nthree\nfour\nfive\n', 'update', 'agent:first');
    await agentEdit(vault, 'notes/a.md', 'ONE by C\ntwo\nthree\nfour\nFIVE by D\n', 'update', 'agent:second');
    const ids = vi.spyOn(vault.ids, 'base32');
    const plan = await planRevert(vault, c.editId);
    expect(plan.ok).toBe(true);
    expect(plan.patch).toContain('+one');
    expect(ids).not.toHaveBeenCalled();
    ids.mockRestore();
  });
});
