import { describe, expect, it } from 'vitest';
import { parseRawDiff } from '../../lib/vault/history/reverse';

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
