import { describe, expect, it } from 'vitest';
import { parseRawDiff } from '../../lib/vault/history/reverse';
import { parseStatusEntries } from '../../lib/vault/history/uncommitted';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const Z = '0'.repeat(40);

describe('parseRawDiff', () => {
  it('reads additions, deletions, changes and renames of `git diff-tree --raw -z`, odd names included', () => {
    const output = [
      `:000000 100644 ${Z} ${A} A`,
      'notes/new.md',
      `:100644 000000 ${B} ${Z} D`,
      '-n.md',
      `:100644 100644 ${A} ${B} M`,
      'notes/with space.md',
      `:100644 100644 ${A} ${B} R087`,
      'notes/old.md',
      'archive/old.md',
      '',
    ].join('\0');
    expect(parseRawDiff(output)).toEqual([
      { status: 'A', oldMode: '000000', newMode: '100644', oldBlob: Z, newBlob: A, path: 'notes/new.md', oldPath: null },
      { status: 'D', oldMode: '100644', newMode: '000000', oldBlob: B, newBlob: Z, path: '-n.md', oldPath: null },
      { status: 'M', oldMode: '100644', newMode: '100644', oldBlob: A, newBlob: B, path: 'notes/with space.md', oldPath: null },
      { status: 'R', oldMode: '100644', newMode: '100644', oldBlob: A, newBlob: B, path: 'archive/old.md', oldPath: 'notes/old.md' },
    ]);
    expect(parseRawDiff('')).toEqual([]);
  });
});

describe('parseStatusEntries', () => {
  it('reads `git status --porcelain=v1 -z` with renames: one entry per path', () => {
    const output = [' M notes/a.md', '?? notes/new.md', 'D  notes/c.md', 'R  notes/d-moved.md', 'notes/d.md', 'AD notes/gone.md', ' D notes/e.md', ''].join(
      '\0',
    );
    expect(parseStatusEntries(output)).toEqual([
      { path: 'notes/a.md', oldPath: null, status: 'modified' },
      { path: 'notes/c.md', oldPath: null, status: 'deleted' },
      { path: 'notes/d-moved.md', oldPath: 'notes/d.md', status: 'renamed' },
      { path: 'notes/e.md', oldPath: null, status: 'deleted' },
      { path: 'notes/new.md', oldPath: null, status: 'added' },
    ]);
  });

  it('maps repository paths to the vault and leaves out the rest', () => {
    const output = [' M vault/notes/a.md', ' M elsewhere.md', ''].join('\0');
    expect(parseStatusEntries(output, (p) => (p.startsWith('vault/') ? p.slice(6) : null))).toEqual([
      { path: 'notes/a.md', oldPath: null, status: 'modified' },
    ]);
  });

  it('counts a note deleted from the index but back on disk as modified', () => {
    expect(parseStatusEntries(['D  notes/a.md', '?? notes/a.md', ''].join('\0'))).toEqual([{ path: 'notes/a.md', oldPath: null, status: 'modified' }]);
  });
});
