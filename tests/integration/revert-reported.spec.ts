import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { revertEdit, startSession } from '../../lib/vault/index';
import { agentEdit, FIVE_LINES, freeze, trailersOf, vaultsPerTest } from '../support/revert-vault';
import { TEST_PERSON } from '../support/temp-vault';

/** A revert reaches the next agent's start_session, and the same revert works from a terminal. */

const { setUp } = vaultsPerTest({ 'notes/a.md': FIVE_LINES, 'notes/b.md': 'bee\n' });

describe('the next start_session reports a revert', () => {
  it('of a Lucid edit, naming the edit it undid', async () => {
    const { vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'one\nTWO\nthree\nfour\nfive\n', 'update', 'agent:writer');
    const revert = await revertEdit(vault, { ref: c.editId, reason: 'two is two' });
    const { since_last_session: since } = await startSession(vault, { agent: 'writer', task: 'next' });
    const note = since.corrections.find((n) => n.path === 'notes/a.md');
    expect(note?.changes[0]).toMatchObject({
      kind: 'reverted',
      by: `human:${TEST_PERSON}`,
      commit: revert.commit.slice(0, 12),
      undid: expect.objectContaining({ edit: c.editId, commit: c.commit.slice(0, 12), actor: 'agent:writer', op: 'update' }),
    });
    expect(note?.changes[0].reason).toContain('two is two');
  });

  it("of a person's own commit, naming its sha", async () => {
    const { tv, vault } = await setUp();
    tv.write('notes/b.md', 'bee, by hand\n');
    tv.git(['commit', '-q', '-am', 'by hand']);
    const sha = tv.head();
    await revertEdit(vault, { ref: sha });
    expect(trailersOf(tv, 'HEAD')['Lucid-Reverts-Commit']).toBe(sha);
    const { since_last_session: since } = await startSession(vault, { agent: 'writer', task: 'next' });
    const note = since.corrections.find((n) => n.path === 'notes/b.md');
    expect(note?.changes[0]).toMatchObject({ kind: 'reverted', undid: expect.objectContaining({ edit: null, commit: sha.slice(0, 12), op: 'commit' }) });
  });
});

const BIN = path.resolve('bin/lucid');

function lucid(args: string[], env: Record<string, string | undefined>) {
  const result = spawnSync(BIN, args, { encoding: 'utf8', env: env as NodeJS.ProcessEnv, timeout: 60_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('lucid revert', () => {
  it('prints the plan and its patch with --dry-run, changing nothing; reverts without it', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'one\nTWO\nthree\nfour\nfive\n');
    vault.close();
    const before = freeze(tv);
    const dry = lucid(['revert', c.editId, '--dry-run', '--vault', tv.root], tv.env);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('would change notes/a.md back');
    expect(dry.stdout).toContain('-TWO\n+two');
    expect(freeze(tv)).toEqual(before);
    const real = lucid(['revert', c.editId, '--reason', 'wrong', '--vault', tv.root], tv.env);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toMatch(/^Reverted: notes\/a\.md \(commit [0-9a-f]{7}, edit e[a-z2-7]{12}\)/);
    expect(tv.read('notes/a.md')).toBe(FIVE_LINES);
    expect(trailersOf(tv, 'HEAD')['Lucid-Reverts']).toBe(c.editId);
  });

  it('exits 1 with the message when the revert is blocked or refused, and 2 on a bad ref or option', async () => {
    const { tv, vault } = await setUp();
    const c = await agentEdit(vault, 'notes/a.md', 'one\nTWO\nthree\nfour\nfive\n');
    vault.close();
    tv.write('notes/a.md', 'uncommitted\n');
    const before = freeze(tv);
    const dry = lucid(['revert', c.editId, '--dry-run', '--vault', tv.root], tv.env);
    expect(dry.code).toBe(1);
    expect(dry.stderr).toContain('notes/a.md has uncommitted changes');
    const real = lucid(['revert', c.editId, '--vault', tv.root], tv.env);
    expect(real.code).toBe(1);
    expect(real.stderr).toContain('notes/a.md has uncommitted changes');
    expect(lucid(['revert', 'HEAD~1', '--vault', tv.root], tv.env).code).toBe(1);
    expect(lucid(['revert', '--output=/tmp/x', '--vault', tv.root], tv.env).code).toBe(2);
    expect(freeze(tv)).toEqual(before);
  });

  it('lists and commits uncommitted notes', async () => {
    const { tv, vault } = await setUp();
    vault.close();
    tv.write('notes/b.md', 'bee, edited\n');
    const list = lucid(['uncommitted', '--diff', '--vault', tv.root], tv.env);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('modified notes/b.md');
    expect(list.stdout).toContain('+bee, edited');
    const commit = lucid(['commit-uncommitted', '--all', '--vault', tv.root], tv.env);
    expect(commit.code, commit.stderr).toBe(0);
    expect(trailersOf(tv, 'HEAD')['Lucid-Actor']).toBe(`human:${TEST_PERSON}`);
    expect(tv.read('notes/b.md')).toBe('bee, edited\n');
    expect(freeze(tv).status).toBe('');
  });
});
