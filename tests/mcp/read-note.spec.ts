import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReadNoteResult } from '../../lib/vault/agents/contract-read';
import { initVault, openVault } from '../../lib/vault/index';
import { copyFixture, haveFixtures, testGitEnv, commitAsOwner } from '../support/fixtures';
import { cleanedAfterEach, openWithMcp, connectInMemory, ok, textOf, type McpPair } from '../support/mcp';
import { makeTempVault, sha256, snapshot, type TempVault } from '../support/temp-vault';

/** Issue 12: read_note finds a note as a person looks it up, pages long notes, and names titles. */

const JANE = `---
aliases: [JD, Janie]
tags: [crm]
---
# Jane Doe

Our contact at [[Acme Corp]].

## Role

Head of sales since 2024.

### Since

March, after [[people/bob|Bob]] left.

## Contact

jane@example.invalid
`;

/** About 77,500 characters in 29 sections, with letters outside the BMP, so a page could split a pair. */
function longNote(): string {
  const parts = ['# Handbook of everything', ''];
  for (let i = 1; i <= 29; i += 1) {
    parts.push(`## Part ${i}`, '');
    for (let p = 0; p < 10; p += 1) parts.push(`Paragraph ${p} of part ${i}: ${'the quick brown fox 🦊 jumps over the lazy dog. '.repeat(5)}`, '');
  }
  return `${parts.join('\n')}\n`;
}

const FILES: Record<string, string> = {
  'Databases/CRM/Jane Doe.md': JANE,
  'Acme Corp.md': '# Acme Corp\n\nA customer. Ask [[Jane Doe]].\n',
  'people/bob.md': '---\ntype: person\nname: Bob Stone\n---\n\nLeft in 2024. Knew [[Jane Doe|Jane]].\n',
  'projects/test-project-2.md': '---\ntype: project\nname: Test Project 2\nstatus: active\n---\n\nThe second test project, about invoices.\n',
  'notes/titled.md': '---\ntitle: The titled note\n---\n# A heading that loses\n',
  'notes/headed.md': 'Intro line.\n\n# The headed note\n\nText.\n',
  'notes/bare.md': 'Only text here, nothing else.\n',
  'a/Shared.md': '# Shared name\n',
  'b/deeper/Other.md': '# Shared name\n',
  'notes/long.md': longNote(),
};

const lists = cleanedAfterEach();
const { vaults, opened, pairs } = lists;

async function setup(files: Record<string, string> = FILES): Promise<{ tv: TempVault; mcp: McpPair }> {
  const { tv, mcp } = await openWithMcp(lists, files);
  return { tv, mcp };
}

const read = async (mcp: McpPair, args: Record<string, unknown>) => ok<ReadNoteResult>(await mcp.call('read_note', args));

describe('read_note finds a note as a person looks it up', () => {
  it('by file name, title, alias and wikilink, with Obsidian resolution, and writes nothing', async () => {
    const { tv, mcp } = await setup();
    const before = snapshot(tv.root);
    const jane = 'Databases/CRM/Jane Doe.md';
    for (const [given, by] of [
      ['Jane Doe', 'link'],
      ['jane doe', 'link'],
      ['[[Jane Doe]]', 'link'],
      ['[[Jane Doe|her]]', 'link'],
      ['[[CRM/Jane Doe]]', 'link'],
      ['Janie', 'alias'],
      ['[[JD]]', 'alias'],
      [jane, 'path'],
      ['Databases/CRM/Jane Doe', 'path'],
    ] as const) {
      const note = await read(mcp, { path: given });
      expect({ given, path: note.path, by: note.matched_by }).toEqual({ given, path: jane, by });
      expect(note.hash).toBe(sha256(tv.readBytes(jane)));
    }
    const project = await read(mcp, { path: 'Test Project 2' });
    expect(project).toMatchObject({ path: 'projects/test-project-2.md', matched_by: 'title', title: 'Test Project 2', other_matches: [] });
    const headed = await read(mcp, { path: '[[the headed note]]' });
    expect(headed).toMatchObject({ path: 'notes/headed.md', matched_by: 'title' });
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('several notes with one title: the shortest path, the others named', async () => {
    const { mcp } = await setup();
    const shared = await read(mcp, { path: 'Shared name' });
    expect(shared).toMatchObject({ path: 'a/Shared.md', matched_by: 'title', other_matches: [{ path: 'b/deeper/Other.md', title: 'Shared name' }] });
  });

  it('a near miss is not_found with the closest notes, so one more call finds it', async () => {
    const { mcp } = await setup();
    const miss = await mcp.call('read_note', { path: 'Jane Dough' });
    expect(miss.isError).toBe(true);
    expect(textOf(miss)).toBe(
      'No file Jane Dough.md in this vault, and no note has "Jane Dough" as its file name, title or alias. Closest: Databases/CRM/Jane Doe.md. Read one of them by its path.',
    );
    const titled = await mcp.call('read_note', { path: '[[Test Projct 2]]' });
    expect(textOf(titled)).toContain('Closest: projects/test-project-2.md ("Test Project 2")');
    const nothing = await mcp.call('read_note', { path: 'notes/zzqx.md' });
    expect(textOf(nothing)).toBe(
      'No file notes/zzqx.md in this vault, and no note has "zzqx" as its file name, title or alias. Search for it with search_notes.',
    );
    const outside = await mcp.call('read_note', { path: '../../etc/passwd.md' });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toMatch(/leads outside the vault/);
  });
});

describe('read_note pages a long note and reads sections', () => {
  it('a paged read returns the whole file hash, the total size and the next offset; the pages make the body', async () => {
    const { tv, mcp } = await setup();
    const text = tv.read('notes/long.md');
    expect(text.length).toBeGreaterThan(75_000);
    const fileHash = sha256(tv.readBytes('notes/long.md'));
    const whole = await read(mcp, { path: 'notes/long.md', max_chars: 100_000 });
    expect(whole).toMatchObject({ offset: 0, end: text.length, total_chars: text.length, next_offset: null, hash: fileHash });
    expect(whole.body).toBe(text);

    const first = await read(mcp, { path: 'notes/long.md' });
    expect(first.hash).toBe(fileHash);
    expect(first.hash).toBe(whole.hash);
    expect(first).toMatchObject({ offset: 0, total_chars: text.length, size: Buffer.byteLength(text), section: null });
    expect(first.body.length).toBeLessThanOrEqual(20_000);
    expect(first.body.length).toBeGreaterThan(10_000);
    expect(first.next_offset).toBe(first.end);
    expect(first.body.endsWith('\n')).toBe(true);
    expect(first.headings.slice(0, 3)).toEqual([
      { level: 1, text: 'Handbook of everything', offset: 0 },
      { level: 2, text: 'Part 1', offset: text.indexOf('## Part 1\n') },
      { level: 2, text: 'Part 2', offset: text.indexOf('## Part 2\n') },
    ]);
    expect(first.headings).toHaveLength(30);

    let joined = first.body;
    let next = first.next_offset;
    let pages = 1;
    while (next !== null) {
      const page = await read(mcp, { path: 'notes/long.md', offset: next });
      expect(page.offset).toBe(next);
      expect(page.hash).toBe(fileHash);
      joined += page.body;
      next = page.next_offset;
      pages += 1;
    }
    expect(pages).toBe(4);
    expect(joined).toBe(text);

    // Tiny pages never split a character outside the BMP.
    const fox = text.indexOf('🦊');
    const tiny = await read(mcp, { path: 'notes/long.md', offset: fox, max_chars: 1 });
    expect(tiny.body).toBe('🦊');
    expect(tiny.next_offset).toBe(fox + 2);

    const past = await mcp.call('read_note', { path: 'notes/long.md', offset: text.length + 1 });
    expect(textOf(past)).toBe(
      `offset ${text.length + 1} is outside the body, which has ${text.length} characters. Pass the next_offset a previous read returned.`,
    );
    const bad = await mcp.call('read_note', { path: 'notes/long.md', max_chars: 0 });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/max_chars must be a whole number from 1 to 100000/);
  });

  it('reads a section by its heading, a nested one, and one named in a wikilink', async () => {
    const { mcp } = await setup();
    const role = await read(mcp, { path: 'Jane Doe', section: 'role' });
    expect(role).toMatchObject({
      section: 'Role',
      body: '## Role\n\nHead of sales since 2024.\n\n### Since\n\nMarch, after [[people/bob|Bob]] left.\n\n',
      next_offset: null,
    });
    expect(role.offset).toBe(JANE.indexOf('## Role') - JANE.indexOf('# Jane Doe'));
    const since = await read(mcp, { path: '[[Jane Doe#Role#Since]]' });
    expect(since).toMatchObject({ section: 'Since', body: '### Since\n\nMarch, after [[people/bob|Bob]] left.\n\n' });
    const linked = await read(mcp, { path: '[[Jane Doe#Contact|mail her]]' });
    expect(linked.body).toBe('## Contact\n\njane@example.invalid\n');

    const paged = await read(mcp, { path: 'notes/long.md', section: 'Part 7', max_chars: 1000 });
    expect(paged.section).toBe('Part 7');
    expect(paged.body.startsWith('## Part 7\n')).toBe(true);
    expect(paged.next_offset).toBe(paged.end);
    const rest = await read(mcp, { path: 'notes/long.md', section: 'Part 7', offset: paged.next_offset, max_chars: 100_000 });
    expect(rest.next_offset).toBeNull();
    expect(`${paged.body}${rest.body}`.endsWith('\n\n')).toBe(true);
    expect(`${paged.body}${rest.body}`).not.toContain('## Part 8');

    const missing = await mcp.call('read_note', { path: 'Jane Doe', section: 'Salary' });
    expect(textOf(missing)).toBe(
      'Databases/CRM/Jane Doe.md has no heading "Salary". Its headings: "Jane Doe", "Role", "Since", "Contact". Read it without section, or with one of these.',
    );
  });
});

describe('read_note names links and backlinks with their titles, bounded', () => {
  it('gives each link its resolved path and title, and each backlink its title', async () => {
    const { mcp } = await setup();
    const jane = await read(mcp, { path: 'Jane Doe' });
    expect(jane.title).toBe('Jane Doe');
    expect(jane.links).toEqual([
      { raw: '[[Acme Corp]]', target: 'Acme Corp', resolved: 'Acme Corp.md', title: 'Acme Corp' },
      { raw: '[[people/bob|Bob]]', target: 'people/bob', resolved: 'people/bob.md', title: 'Bob Stone' },
    ]);
    expect(jane.backlinks).toEqual([
      { from: 'Acme Corp.md', line: 3, title: 'Acme Corp' },
      { from: 'people/bob.md', line: 2, title: 'Bob Stone' },
    ]);
    expect(jane).toMatchObject({ more_links: 0, more_backlinks: 0 });
  });

  it('returns at most 100 links and 50 backlinks, and counts the rest', async () => {
    const files: Record<string, string> = { 'hub.md': `# Hub\n\n${Array.from({ length: 120 }, (_, i) => `- [[spoke-${i}]]`).join('\n')}\n` };
    for (let i = 0; i < 60; i += 1) files[`spoke-${i}.md`] = `# Spoke ${i}\n\nBack to [[hub]].\n`;
    const { mcp } = await setup(files);
    const hub = await read(mcp, { path: 'Hub' });
    expect(hub.links).toHaveLength(100);
    expect(hub.more_links).toBe(20);
    expect(hub.links[0]).toEqual({ raw: '[[spoke-0]]', target: 'spoke-0', resolved: 'spoke-0.md', title: 'Spoke 0' });
    expect(hub.links[99]).toEqual({ raw: '[[spoke-99]]', target: 'spoke-99', resolved: null, title: null });
    expect(hub.backlinks).toHaveLength(50);
    expect(hub.more_backlinks).toBe(10);
  });
});

describe("a note's title is the same in every tool", () => {
  it('read_note, search_notes and the session note agree on the rule', async () => {
    const { tv, mcp } = await setup();
    const titles: Record<string, string> = {
      'notes/titled.md': 'The titled note',
      'projects/test-project-2.md': 'Test Project 2',
      'notes/headed.md': 'The headed note',
      'notes/bare.md': 'bare',
    };
    for (const [notePath, title] of Object.entries(titles)) expect((await read(mcp, { path: notePath })).title).toBe(title);
    const hits = ok<{ results: { path: string; title: string }[] }>(await mcp.call('search_notes', { query: 'second test project invoices' }));
    expect(hits.results[0]).toMatchObject({ path: 'projects/test-project-2.md', title: 'Test Project 2' });

    const { session } = ok<{ session: string }>(await mcp.call('start_session', { agent: 'claude-code', task: 'update the CRM' }));
    await read(mcp, { path: '[[Jane Doe]]' });
    const ended = ok<{ path: string }>(await mcp.call('end_session', { session, summary: 'read Jane', outcome: 'done' }));
    expect(tv.read(ended.path)).toContain('Databases/CRM/Jane Doe');
  });
});

describe('lucid read takes the same inputs', () => {
  it('finds a note by title and prints a section, a page (the next offset on stderr) or the JSON', async () => {
    const tv = makeTempVault(FILES);
    vaults.push(tv);
    const lucid = (args: string[]) => {
      const result = spawnSync(path.resolve('bin/lucid'), ['read', '--vault', tv.root, ...args], {
        cwd: tv.tempDir('cwd'),
        encoding: 'utf8',
        env: { ...tv.env, LUCID_USER: 'Cli Person' } as unknown as NodeJS.ProcessEnv,
        timeout: 60_000,
      });
      return { code: result.status, stdout: result.stdout, stderr: result.stderr };
    };
    const whole = lucid(['Janie']);
    expect(whole).toEqual({ code: 0, stdout: JANE, stderr: '' });
    const section = lucid(['[[Jane Doe]]', '--section', 'Contact']);
    expect(section).toEqual({ code: 0, stdout: '## Contact\n\njane@example.invalid\n', stderr: '' });
    const page = lucid(['notes/long.md', '--offset', '10', '--max-chars', '500', '--json']);
    expect(page.code, page.stderr).toBe(0);
    const parsed = JSON.parse(page.stdout) as ReadNoteResult;
    expect(parsed).toMatchObject({ path: 'notes/long.md', offset: 10, hash: sha256(tv.readBytes('notes/long.md')) });
    expect(parsed.next_offset).toBe(parsed.end);
    const plain = lucid(['notes/long.md', '--max-chars', '500']);
    expect(plain.code).toBe(0);
    const told = /^notes\/long\.md: characters 0 to (\d+) of (\d+); next part: offset (\d+) \(hash ([0-9a-f]{64})\)\.\n$/.exec(plain.stderr);
    expect(told, plain.stderr).not.toBeNull();
    const [, end, total, nextOffset, hash] = told ?? [];
    expect({ total: Number(total), next: Number(nextOffset), hash }).toEqual({ total: tv.read('notes/long.md').length, next: Number(end), hash: parsed.hash });
    expect(plain.stdout).toBe(tv.read('notes/long.md').slice(0, Number(end)));
    const bad = lucid(['notes/long.md', '--offset', 'ten']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/offset must be a whole number from 0/);
  });
});

describe.skipIf(!haveFixtures)('read_note on a lucid init-ed copy of real vaults', () => {
  const env = testGitEnv();
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });

  /** A fixture vault as its owner keeps it (under git, one commit), then `lucid init`, opened and served. */
  async function served(name: string): Promise<{ root: string; mcp: McpPair }> {
    const { root, cleanup } = copyFixture(name);
    cleanups.push(cleanup);
    commitAsOwner(root, env);
    await initVault({ dir: root, env });
    const vault = await openVault({ root, env });
    opened.push(vault);
    const mcp = await connectInMemory(vault);
    pairs.push(mcp);
    return { root, mcp };
  }

  it('kepano-obsidian: by name, by wikilink with an alias, by a front-matter alias, and a near miss', async () => {
    const { mcp } = await served('kepano-obsidian');
    expect(await read(mcp, { path: 'Steph Ango' })).toMatchObject({ path: 'References/Steph Ango.md', matched_by: 'link' });
    expect(await read(mcp, { path: '[[Kevin Kelly|KK]]' })).toMatchObject({ path: 'References/Kevin Kelly.md', matched_by: 'link' });
    expect(await read(mcp, { path: 'BOTW' })).toMatchObject({ path: 'References/The Legend of Zelda Breath of the Wild.md', matched_by: 'alias' });
    const miss = await mcp.call('read_note', { path: 'Stef Ango' });
    expect(miss.isError).toBe(true);
    expect(textOf(miss)).toMatch(/^No file Stef Ango\.md in this vault, .* Closest: (.*, )?References\/Steph Ango\.md[,.]/);
  });

  it('obsidian-tasks-docs: the 76,000-character Filters note in pages of 20,000 and by section, one hash throughout', async () => {
    const { root, mcp } = await served('obsidian-tasks-docs');
    const fileHash = sha256(readFileSync(path.join(root, 'Queries/Filters.md')));
    const first = await read(mcp, { path: 'Filters' });
    expect(first).toMatchObject({ path: 'Queries/Filters.md', title: 'Filters', offset: 0, hash: fileHash });
    expect(first.body.length).toBeLessThanOrEqual(20_000);
    expect(first.total_chars).toBeGreaterThan(75_000);
    expect(first.next_offset).toBe(first.end);
    expect(first.headings.map((h) => h.text)).toContain('Text filters');
    const second = await read(mcp, { path: 'Queries/Filters.md', offset: first.next_offset });
    expect(second).toMatchObject({ offset: first.end, hash: fileHash });
    const text = await read(mcp, { path: '[[Filters#Text filters]]' });
    expect(text).toMatchObject({ section: 'Text filters', hash: fileHash });
    expect(text.body.startsWith('## Text filters\n')).toBe(true);
    expect(text.body).not.toContain('\n## Matching multiple filters');
  });
});
