import { describe, expect, it } from 'vitest';
import { parseStatus, parseStatusLines } from '../../lib/vault/git/status';

const z = (...tokens: string[]) => [...tokens, ''].join('\0');

describe('the lines of `git status --porcelain=v1 -z`', () => {
  it('reads a rename as two tokens, new path first, and goes on with the next line', () => {
    expect(parseStatusLines(z('R  notes/d-moved.md', 'notes/d.md', ' M notes/a.md', 'C  notes/copy.md', 'notes/orig.md', '?? notes/new.md'))).toEqual([
      { code: 'R ', path: 'notes/d-moved.md', oldPath: 'notes/d.md' },
      { code: ' M', path: 'notes/a.md', oldPath: null },
      { code: 'C ', path: 'notes/copy.md', oldPath: 'notes/orig.md' },
      { code: '??', path: 'notes/new.md', oldPath: null },
    ]);
  });

  it('takes names as they are: -z never quotes spaces, quotes, arrows, newlines or non-ASCII letters', () => {
    const odd = ['notes/with space.md', 'notes/"quoted".md', 'notes/a -> b.md', 'notes/two\nlines.md', 'notes/ünïcödé.md', 'notes/tab\there.md'];
    expect(parseStatusLines(z(...odd.map((p) => ` M ${p}`))).map((l) => l.path)).toEqual(odd);
    expect(parseStatusLines(z('R  notes/new "name".md', 'notes/old\nname.md'))).toEqual([
      { code: 'R ', path: 'notes/new "name".md', oldPath: 'notes/old\nname.md' },
    ]);
  });

  it('maps repository paths to the vault and leaves out the lines outside it, a rename from outside keeping no old path', () => {
    const toVault = (p: string) => (p.startsWith('vault/') ? p.slice(6) : null);
    expect(
      parseStatusLines(z(' M README.md', ' M vault/notes/a.md', 'R  vault/notes/in.md', 'elsewhere.md', 'R  out.md', 'vault/notes/x.md'), toVault),
    ).toEqual([
      { code: ' M', path: 'notes/a.md', oldPath: null },
      { code: 'R ', path: 'notes/in.md', oldPath: null },
    ]);
  });

  it('reads nothing from empty output', () => {
    expect(parseStatusLines('')).toEqual([]);
    expect(parseStatus('')).toEqual([]);
  });
});

describe('git status one entry per path', () => {
  it('gives modified, added, deleted, renamed, sorted by path', () => {
    const output = z(
      ' M notes/a.md',
      '?? notes/new.md',
      'D  notes/c.md',
      'R  notes/d-moved.md',
      'notes/d.md',
      ' D notes/e.md',
      'A  notes/staged.md',
      'MM notes/twice.md',
    );
    expect(parseStatus(output)).toEqual([
      { path: 'notes/a.md', oldPath: null, status: 'modified' },
      { path: 'notes/c.md', oldPath: null, status: 'deleted' },
      { path: 'notes/d-moved.md', oldPath: 'notes/d.md', status: 'renamed' },
      { path: 'notes/e.md', oldPath: null, status: 'deleted' },
      { path: 'notes/new.md', oldPath: null, status: 'added' },
      { path: 'notes/staged.md', oldPath: null, status: 'added' },
      { path: 'notes/twice.md', oldPath: null, status: 'modified' },
    ]);
  });

  it('counts a note deleted from the index but back on disk as modified, and an add deleted again as no change', () => {
    expect(parseStatus(z('D  notes/back.md', '?? notes/back.md', 'AD notes/never.md'))).toEqual([{ path: 'notes/back.md', oldPath: null, status: 'modified' }]);
  });

  it('counts a staged rename whose new file is gone from the disk as the old path deleted (all that differs from HEAD)', () => {
    expect(parseStatus(z('RD notes/moved.md', 'notes/orig.md'))).toEqual([{ path: 'notes/orig.md', oldPath: null, status: 'deleted' }]);
    expect(parseStatus(z('RM notes/moved.md', 'notes/orig.md'))).toEqual([{ path: 'notes/moved.md', oldPath: 'notes/orig.md', status: 'renamed' }]);
  });

  it('keeps the name of an odd path exactly', () => {
    expect(parseStatus(z('?? notes/"q" & ü\n.md'))).toEqual([{ path: 'notes/"q" & ü\n.md', oldPath: null, status: 'added' }]);
  });

  it('keeps only the paths inside the vault when it is a folder of a larger repository', () => {
    expect(parseStatus(z(' M README.md', ' M vault/notes/a.md'), (p) => (p.startsWith('vault/') ? p.slice(6) : null))).toEqual([
      { path: 'notes/a.md', oldPath: null, status: 'modified' },
    ]);
  });
});
