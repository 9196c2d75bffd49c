import { describe, expect, it } from 'vitest';
import { stripComments } from '../../lib/vault/notes/comments';
import { computeBacklinks, createLinkResolver } from '../../lib/vault/notes/link-resolver';
import { isExternalTarget, parseLinks, type ParsedLink } from '../../lib/vault/notes/links';

const raws = (links: ParsedLink[]) => links.map((link) => link.raw);

describe('parseLinks: wikilinks', () => {
  it('finds a wikilink with its 1-based line', () => {
    expect(parseLinks('# Title\n\nSee [[note]] here.')).toEqual([{ kind: 'wikilink', embed: false, raw: '[[note]]', target: 'note', line: 3 }]);
  });

  it('keeps the folders of a path target', () => {
    expect(parseLinks('[[projects/atlas]]')[0]).toMatchObject({ target: 'projects/atlas', raw: '[[projects/atlas]]' });
  });

  it('splits the alias from the target', () => {
    expect(parseLinks('[[people/ana|Ana]]')[0]).toMatchObject({ target: 'people/ana', display: 'Ana' });
  });

  it('drops the backslash of an escaped alias pipe inside a table', () => {
    const body = '| link | note |\n|---|---|\n| [[Backlinks\\|backlink]] | x |';
    expect(parseLinks(body)).toEqual([{ kind: 'wikilink', embed: false, raw: '[[Backlinks\\|backlink]]', target: 'Backlinks', display: 'backlink', line: 3 }]);
  });

  it('splits a heading subpath from the target', () => {
    expect(parseLinks('[[Filters#Due Date]]')[0]).toMatchObject({ target: 'Filters', subpath: 'Due Date' });
  });

  it('keeps nested headings together in the subpath', () => {
    expect(parseLinks('[[wikilink#heading#sub-heading|shown]]')[0]).toMatchObject({
      target: 'wikilink',
      subpath: 'heading#sub-heading',
      display: 'shown',
    });
  });

  it('reads a block reference as a subpath starting with ^', () => {
    expect(parseLinks('[[log#^e7f3a9c2kq1mz|edit]]')[0]).toMatchObject({
      target: 'log',
      subpath: '^e7f3a9c2kq1mz',
      display: 'edit',
    });
  });

  it('gives a same-note heading link an empty target', () => {
    expect(parseLinks('[[#Hide and Show Tree]]')[0]).toMatchObject({ target: '', subpath: 'Hide and Show Tree' });
    expect(parseLinks('[[#^block]]')[0]).toMatchObject({ target: '', subpath: '^block' });
  });

  it('marks embeds and keeps the ! in the raw text', () => {
    expect(parseLinks('![[diagram.png|400]]\n![[Books.base#Favorites]]')).toEqual([
      { kind: 'wikilink', embed: true, raw: '![[diagram.png|400]]', target: 'diagram.png', display: '400', line: 1 },
      { kind: 'wikilink', embed: true, raw: '![[Books.base#Favorites]]', target: 'Books.base', subpath: 'Favorites', line: 2 },
    ]);
  });

  it('finds wikilinks in lists, tasks, quotes, callouts and headings', () => {
    const body = '## About [[a]]\n\n- [ ] task [[b]]\n1. item [[c]]\n\n> quote [[d]]\n\n> [!note]\n> callout [[e]]';
    expect(parseLinks(body).map((link) => [link.target, link.line])).toEqual([
      ['a', 1],
      ['b', 3],
      ['c', 4],
      ['d', 6],
      ['e', 9],
    ]);
  });

  it('takes the innermost link when brackets pile up', () => {
    expect(raws(parseLinks('[[a [[b]] and [[[c]]]'))).toEqual(['[[b]]', '[[c]]']);
  });

  it('does not let a wikilink span lines', () => {
    expect(parseLinks('[[broken\nlink]] then [[ok]]').map((link) => link.target)).toEqual(['ok']);
  });

  it('ignores empty and escaped wikilinks', () => {
    expect(parseLinks('[[]] and \\[[not a link]] and [[|x]]')).toEqual([]);
  });

  it('trims spaces around the target', () => {
    expect(parseLinks('[[ note ]]')[0]).toMatchObject({ target: 'note' });
  });

  it('returns links in the order they are written', () => {
    const body = '[b](b.md) [[a]]\n![[c.png]] [d](<d d.md>)';
    expect(raws(parseLinks(body))).toEqual(['[b](b.md)', '[[a]]', '![[c.png]]', '[d](<d d.md>)']);
  });
});

describe('parseLinks: markdown links', () => {
  it('finds a markdown link to a note, with its text', () => {
    expect(parseLinks('Read [the plan](../projects/atlas.md).')).toEqual([
      { kind: 'markdown', embed: false, raw: '[the plan](../projects/atlas.md)', target: '../projects/atlas.md', display: 'the plan', line: 1 },
    ]);
  });

  it('URL-decodes the path and the heading', () => {
    expect(parseLinks('[x](My%20Note.md#Sec%20One)')[0]).toMatchObject({ target: 'My Note.md', subpath: 'Sec One' });
  });

  it('reads destinations in angle brackets, spaces and all', () => {
    expect(parseLinks('[x](<path with spaces.md#^block>)')[0]).toMatchObject({
      raw: '[x](<path with spaces.md#^block>)',
      target: 'path with spaces.md',
      subpath: '^block',
    });
  });

  it('keeps a malformed percent sequence as written', () => {
    expect(parseLinks('[x](<100% done.md>)')[0]).toMatchObject({ target: '100% done.md' });
  });

  it('gives a same-note heading link an empty target', () => {
    expect(parseLinks('[up](#Top)')[0]).toMatchObject({ target: '', subpath: 'Top' });
  });

  it('reads images as embeds with their alt text', () => {
    expect(parseLinks('![A chart](img/chart%201.png)')).toEqual([
      { kind: 'markdown', embed: true, raw: '![A chart](img/chart%201.png)', target: 'img/chart 1.png', display: 'A chart', line: 1 },
    ]);
  });

  it('omits external links, autolinks and bare URLs', () => {
    const body = [
      '[site](https://obsidian.md/) [mail](mailto:a@b.c) [open](obsidian://open?vault=x)',
      '![remote](http://x.org/a.png) <https://auto.link> https://bare.url www.example.com',
      '[local](local.md)',
    ].join('\n');
    expect(raws(parseLinks(body))).toEqual(['[local](local.md)']);
  });

  it('ignores a link with an empty destination', () => {
    expect(parseLinks('[nothing]()')).toEqual([]);
  });
});

describe('parseLinks: what is not a link', () => {
  it('ignores links in inline code spans', () => {
    expect(parseLinks('Use `[[note name]]` and ``[x](y.md) [[z]]`` but [[real]]').map((link) => link.target)).toEqual(['real']);
  });

  it('ignores links in fenced code blocks, with backticks or tildes', () => {
    const body = '```yaml\nproject: "[[projects/atlas]]"\n```\n~~~\n[x](y.md)\n~~~\n[[after]]';
    expect(parseLinks(body)).toEqual([{ kind: 'wikilink', embed: false, raw: '[[after]]', target: 'after', line: 7 }]);
  });

  it('ignores links in an unclosed fence, which runs to the end of the note', () => {
    expect(parseLinks('[[before]]\n```\n[[inside]]')).toHaveLength(1);
  });

  it('ignores links in indented code blocks', () => {
    expect(parseLinks('Text\n\n    [[indented]]\n\n[[outside]]').map((link) => link.target)).toEqual(['outside']);
  });

  it('ignores links in tab-indented code and indented code inside a quote', () => {
    expect(parseLinks('Text\n\n\t[[tabbed]]\n\n>     [[quoted code]]\n\n> [[quoted]]').map((link) => link.target)).toEqual(['quoted']);
  });

  it('still finds links in nested list items indented with tabs or spaces', () => {
    const body = '- top [[a]]\n\t- nested [[b]]\n\t\t- deeper [[c]]\n    - spaced [[d]]';
    expect(parseLinks(body).map((link) => link.target)).toEqual(['a', 'b', 'c', 'd']);
  });

  it('ignores links in fenced code inside a list item', () => {
    const body = '- item\n\n  ```\n  [[code]]\n  ```\n- [[listed]]';
    expect(parseLinks(body).map((link) => link.target)).toEqual(['listed']);
  });

  it('ignores links inside %% comments, inline or across lines', () => {
    const body = 'a %% [[hidden]] %% b [[shown]]\n%%\n[[block hidden]]\n[x](y.md)\n%%\n[[after]]';
    expect(parseLinks(body).map((link) => link.target)).toEqual(['shown', 'after']);
  });

  it('treats an unclosed %% as hiding the rest of the note', () => {
    expect(parseLinks('[[a]] %% [[b]]\n[[c]]').map((link) => link.target)).toEqual(['a']);
  });

  it('does not open a comment for %% inside code', () => {
    expect(parseLinks('`100%%` [[a]] `%%` [[b]]').map((link) => link.target)).toEqual(['a', 'b']);
  });

  it('ignores links inside HTML comments', () => {
    expect(parseLinks('x <!-- [[hidden]] --> [[shown]]\n\n<!--\n[[block]]\n-->').map((link) => link.target)).toEqual(['shown']);
  });
});

describe('parseLinks: front matter', () => {
  it('finds links in quoted string values and lists, at line 0 with their property', () => {
    const links = parseLinks('Body [[b]]', {
      project: '[[projects/atlas]]',
      people: ['[[people/ana|Ana]]', 'plain text', '[[people/bo]]'],
      status: 'active',
      count: 3,
    });
    expect(links).toEqual([
      { kind: 'frontmatter', embed: false, raw: '[[projects/atlas]]', target: 'projects/atlas', line: 0, key: 'project' },
      { kind: 'frontmatter', embed: false, raw: '[[people/ana|Ana]]', target: 'people/ana', display: 'Ana', line: 0, key: 'people' },
      { kind: 'frontmatter', embed: false, raw: '[[people/bo]]', target: 'people/bo', line: 0, key: 'people' },
      { kind: 'wikilink', embed: false, raw: '[[b]]', target: 'b', line: 1 },
    ]);
  });

  it('finds a link inside a longer value and a heading link', () => {
    expect(parseLinks('', { note: 'see [[a#Why]] first' })).toEqual([
      { kind: 'frontmatter', embed: false, raw: '[[a#Why]]', target: 'a', subpath: 'Why', line: 0, key: 'note' },
    ]);
  });

  it('ignores nested objects, numbers and dates', () => {
    expect(parseLinks('', { nested: { deep: '[[x]]' }, n: 1, d: new Date(0), empty: null })).toEqual([]);
  });

  it('ignores an unquoted [[link]], which YAML reads as a nested list', () => {
    expect(parseLinks('', { project: [['projects/atlas']] })).toEqual([]);
  });
});

describe('isExternalTarget', () => {
  it.each(['https://obsidian.md', 'http://x.org/a.png', 'mailto:a@b.c', 'obsidian://open?vault=x', 'file:///tmp/a', '//cdn.example/x'])(
    'is true for %s',
    (target) => {
      expect(isExternalTarget(target)).toBe(true);
    },
  );

  it.each(['note.md', 'folder/note', '../x.md', '#heading', 'C:/notes/a.md', 'Meeting: notes.md', ''])('is false for %j', (target) => {
    expect(isExternalTarget(target)).toBe(false);
  });
});

describe('createLinkResolver', () => {
  const vault = createLinkResolver([
    'Note.md',
    'b/Note.md',
    'a/b/Note.md',
    'zzzz/Note.md',
    'zzzz/deep/x.md',
    'projects/atlas.md',
    'archive/projects/atlas.md',
    'xprojects/atlas.md',
    'people/ana.md',
    'people/team/lead.md',
    'assets/diagram.png',
    'Books.base',
    'docs/file.pdf',
    'Release 1.2.md',
    'References/E. M. Forster.md',
    'Categories/Clippings.md',
    'Clippings/Buy wisely.md',
    'lower/only.md',
    'case/note.md',
    'case/NOTE.md',
    'twins/a/Twin.md',
    'twins/b/Twin.md',
    'shared/My Note.md',
  ]);

  it('appends .md to a target without an extension', () => {
    expect(vault.resolve('people/ana', 'x.md')).toBe('people/ana.md');
  });

  it('accepts a target that already ends in .md', () => {
    expect(vault.resolve('people/ana.md', 'x.md')).toBe('people/ana.md');
  });

  it('takes the exact vault path first, even over a note in the linking folder', () => {
    expect(vault.resolve('Note', 'b/other.md')).toBe('Note.md');
    expect(vault.resolve('b/Note', 'a/b/other.md')).toBe('b/Note.md');
  });

  it('prefers a note in the linking note’s own folder over a shorter path elsewhere', () => {
    expect(vault.resolve('atlas', 'archive/projects/index.md')).toBe('archive/projects/atlas.md');
    expect(vault.resolve('lead', 'people/team/x.md')).toBe('people/team/lead.md');
  });

  it('does not count an ancestor folder as the linking note’s folder', () => {
    const resolver = createLinkResolver(['zzzz/Note.md', 'b/Note.md', 'zzzz/deep/x.md']);
    expect(resolver.resolve('Note', 'zzzz/deep/x.md')).toBe('b/Note.md');
  });

  it('otherwise takes the shortest path string', () => {
    const resolver = createLinkResolver(['zzzz/Note.md', 'a/b/Note.md', 'x.md']);
    expect(resolver.resolve('Note', 'x.md')).toBe('a/b/Note.md');
    expect(vault.resolve('atlas', 'people/ana.md')).toBe('projects/atlas.md');
  });

  it('breaks ties between equally short paths alphabetically', () => {
    expect(vault.resolve('Twin', 'x.md')).toBe('twins/a/Twin.md');
  });

  it('matches names case-insensitively', () => {
    expect(vault.resolve('ONLY', 'x.md')).toBe('lower/only.md');
    expect(vault.resolve('clippings', 'Clippings/Buy wisely.md')).toBe('Categories/Clippings.md');
    expect(vault.resolve('PEOPLE/Ana', 'x.md')).toBe('people/ana.md');
  });

  it('prefers the exact-case spelling when several differ only in case', () => {
    expect(vault.resolve('note', 'case/x.md')).toBe('case/note.md');
    expect(vault.resolve('NOTE', 'case/x.md')).toBe('case/NOTE.md');
    expect(vault.resolve('case/note', 'x.md')).toBe('case/note.md');
    expect(vault.resolve('case/NOTE', 'x.md')).toBe('case/NOTE.md');
  });

  it('matches a target with folders against the end of the path, on a folder boundary', () => {
    expect(vault.resolve('projects/atlas', 'x.md')).toBe('projects/atlas.md');
    const resolver = createLinkResolver(['archive/projects/atlas.md', 'xprojects/atlas.md']);
    expect(resolver.resolve('projects/atlas', 'x.md')).toBe('archive/projects/atlas.md');
    expect(resolver.resolve('jects/atlas', 'x.md')).toBeNull();
  });

  it('looks up attachments with their own extension', () => {
    expect(vault.resolve('diagram.png', 'notes/x.md')).toBe('assets/diagram.png');
    expect(vault.resolve('Books.base', 'Categories/Books.md')).toBe('Books.base');
    expect(vault.resolve('file.pdf', 'x.md')).toBe('docs/file.pdf');
  });

  it('treats dots in a note name as part of the name', () => {
    expect(vault.resolve('Release 1.2', 'x.md')).toBe('Release 1.2.md');
    expect(vault.resolve('E. M. Forster', 'References/x.md')).toBe('References/E. M. Forster.md');
  });

  it('returns null for a missing note or attachment', () => {
    expect(vault.resolve('Nowhere', 'x.md')).toBeNull();
    expect(vault.resolve('missing.png', 'x.md')).toBeNull();
    expect(vault.resolve('Movies.base', 'x.md')).toBeNull();
    expect(vault.resolve('nowhere/Note', 'x.md')).toBeNull();
  });

  it('resolves an empty target to the linking note itself', () => {
    expect(vault.resolve('', 'people/ana.md')).toBe('people/ana.md');
  });

  it('resolves a vault-absolute wikilink with a leading slash', () => {
    expect(vault.resolve('/people/ana', 'b/x.md')).toBe('people/ana.md');
  });

  it('resolves ./ and ../ wikilinks relative to the linking note', () => {
    expect(vault.resolve('../b/Note', 'a/b/x.md')).toBe('a/b/Note.md');
    expect(vault.resolve('./lead', 'people/team/x.md')).toBe('people/team/lead.md');
    expect(vault.resolve('../ana', 'people/team/x.md')).toBe('people/ana.md');
  });

  describe('markdown links', () => {
    it('resolve relative to the linking note’s folder first', () => {
      expect(vault.resolve('Note.md', 'b/x.md', 'markdown')).toBe('b/Note.md');
      expect(vault.resolve('./Note.md', 'a/b/x.md', 'markdown')).toBe('a/b/Note.md');
    });

    it('understand ../', () => {
      expect(vault.resolve('../ana.md', 'people/team/x.md', 'markdown')).toBe('people/ana.md');
      expect(vault.resolve('../../Note.md', 'a/b/x.md', 'markdown')).toBe('Note.md');
    });

    it('fall back to the vault path, then to the name', () => {
      expect(vault.resolve('people/ana.md', 'people/team/x.md', 'markdown')).toBe('people/ana.md');
      expect(vault.resolve('/people/ana.md', 'people/x.md', 'markdown')).toBe('people/ana.md');
      expect(vault.resolve('diagram.png', 'notes/x.md', 'markdown')).toBe('assets/diagram.png');
    });

    it('resolve a path without .md like a note', () => {
      expect(vault.resolve('lead', 'people/team/x.md', 'markdown')).toBe('people/team/lead.md');
    });

    it('resolve a decoded name with spaces', () => {
      const [link] = parseLinks('[n](My%20Note.md)');
      expect(vault.resolve(link.target, 'shared/index.md', link.kind)).toBe('shared/My Note.md');
    });

    it('never climb above the vault root', () => {
      expect(vault.resolve('../../../../people/nobody.md', 'a/x.md', 'markdown')).toBeNull();
      expect(vault.resolve('../../../ana.md', 'a/x.md', 'markdown')).toBe('people/ana.md');
    });

    it('resolve external URLs to null', () => {
      expect(vault.resolve('https://obsidian.md', 'x.md', 'markdown')).toBeNull();
      expect(vault.resolve('mailto:a@b.c', 'x.md', 'markdown')).toBeNull();
    });
  });

  it('builds its maps once and stays correct on a large vault', () => {
    const paths = Array.from({ length: 50_000 }, (_, i) => `folder-${i % 500}/note-${i}.md`);
    paths.push('deep/er/target.md', 'x/target.md');
    const resolver = createLinkResolver(paths);
    expect(resolver.resolve('note-49999', 'folder-1/a.md')).toBe('folder-499/note-49999.md');
    expect(resolver.resolve('target', 'folder-1/a.md')).toBe('x/target.md');
  });
});

describe('computeBacklinks', () => {
  it('lists each note’s incoming links with their lines, sorted by source', () => {
    const resolver = createLinkResolver(['projects/atlas.md', 'people/ana.md', 'decisions/use-postgres.md', 'sessions/s1.md']);
    const linksByPath = new Map<string, ParsedLink[]>([
      ['sessions/s1.md', parseLinks('Worked on [[atlas]].\n\nAlso [[atlas#Plan|the plan]] and [[#Notes]]', { project: '[[projects/atlas]]' })],
      ['decisions/use-postgres.md', parseLinks('For [Atlas](../projects/atlas.md) by [[ana]]. [[ghost]] [w](https://x.org)')],
      ['people/ana.md', parseLinks('Works on `[[atlas]]` and [[people/ana]].')],
    ]);

    const backlinks = computeBacklinks(linksByPath, resolver);

    expect(backlinks.get('projects/atlas.md')).toEqual([
      { from: 'decisions/use-postgres.md', line: 1 },
      { from: 'sessions/s1.md', line: 0 },
      { from: 'sessions/s1.md', line: 1 },
      { from: 'sessions/s1.md', line: 3 },
    ]);
    expect(backlinks.get('people/ana.md')).toEqual([{ from: 'decisions/use-postgres.md', line: 1 }]);
    expect(backlinks.has('sessions/s1.md')).toBe(false);
    expect([...backlinks.keys()].sort()).toEqual(['people/ana.md', 'projects/atlas.md']);
  });
});

describe('one %%-comment rule for links and rendering', () => {
  const cases = [
    'Keep [[a]] %%hide [[b]]%% keep [[c]]',
    'Block\n%%\n[[b]]\n\nstill hidden [[d]]\n%%\nafter [[c]]',
    'Unclosed %% hides [[b]] and the rest [[d]]',
    'Code `%%` is text: [[a]] `%%` [[c]]',
    '```\n%% in a fence\n```\n[[a]] %%[[b]]%%',
    '%%%% empty comment then [[a]]',
  ];

  it.each(cases)('what stripComments leaves is exactly what parseLinks counts: %s', (text) => {
    const counted = raws(parseLinks(text));
    expect(raws(parseLinks(stripComments(text)))).toEqual(counted);
    for (const hidden of ['[[b]]', '[[d]]']) {
      expect(counted).not.toContain(hidden);
      expect(stripComments(text)).not.toContain(hidden);
    }
  });

  it('stripComments keeps %% inside code and removes comments across paragraphs', () => {
    expect(stripComments('a `%%` b %%x%% c')).toBe('a `%%` b  c');
    expect(stripComments('one\n%%\ntwo\n\nthree\n%%\nfour')).toBe('one\n\nfour');
    expect(stripComments('open %% to the end')).toBe('open ');
  });
});
