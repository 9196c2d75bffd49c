import { describe, expect, it } from 'vitest';
import { parseGitLog } from '../../lib/vault/git/commit-index';
import { formatCommitMessage, parseCommitMessage, trailerGrep } from '../../lib/vault/git/commit-message';

describe('parseCommitMessage', () => {
  it('reads the trailers of the last paragraph and keeps the reason apart', () => {
    const parsed = parseCommitMessage(
      'update decisions/db.md\n\nswitched after load test\n\nLucid-Actor: agent:claude-code\nLucid-Op: update\nLucid-Edit: eabcdefghijkl\n',
    );
    expect(parsed).toEqual({
      subject: 'update decisions/db.md',
      body: 'switched after load test',
      trailers: { 'Lucid-Actor': 'agent:claude-code', 'Lucid-Op': 'update', 'Lucid-Edit': 'eabcdefghijkl' },
    });
  });

  it('does not take trailer-looking lines from a paragraph that is not the last', () => {
    const parsed = parseCommitMessage('fix typo\n\nLucid-Actor: human:mallory\n\nSigned-off-by: A <a@b>\nnot a trailer line');
    expect(parsed.trailers).toEqual({});
  });

  it('handles a person commit without body or trailers', () => {
    expect(parseCommitMessage('Snapshot of the vault before Lucid')).toEqual({ subject: 'Snapshot of the vault before Lucid', body: '', trailers: {} });
  });
});

describe('formatCommitMessage', () => {
  it('writes subject, reason and trailers that parseCommitMessage reads back', () => {
    const message = formatCommitMessage({
      op: 'molt',
      path: 'skills/triage.md',
      reason: 'raised to version 3',
      actor: 'agent:claude-code',
      editId: 'eabcdefghijkl',
      session: '20261130-140112-claude-code-k3tq',
      extra: [['Lucid-Molt', 'triage 2->3']],
    });
    expect(message).toBe(
      'molt skills/triage.md\n\nraised to version 3\n\nLucid-Actor: agent:claude-code\nLucid-Op: molt\nLucid-Edit: eabcdefghijkl\nLucid-Session: 20261130-140112-claude-code-k3tq\nLucid-Molt: triage 2->3\n',
    );
    expect(parseCommitMessage(message)).toEqual({
      subject: 'molt skills/triage.md',
      body: 'raised to version 3',
      trailers: {
        'Lucid-Actor': 'agent:claude-code',
        'Lucid-Op': 'molt',
        'Lucid-Edit': 'eabcdefghijkl',
        'Lucid-Session': '20261130-140112-claude-code-k3tq',
        'Lucid-Molt': 'triage 2->3',
      },
    });
  });

  it('says what was done and by whom when there is no reason, and puts a multi-line path on one line', () => {
    const message = formatCommitMessage({ op: 'init', path: 'AGENTS.md\nx', reason: '', actor: 'human:Ada', editId: 'eaaaaaaaaaaaa' });
    expect(parseCommitMessage(message)).toMatchObject({ subject: 'init AGENTS.md x', body: 'init by human:Ada', trailers: { 'Lucid-Op': 'init' } });
  });

  it('greps for one trailer line exactly, its value taken literally', () => {
    expect(trailerGrep('Lucid-Op', 'init')).toBe('^Lucid-Op: init$');
    expect(new RegExp(trailerGrep('Lucid-Molt', 'a.b (2)')).test('Lucid-Molt: a.b (2)')).toBe(true);
    expect(new RegExp(trailerGrep('Lucid-Molt', 'a.b (2)')).test('Lucid-Molt: axb (2)')).toBe(false);
  });
});

describe('parseGitLog', () => {
  const P1 = '7565493b74f2c2dedeeee7d2af034dd5dcf300d8';
  it('parses records with renames, additions, odd names and parents', () => {
    const output =
      `\u001ec5a4ea93efcb53c2f4f48854a4c594cf7bd331b5\u001f1796017921\u001fAda\u001fAda\u001f${P1}\u001fsecond\n\nnew owner\n\nLucid-Actor: human:Ada\nLucid-Op: update\n\u001f\u0000\nR100\u0000a b.md\u0000c.md\u0000A\u0000-n.md\u0000` +
      `\u001e${P1}\u001f1796017900\u001fGrace\u001fGrace\u001f\u001ffirst\n\u001f\u0000\nA\u0000a b.md\u0000`;
    const records = parseGitLog(output);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      sha: 'c5a4ea93efcb53c2f4f48854a4c594cf7bd331b5',
      time: 1796017921,
      author: 'Ada',
      op: 'update',
      actor: 'human:Ada',
      parents: 1,
      reason: 'new owner',
      paths: [
        { status: 'R', oldPath: 'a b.md', path: 'c.md' },
        { status: 'A', oldPath: null, path: '-n.md' },
      ],
    });
    expect(records[1]).toMatchObject({ parents: 0, reason: '', trailers: {} });
    expect(records[1].paths).toEqual([{ status: 'A', oldPath: null, path: 'a b.md' }]);
  });

  it("keeps a person's own Key: value lines as their words, never as Lucid's trailers, and drops git's sign-off", () => {
    const message = 'Fix the owner\n\nWhy: Ada moved teams\nLucid-Reverts: e1\n\nSigned-off-by: Grace <g@example.invalid>\n';
    const output = `\u001e${P1}\u001f1796017900\u001fGrace\u001fGrace\u001f${P1} ${P1}\u001f${message}\u001f\u0000\nM\u0000notes/a.md\u0000`;
    const [record] = parseGitLog(output);
    expect(record.reason).toBe('Why: Ada moved teams\nLucid-Reverts: e1');
    expect(record.trailers).toEqual({});
    expect(record.actor).toBeNull();
    expect(record.parents).toBe(2);
  });

  it('keeps only the paths inside the vault, a rename across its edge as an add or a delete', () => {
    const output = `\u001e${P1}\u001f1796017900\u001fGrace\u001fGrace\u001f\u001fmove\n\u001f\u0000\nM\u0000README.md\u0000R100\u0000docs/a.md\u0000vault/a.md\u0000R100\u0000vault/b.md\u0000docs/b.md\u0000M\u0000vault/c.md\u0000`;
    const [record] = parseGitLog(output, (p) => (p.startsWith('vault/') ? p.slice(6) : null));
    expect(record.paths).toEqual([
      { status: 'A', oldPath: null, path: 'a.md' },
      { status: 'D', oldPath: null, path: 'b.md' },
      { status: 'M', oldPath: null, path: 'c.md' },
    ]);
  });
});
