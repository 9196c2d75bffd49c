import { afterEach, describe, expect, it } from 'vitest';
import { makeTempVault, type TempVault } from '../support/temp-vault';

let vault: TempVault;
afterEach(() => vault?.cleanup());

/** 2026-11-10 00:00 UTC, in seconds: the day the crafted history starts. */
const DAY0 = Date.UTC(2026, 10, 10) / 1000;
const DAY = 86_400;

/** A person's own commit of `files`, dated `at` (seconds), made with raw git as a person would. */
function personCommit(v: TempVault, files: Record<string, string>, message: string, at: number): string {
  for (const [rel, text] of Object.entries(files)) v.write(rel, text);
  v.git(['add', '--', ...Object.keys(files)]);
  v.git(['commit', '-q', '-m', message, `--date=@${at} +0000`]);
  return v.head();
}

describe('the commit index filters the changelog page needs', () => {
  it('keeps the commits of a note type by the folders of the vault layout, lucid.json included', async () => {
    vault = makeTempVault({ 'lucid.json': '{"version": 1, "paths": {"decisions": "Choices"}}\n' });
    const choice = personCommit(vault, { 'Choices/queue.md': 'a\n' }, 'a decision', DAY0);
    const both = personCommit(vault, { 'Choices/queue.md': 'b\n', 'people/ada.md': 'ada\n' }, 'a decision and a person', DAY0 + 60);
    personCommit(vault, { 'Choices-old/x.md': 'x\n', 'Choices.md': 'y\n', 'decisions/not-here.md': 'z\n' }, 'look-alike names', DAY0 + 120);
    const skill = personCommit(vault, { 'skills/archive/old.md': 'old\n' }, 'an archived skill', DAY0 + 180);
    const v = await vault.open();
    expect((await v.log({ type: 'decision' })).map((c) => c.sha)).toEqual([both, choice]);
    expect((await v.log({ type: 'person' })).map((c) => c.sha)).toEqual([both]);
    expect((await v.log({ type: 'skill' })).map((c) => c.sha)).toEqual([skill]);
    expect(await v.log({ type: 'report' })).toEqual([]);
    expect((await v.log({ folders: ['Choices', 'skills'] })).map((c) => c.sha)).toEqual([skill, both, choice]);
    v.close();
  });

  it('keeps a date range with both ends inclusive, and pages through it by sequence number', async () => {
    vault = makeTempVault();
    const shas = [0, 1, 2, 3, 4].map((d) => personCommit(vault, { [`n${d}.md`]: `${d}\n` }, `day ${d}`, DAY0 + d * DAY));
    const v = await vault.open();
    const range = { since: DAY0 + DAY, until: DAY0 + 3 * DAY };
    expect((await v.log(range)).map((c) => c.sha)).toEqual([shas[3], shas[2], shas[1]]);
    expect((await v.log({ until: DAY0 + 3 * DAY - 1 })).map((c) => c.sha)).toEqual([shas[2], shas[1], shas[0]]);
    const first = await v.log({ ...range, limit: 2 });
    expect(first.map((c) => c.sha)).toEqual([shas[3], shas[2]]);
    const older = await v.log({ ...range, limit: 2, beforeSeq: first[1].seq });
    expect(older.map((c) => c.sha)).toEqual([shas[1]]);
    // The page just newer than a cursor, oldest first: what the page's "Newer" link starts from.
    const newer = await v.log({ ...range, limit: 2, afterSeq: older[0].seq, oldestFirst: true });
    expect(newer.map((c) => c.sha)).toEqual([shas[2], shas[3]]);
    expect((await v.commits()).countWhere(range)).toBe(3);
    v.close();
  });

  it("tells Lucid's commits from the ones Lucid did not make, and lists the actors", async () => {
    vault = makeTempVault({ 'a.md': 'a\n' });
    const v = await vault.open();
    const note = await v.readNote('a.md');
    const agent = await v.edit({
      actor: 'agent:tester',
      op: 'update',
      path: 'a.md',
      reason: 'r',
      changes: [{ path: 'a.md', content: 'b\n', expectedHash: note.hash }],
    });
    const own = personCommit(vault, { 'b.md': 'mine\n' }, 'my own note', DAY0 + 10 * DAY);
    const lucid = await v.edit({ actor: v.person, op: 'create', path: 'c.md', reason: 'new', changes: [{ path: 'c.md', content: 'c\n', expectedHash: null }] });
    const initial = vault.git(['rev-list', '--max-parents=0', 'HEAD']).trim();
    expect((await v.log({ foreign: true })).map((c) => c.sha)).toEqual([own, initial]);
    expect((await v.log({ foreign: false })).map((c) => c.sha)).toEqual([lucid.commit, agent.commit]);
    expect((await v.log({ foreign: true, people: true })).map((c) => c.sha)).toEqual([own, initial]);
    expect((await v.commits()).actors()).toEqual(['agent:tester', v.person]);
    v.close();
  });

  it('holds a merge made with git, even one whose tree is its second parent (git merge --no-ff)', async () => {
    vault = makeTempVault({ 'a.md': 'a\n' });
    vault.git(['switch', '-q', '-c', 'side']);
    const side = personCommit(vault, { 'b.md': 'b\n' }, 'on a branch', DAY0);
    vault.git(['switch', '-q', 'main']);
    vault.git(['merge', '-q', '--no-ff', '-m', 'merge side', 'side']);
    const merge = vault.head();
    const v = await vault.open();
    const [top, ...rest] = await v.log();
    expect(top).toMatchObject({ sha: merge, parents: 2, subject: 'merge side', actor: null });
    expect(rest.map((c) => c.sha)).toContain(side);
    expect((await v.commits()).bySha(merge)?.parents).toBe(2);
    v.close();
  });
});
