import { describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../lib/vault/notes/frontmatter';
import { relativeLinkPath, rewriteFrontmatterLinks, rewriteMarkdownLink, rewriteWikilink } from '../../lib/vault/notes/link-rewrite';
import { planMove } from '../../lib/vault/notes/move-plan';
import { buildNote } from '../../lib/vault/notes/note';

/** A vault of literal files (null: an attachment, listed but not a note), as planMove takes it. */
function vaultOf(files: Record<string, string | null>) {
  const paths = Object.keys(files);
  const notes = paths.filter((p) => files[p] !== null).map((p) => buildNote(p, Buffer.from(files[p] as string, 'utf8'), 0));
  return { files: paths, notes };
}

function move(files: Record<string, string | null>, from: string, to: string) {
  return planMove({ ...vaultOf(files), from, to });
}

describe('rewriteWikilink', () => {
  it('replaces the target and keeps the subpath, the alias, the embed mark and a table escape', () => {
    expect(rewriteWikilink('[[ana]]', 'team/Ana Lopez')).toBe('[[team/Ana Lopez]]');
    expect(rewriteWikilink('[[people/ana|Ana]]', 'Ana Lopez')).toBe('[[Ana Lopez|Ana]]');
    expect(rewriteWikilink('[[ana#Role]]', 'x')).toBe('[[x#Role]]');
    expect(rewriteWikilink('[[ana#Role#Sub|shown]]', 'x')).toBe('[[x#Role#Sub|shown]]');
    expect(rewriteWikilink('![[ana#^b1]]', 'x')).toBe('![[x#^b1]]');
    expect(rewriteWikilink('[[ana\\|Ana]]', 'x')).toBe('[[x\\|Ana]]');
    expect(rewriteWikilink('[[ana.md]]', 'x.md')).toBe('[[x.md]]');
  });
});

describe('rewriteMarkdownLink', () => {
  it('replaces the path of the destination and keeps the subpath, the title and the text', () => {
    expect(rewriteMarkdownLink('[Ana](../people/ana.md)', '../people/ana.md', '../team/ana.md')).toBe('[Ana](../team/ana.md)');
    expect(rewriteMarkdownLink('[role](../people/ana.md#Role "her role")', '../people/ana.md#Role', '../team/ana.md')).toBe(
      '[role](../team/ana.md#Role "her role")',
    );
    expect(rewriteMarkdownLink('![pic](ana.md)', 'ana.md', 'x.md')).toBe('![pic](x.md)');
  });

  it('keeps an encoded destination encoded, and encodes only what a plain one needs', () => {
    expect(rewriteMarkdownLink('[n](My%20Notes/Old%20Name.md)', 'My%20Notes/Old%20Name.md', 'My Notes/New (1) Name.md')).toBe(
      '[n](My%20Notes/New%20%281%29%20Name.md)',
    );
    expect(rewriteMarkdownLink('[n](notes/old.md)', 'notes/old.md', 'notes/New Name.md')).toBe('[n](notes/New%20Name.md)');
    expect(rewriteMarkdownLink('[n](notes/old.md)', 'notes/old.md', 'notes/café.md')).toBe('[n](notes/café.md)');
    expect(rewriteMarkdownLink('[n](caf%C3%A9.md)', 'caf%C3%A9.md', 'notes/thé.md')).toBe('[n](notes/th%C3%A9.md)');
  });

  it('keeps a <...> destination raw', () => {
    expect(rewriteMarkdownLink('[b](<../people/ana.md>)', '../people/ana.md', '../team/Ana Lopez.md')).toBe('[b](<../team/Ana Lopez.md>)');
  });

  it('finds the destination, not the same text in the link text or the title', () => {
    expect(rewriteMarkdownLink('[a.md](a.md "a.md")', 'a.md', 'b.md')).toBe('[a.md](b.md "a.md")');
  });

  it('gives null when the destination is not written as parsed (an escape in it)', () => {
    expect(rewriteMarkdownLink('[a](a\\(1\\).md)', 'a(1).md', 'b.md')).toBeNull();
  });
});

describe('relativeLinkPath', () => {
  it('climbs out of the folder as far as needed', () => {
    expect(relativeLinkPath('notes', 'team/ana.md')).toBe('../team/ana.md');
    expect(relativeLinkPath('', 'team/ana.md')).toBe('team/ana.md');
    expect(relativeLinkPath('a/b', 'a/c/d.md')).toBe('../c/d.md');
    expect(relativeLinkPath('a/b', 'a/b/d.md')).toBe('d.md');
    expect(relativeLinkPath('archive/2026', 'x.md')).toBe('../../x.md');
  });
});

describe('rewriteFrontmatterLinks', () => {
  it('changes only the link characters, in their quoting', () => {
    const text =
      '---\nowner: "[[people/ana]]" # the owner\npeople:\n  - "[[ana]]"\n  - \'[[people/ana|Ana]]\'\n# [[ana]] in a comment\nstatus: draft\n---\nBody\n';
    const parsed = parseFrontmatter(text) as Extract<ReturnType<typeof parseFrontmatter>, { ok: true }>;
    const out = rewriteFrontmatterLinks(
      text,
      parsed,
      new Map([
        ['people/ana', "team/Ana O'Brien"],
        ['ana', "Ana O'Brien"],
      ]),
    );
    expect(out).toBe(
      "---\nowner: \"[[team/Ana O'Brien]]\" # the owner\npeople:\n  - \"[[Ana O'Brien]]\"\n  - '[[team/Ana O''Brien|Ana]]'\n# [[ana]] in a comment\nstatus: draft\n---\nBody\n",
    );
  });

  it('writes the property again whole when a link cannot be changed in place, and the values are what they should be', () => {
    const text = "---\nsummary: Ana's page is [[ana]]\n---\n";
    const parsed = parseFrontmatter(text) as Extract<ReturnType<typeof parseFrontmatter>, { ok: true }>;
    const out = rewriteFrontmatterLinks(text, parsed, new Map([['ana', "O'Brien"]])) as string;
    expect(parseFrontmatter(out)).toMatchObject({ ok: true, data: { summary: "Ana's page is [[O'Brien]]" } });
  });
});

describe('planMove', () => {
  const ANA = '---\ntype: person\nname: Ana\n---\n# Ana\n\n## Role\n\nEngineer. ^b1\n';
  const LINKS = [
    '---',
    'owner: "[[people/ana]]"',
    'people:',
    '  - "[[ana]]"',
    "  - '[[people/ana|Ana]]'",
    '---',
    'See [[ana]], [[people/ana|Ana]], [[ana#Role]] and ![[ana#^b1]].',
    'Markdown: [Ana](../people/ana.md), [her role](../people/ana.md#Role), [root](/people/ana.md), [b](<../people/ana.md>).',
    'Code: `[[ana]]` and `[x](../people/ana.md)`',
    '',
    '```',
    '[[ana]]',
    '```',
    '',
    '| who | link |',
    '|---|---|',
    '| Ana | [[ana\\|Ana]] |',
    '',
  ].join('\n');

  it('rewrites every form of link to the moved note, in its own style, and nothing in code', () => {
    const plan = move(
      { 'people/ana.md': ANA, 'notes/links.md': LINKS, 'notes/waiting.md': 'Waiting for [[Ana Lopez]].\n' },
      'people/ana.md',
      'team/Ana Lopez.md',
    );
    expect(plan.blocked).toEqual([]);
    expect(plan.texts.get('people/ana.md')).toBe(ANA);
    expect(plan.texts.get('notes/links.md')).toBe(
      [
        '---',
        'owner: "[[team/Ana Lopez]]"',
        'people:',
        '  - "[[Ana Lopez]]"',
        "  - '[[team/Ana Lopez|Ana]]'",
        '---',
        'See [[Ana Lopez]], [[team/Ana Lopez|Ana]], [[Ana Lopez#Role]] and ![[Ana Lopez#^b1]].',
        'Markdown: [Ana](../team/Ana%20Lopez.md), [her role](../team/Ana%20Lopez.md#Role), [root](/team/Ana%20Lopez.md), [b](<../team/Ana Lopez.md>).',
        'Code: `[[ana]]` and `[x](../people/ana.md)`',
        '',
        '```',
        '[[ana]]',
        '```',
        '',
        '| who | link |',
        '|---|---|',
        '| Ana | [[Ana Lopez\\|Ana]] |',
        '',
      ].join('\n'),
    );
    expect(plan.texts.has('notes/waiting.md')).toBe(false);
    expect(plan.changes).toHaveLength(12);
    expect(plan.changes.every((c) => c.path === 'notes/links.md' && !c.captured)).toBe(true);
    expect(plan.newlyResolved).toEqual([{ path: 'notes/waiting.md', line: 1, raw: '[[Ana Lopez]]', resolved: 'team/Ana Lopez.md' }]);
  });

  it('leaves a link alone when it still reaches the note (same name, still unique)', () => {
    const plan = move({ 'people/ana.md': ANA, 'notes/a.md': 'See [[ana]] and [[Ana#Role]].\n' }, 'people/ana.md', 'team/ana.md');
    expect(plan.blocked).toEqual([]);
    expect(plan.texts.has('notes/a.md')).toBe(false);
    expect(plan.changes).toEqual([]);
  });

  const CAPTURE = {
    'projects/atlas.md': '# Atlas\n',
    'notes/b.md': 'See [[atlas]] and [[x]].\n',
    'notes/x.md': 'Sibling: [[sibling]], [sib](sibling.md). Picture: ![p](../assets/p.png). Self: [[x#Top]].\n',
    'notes/sibling.md': '# Sibling\n',
    'a/sibling.md': '# Other\n',
    'assets/p.png': null,
    'c.md': '[[x]] and [[notes/x|the x]] and [md](notes/x.md)\n',
  };

  it("rewrites links the new name would take over, and the moved note's own links its new folder would change", () => {
    const plan = move(CAPTURE, 'notes/x.md', 'archive/atlas.md');
    expect(plan.blocked).toEqual([]);
    // `atlas` would now find archive/atlas.md first; `atlas` is no longer a unique name, so paths are written.
    expect(plan.texts.get('notes/b.md')).toBe('See [[projects/atlas]] and [[archive/atlas]].\n');
    expect(plan.texts.get('c.md')).toBe('[[archive/atlas]] and [[archive/atlas|the x]] and [md](archive/atlas.md)\n');
    // From archive/, `sibling` would reach a/sibling.md (the shortest path); the picture still resolves; the self link is in the same folder.
    expect(plan.texts.get('notes/x.md')).toBe('Sibling: [[notes/sibling]], [sib](../notes/sibling.md). Picture: ![p](../assets/p.png). Self: [[atlas#Top]].\n');
    expect(plan.changes.filter((c) => c.captured)).toEqual([{ path: 'notes/b.md', line: 1, before: '[[atlas]]', after: '[[projects/atlas]]', captured: true }]);
  });

  it("keeps the bare name when it is unique after the move, or in the linking note's folder", () => {
    const plan = move({ 'notes/x.md': '# X\n', 'notes/b.md': '[[x]]\n', 'c.md': '[[x]]\n', 'projects/y.md': '[[x|X]]\n' }, 'notes/x.md', 'projects/renamed.md');
    expect(plan.texts.get('notes/b.md')).toBe('[[renamed]]\n');
    expect(plan.texts.get('c.md')).toBe('[[renamed]]\n');
    expect(plan.texts.get('projects/y.md')).toBe('[[renamed|X]]\n');
  });

  it('finds the right copy of a link on a line that also holds it in code or as an embed', () => {
    const plan = move({ 'x.md': '# X\n', 'n.md': 'Real [[x]] and code `[[x]]` and ![[x]], [[x]].\n' }, 'x.md', 'y/z.md');
    expect(plan.texts.get('n.md')).toBe('Real [[z]] and code `[[x]]` and ![[z]], [[z]].\n');
  });

  it('keeps CRLF line breaks and every byte outside the links', () => {
    const text = '---\r\nowner: "[[x]]"\r\n---\r\n\r\nSee [[x]].\r\n\r\nEnd\r\n';
    const plan = move({ 'x.md': '# X\n', 'n.md': text }, 'x.md', 'y/z.md');
    expect(plan.texts.get('n.md')).toBe('---\r\nowner: "[[z]]"\r\n---\r\n\r\nSee [[z]].\r\n\r\nEnd\r\n');
  });

  it('blocks the move, naming the note, when a linking note cannot be parsed', () => {
    const plan = move(
      { 'x.md': '# X\n', 'bad.md': '---\ntitle: [unclosed\n---\nSee [[x]].\n', 'bad-front.md': '---\nowner: "[[x]]\nother: [\n---\nBody\n' },
      'x.md',
      'y/renamed.md',
    );
    expect(plan.blocked.map((b) => [b.path, b.code])).toEqual([
      ['bad.md', 'invalid_frontmatter'],
      ['bad-front.md', 'invalid_frontmatter'],
    ]);
    expect(plan.blocked[0].why).toMatch(/cannot be parsed \(.+\); a person must fix it first/);
  });

  it('does not block on a note that cannot be parsed when its links do not change', () => {
    const plan = move({ 'x.md': '# X\n', 'bad.md': '---\ntitle: [unclosed\n---\nSee [[x]].\n' }, 'x.md', 'y/x.md');
    expect(plan.blocked).toEqual([]);
    expect(plan.texts.has('bad.md')).toBe(false);
  });

  it('blocks when no link can be written to reach a note', () => {
    const plan = move({ 'x.md': '# X\n', 'n.md': '[[x]]\n', 'other/x#1.md': '# other\n' }, 'x.md', 'y/x#2.md');
    expect(plan.blocked.map((b) => b.path)).toEqual(['n.md']);
  });

  it('blocks a note too large to parse that names the moved note', () => {
    const files = vaultOf({ 'x.md': '# X\n', 'n.md': 'see [[x]]\n' });
    const notes = files.notes.map((n) => (n.path === 'n.md' ? { ...n, links: [], problem: 'too_large' as const, problemMessage: 'too large' } : n));
    const plan = planMove({ files: files.files, notes, from: 'x.md', to: 'y/z.md' });
    expect(plan.blocked).toEqual([expect.objectContaining({ path: 'n.md', code: 'too_large' })]);
  });
});
