import { afterEach, describe, expect, it } from 'vitest';
import { mergeClean, mergeFile } from '../../lib/vault/git/merge-file';
import type { Vault } from '../../lib/vault/vault';
import { installedVault, revertScratch, type TempVault } from '../support/revert-vault';

const BASE = 'one\ntwo\nthree\nfour\nfive\n';

describe('the one three-way merge of texts (git merge-file)', () => {
  let tv: TempVault;
  let vault: Vault;
  afterEach(() => tv?.cleanup());

  it('applies base -> theirs onto ours where they touch different lines, and leaves no scratch file', async () => {
    ({ tv, vault } = await installedVault());
    const ours = BASE.replace('one', 'ONE');
    const theirs = BASE.replace('five', 'FIVE');
    expect(await mergeFile(vault, { ours, base: BASE, theirs })).toEqual({ text: 'ONE\ntwo\nthree\nfour\nFIVE\n', conflicts: 0 });
    expect(await mergeClean(vault, { ours, base: BASE, theirs })).toBe('ONE\ntwo\nthree\nfour\nFIVE\n');
    expect(revertScratch(tv)).toEqual([]);
  });

  it('marks a conflict with the labels given and counts it; the clean merge refuses it', async () => {
    ({ tv, vault } = await installedVault());
    const ours = BASE.replace('three', 'mine');
    const theirs = BASE.replace('three', 'yours');
    const merged = await mergeFile(vault, { ours, base: BASE, theirs }, { ours: 'the note now', base: 'when proposed', theirs: 'the proposal' });
    expect(merged.conflicts).toBe(1);
    expect(merged.text).toContain('<<<<<<< the note now\nmine\n=======\nyours\n>>>>>>> the proposal\n');
    expect(await mergeClean(vault, { ours, base: BASE, theirs })).toBeNull();
    expect(revertScratch(tv)).toEqual([]);
  });

  it('takes the side that changed without running git when one side is the base', async () => {
    ({ tv, vault } = await installedVault());
    const changed = BASE.replace('two', 'TWO');
    expect(await mergeFile(vault, { ours: BASE, base: BASE, theirs: changed })).toEqual({ text: changed, conflicts: 0 });
    expect(await mergeFile(vault, { ours: changed, base: BASE, theirs: BASE })).toEqual({ text: changed, conflicts: 0 });
    expect(await mergeFile(vault, { ours: changed, base: BASE, theirs: changed })).toEqual({ text: changed, conflicts: 0 });
  });

  it('never hands a text that already held a conflict marker line to a caller that refuses conflicts', async () => {
    ({ tv, vault } = await installedVault());
    const ours = `<<<<<<< ours\n${BASE}`;
    const theirs = BASE.replace('five', 'FIVE');
    expect(await mergeClean(vault, { ours, base: BASE, theirs })).toBeNull();
  });
});
