import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeFs } from '../../lib/vault/fs';
import { readConfinedMany } from '../../lib/vault/write/confine-read';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const openFds = () => fs.readdirSync('/proc/self/fd').length;

describe.skipIf(process.platform !== 'linux')('readConfinedMany', () => {
  let temp: TempVault;
  afterEach(() => temp?.cleanup());

  it('closes each folder once its files are read: a vault of many folders never holds them all open', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i += 1) files[`f${String(i).padStart(3, '0')}/n.md`] = `Note ${i}.\n`;
    temp = makeTempVault(files);
    const before = openFds();
    let most = 0;
    const read: string[] = [];
    await readConfinedMany(nodeFs, temp.root, Object.keys(files).sort(), (rel, result) => {
      expect(result).not.toBeInstanceOf(Error);
      read.push(rel);
      most = Math.max(most, openFds() - before);
    });
    expect(read).toHaveLength(400);
    // 16 files in flight, each at most one folder and one file open (and a little slack for Node itself).
    expect(most).toBeLessThan(60);
    expect(openFds()).toBeLessThanOrEqual(before);
  });
});
