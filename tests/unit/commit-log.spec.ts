import { describe, expect, it } from 'vitest';
import { parseCommitMessage, parseGitLog } from '../../lib/vault/git/commit-index';

describe('parseCommitMessage', () => {
  it('reads the trailers of the last paragraph and keeps the reason apart', () => {
    const parsed = parseCommitMessage('update decisions/db.md\n\nswitched after load test\n\nLucid-Actor: agent:claude-code\nLucid-Op: update\nLucid-Edit: eabcdefghijkl\n');
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

describe('parseGitLog', () => {
  it('parses records with renames, additions and odd names', () => {
    const output =
      '\u001ec5a4ea93efcb53c2f4f48854a4c594cf7bd331b5\u001f1796017921\u001fAda\u001fsecond\n\nLucid-Op: update\n\u001f\u0000\nR100\u0000a b.md\u0000c.md\u0000A\u0000-n.md\u0000' +
      '\u001e7565493b74f2c2dedeeee7d2af034dd5dcf300d8\u001f1796017900\u001fGrace\u001ffirst\n\u001f\u0000\nA\u0000a b.md\u0000';
    const records = parseGitLog(output);
    expect(records).toHaveLength(2);
    expect(records[0]).toMatchObject({
      sha: 'c5a4ea93efcb53c2f4f48854a4c594cf7bd331b5',
      time: 1796017921,
      author: 'Ada',
      op: 'update',
      actor: null,
      paths: [
        { status: 'R', oldPath: 'a b.md', path: 'c.md' },
        { status: 'A', oldPath: null, path: '-n.md' },
      ],
    });
    expect(records[1].paths).toEqual([{ status: 'A', oldPath: null, path: 'a b.md' }]);
  });
});
