import { describe, expect, it } from 'vitest';
import { changedLines, personReason, revertedTarget } from '../../lib/vault/agents/corrections';
import { DEFAULT_LAYOUT } from '../../lib/vault/notes/layout';
import { changelogAttributes } from '../../lib/vault/init';
import { isNoteFile } from '../../lib/vault/notes/paths';

const SHA = '0123456789abcdef0123456789abcdef01234567';

describe("a person's words in a commit", () => {
  it("reads a plain commit's subject and body, and a Lucid commit's reason", () => {
    expect(personReason({ actor: null, subject: 'Fix the launch date', reason: 'It moved to May.\n\nAsk Ada first.' })).toBe(
      'Fix the launch date\n\nIt moved to May.\n\nAsk Ada first.',
    );
    expect(personReason({ actor: null, subject: 'Fix the launch date', reason: '' })).toBe('Fix the launch date');
    expect(personReason({ actor: 'human:Ada', subject: 'update notes/a.md', reason: 'new owner' })).toBe('new owner');
  });

  it("leaves out git's own revert line and keeps what the person added", () => {
    const reason = `This reverts commit ${SHA}.\n\nWe never deploy on Fridays.`;
    expect(personReason({ actor: null, subject: 'Revert "append notes/handbook.md"', reason })).toBe(
      'Revert "append notes/handbook.md"\n\nWe never deploy on Fridays.',
    );
    expect(personReason({ actor: null, subject: 'Revert "x"', reason: `This reverts commit ${SHA}, reversing\nchanges made to ${SHA}.` })).toBe('Revert "x"');
  });

  it('masks a secret a person pasted into a commit message', () => {
    const reason = personReason({ actor: null, subject: 'Rotate the key', reason: 'The old one was ghp_0123456789abcdefghijABCDEFGHIJ0123456789.' });
    expect(reason).toContain('Rotate the key');
    expect(reason).not.toContain('ghp_0123456789abcdefghij');
  });

  it('cuts a very long message', () => {
    const reason = personReason({ actor: null, subject: 's', reason: 'x'.repeat(5000) });
    expect(reason.length).toBe(1000);
    expect(reason.endsWith('…')).toBe(true);
  });
});

describe('what a revert undid', () => {
  it("recognises Lucid's trailers and git's own message", () => {
    expect(revertedTarget({ actor: 'human:Ada', trailers: { 'Lucid-Reverts': 'e7f3a9c2kq' }, reason: '' })).toEqual({ edit: 'e7f3a9c2kq' });
    expect(revertedTarget({ actor: 'human:Ada', trailers: { 'Lucid-Reverts-Commit': SHA }, reason: '' })).toEqual({ sha: SHA });
    expect(revertedTarget({ actor: null, trailers: {}, reason: `This reverts commit ${SHA}.` })).toEqual({ sha: SHA });
    expect(revertedTarget({ actor: null, trailers: {}, reason: 'Some words.\n\nThis reverts commit 0123abc.' })).toEqual({ sha: '0123abc' });
  });

  it('is not fooled by the words in the middle of a line or by a short id', () => {
    expect(revertedTarget({ actor: null, trailers: {}, reason: `I wrote: This reverts commit ${SHA}.` })).toBeNull();
    expect(revertedTarget({ actor: null, trailers: {}, reason: 'This reverts commit abc.' })).toBeNull();
    expect(revertedTarget({ actor: 'human:Ada', trailers: {}, reason: 'fixed a typo' })).toBeNull();
    // A person's own "Lucid-Reverts:" line is not Lucid's trailer.
    expect(revertedTarget({ actor: null, trailers: { 'Lucid-Reverts': 'e1' }, reason: 'Lucid-Reverts: e1' })).toBeNull();
  });
});

describe('changed lines of a diff', () => {
  const patch = [
    'diff --git a/notes/a.md b/notes/a.md',
    'index 1111111..2222222 100644',
    '--- a/notes/a.md',
    '+++ b/notes/a.md',
    '@@ -3 +3,2 @@ title',
    '-The launch is in April.',
    '+The launch is in May.',
    '+',
    'diff --git a/notes/b.md b/notes/b.md',
    '--- a/notes/b.md',
    '+++ b/notes/b.md',
    '@@ -1 +1 @@',
    '-token: ghp_0123456789abcdefghijABCDEFGHIJ0123456789\r',
    '+token: (in the vault)',
    '',
  ].join('\n');

  it('keeps + and - lines from hunks only, marks empty ones bare, and masks secrets', () => {
    const { lines, more } = changedLines(patch);
    expect(lines).toEqual(['- The launch is in April.', '+ The launch is in May.', '+', expect.stringMatching(/^- token: /), '+ token: (in the vault)']);
    expect(lines[3]).not.toContain('ghp_0123456789');
    expect(more).toBe(0);
  });

  it('masks a key whose lines were removed together', () => {
    const key = [
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
      '-----END OPENSSH PRIVATE KEY-----',
    ];
    const { lines } = changedLines(['@@ -1,3 +0,0 @@', ...key.map((l) => `-${l}`), ''].join('\n'));
    expect(lines.join('\n')).not.toContain('b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ');
    expect(lines.every((l) => l.startsWith('-'))).toBe(true);
  });

  it('says how many lines it left out and cuts long ones', () => {
    const many = ['@@ -0,0 +1,30 @@', ...Array.from({ length: 30 }, (_, i) => `+line ${i} ${'y'.repeat(i === 0 ? 400 : 0)}`)].join('\n');
    const { lines, more } = changedLines(many, 12);
    expect(lines).toHaveLength(12);
    expect(more).toBe(18);
    expect(lines[0].length).toBe(200);
    expect(lines[0].endsWith('…')).toBe(true);
  });
});

describe('which files are notes', () => {
  it('takes markdown files outside dot-folders and node_modules', () => {
    expect(isNoteFile('notes/a.md')).toBe(true);
    expect(isNoteFile('Notes/A.MD')).toBe(true);
    expect(isNoteFile('.obsidian/app.json')).toBe(false);
    expect(isNoteFile('.obsidian/snippets/x.md')).toBe(false);
    expect(isNoteFile('.trash/old.md')).toBe(false);
    expect(isNoteFile('notes/.hidden.md')).toBe(false);
    expect(isNoteFile('lib/node_modules/pkg/README.md')).toBe(false);
    expect(isNoteFile('attachments/image.png')).toBe(false);
  });
});

describe('the .gitattributes lines for the changelog', () => {
  it("anchors the changelog's names at the vault's folder, escaping what a pattern would read", () => {
    expect(changelogAttributes(DEFAULT_LAYOUT)).toEqual(['/changelog.md merge=union', '/changelog/*.md merge=union']);
    expect(changelogAttributes({ ...DEFAULT_LAYOUT, changelog: 'lucid-changelog.md', changelogArchive: 'Lucid Log [old]' })).toEqual([
      '/lucid-changelog.md merge=union',
      '/Lucid?Log?\\[old\\]/*.md merge=union',
    ]);
  });
});
