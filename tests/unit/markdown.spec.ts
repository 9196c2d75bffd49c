import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Element, Root } from 'hast';
import rehypeSanitize from 'rehype-sanitize';
import { describe, expect, it } from 'vitest';
import { MarkdownView } from '../../components/markdown-view';
import { anchorId, createSlugger, findWikilinks, noteHref, noteSanitizeSchema, headingSlug, stripComments } from '../../lib/markdown';
import { createLinkResolver } from '../../lib/vault/notes/link-resolver';

const VAULT = [
  'index.md',
  'notes/alpha.md',
  'notes/Beta Note.md',
  'notes/sub/gamma.md',
  'projects/atlas.md',
  'projects/deep.md',
  'people/ana.md',
  'C# 100% 📝 ideas.md',
  'notes/100% done 📝.md',
  'assets/diagram.png',
  'assets/my photo.jpg',
  'docs/spec.pdf',
  '"><img src=x onerror=alert(1)>.md',
];

const BODIES: Record<string, string> = {
  'projects/atlas.md': [
    'Atlas intro with [[ana]].',
    '',
    '## Goals',
    '',
    'Ship the map.',
    '',
    '## Risks',
    '',
    'Too big ^risk1',
    '',
    'Nested embed: ![[deep]]',
    '',
    'Local [[#Goals]] link.',
  ].join('\n'),
  'projects/deep.md': 'DEEP BODY ![[atlas]]',
  'notes/Beta Note.md': 'Beta body %%secret%% shown <script>alert(1)</script>',
};

const resolver = createLinkResolver(VAULT);

interface RenderOptions {
  notePath?: string;
  embed?: boolean;
}

function renderStyled(markdown: string, { notePath = 'notes/alpha.md', embed = true }: RenderOptions = {}): string {
  return renderToStaticMarkup(
    createElement(MarkdownView, {
      markdown,
      notePath,
      resolve: (target, kind, fromPath) => resolver.resolve(target, fromPath, kind),
      embed: embed ? (path) => BODIES[path] ?? null : undefined,
    }),
  );
}

const SEMANTIC_CLASS =
  /^(?:callout(?:-title|-content)?|embed(?:-title|-content)?|broken-link|blocked-link|language-.+|contains-task-list|task-list-item|footnotes|sr-only)$/;

/** The markup without the Tailwind utilities (kept: the classes the plugins set) and without the wrapper div. */
function render(markdown: string, options?: RenderOptions): string {
  const html = renderStyled(markdown, options).replace(/ class="([^"]*)"/g, (_all, value: string) => {
    const kept = value.split(' ').filter((name) => SEMANTIC_CLASS.test(name));
    return kept.length > 0 ? ` class="${kept.join(' ')}"` : '';
  });
  return html.replace(/^<div>/, '').replace(/<\/div>$/, '');
}

/** Every start tag in rendered markup with its attributes (React quotes every value and escapes `"` in it). */
function tagsOf(html: string): { name: string; attrs: Record<string, string> }[] {
  return [...html.matchAll(/<([a-zA-Z][\w-]*)((?:\s+[^\s=>/]+(?:="[^"]*")?)*)\s*\/?>/g)].map((match) => ({
    name: match[1].toLowerCase(),
    attrs: Object.fromEntries([...match[2].matchAll(/([^\s=>/]+)(?:="([^"]*)")?/g)].map((attr) => [attr[1].toLowerCase(), attr[2] ?? ''])),
  }));
}

const hrefs = (html: string) =>
  tagsOf(html)
    .filter((t) => t.name === 'a')
    .map((t) => t.attrs.href);
const decodeAttr = (value: string) =>
  value
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'");

describe('wikilinks', () => {
  it('links [[name]] to the note page of the resolved path', () => {
    expect(render('See [[atlas]].')).toContain('<a href="/notes/projects/atlas.md"');
    expect(render('See [[atlas]].')).toMatch(/>atlas<\/a>\.<\/p>/);
  });

  it('shows the alias of [[name|alias]]', () => {
    expect(render('[[atlas|the Atlas project]]')).toMatch(/<a href="\/notes\/projects\/atlas\.md"[^>]*>the Atlas project<\/a>/);
  });

  it('resolves folder paths and same-folder names the way Obsidian does', () => {
    expect(hrefs(render('[[projects/atlas]] [[gamma]] [[sub/gamma]]'))).toEqual([
      '/notes/projects/atlas.md',
      '/notes/notes/sub/gamma.md',
      '/notes/notes/sub/gamma.md',
    ]);
  });

  it('points [[name#Heading]] at the prefixed heading id', () => {
    const html = render('[[atlas#Open Risks]]');
    expect(hrefs(html)).toEqual(['/notes/projects/atlas.md#user-content-open-risks']);
    expect(html).toContain('>atlas &gt; Open Risks</a>');
  });

  it('points [[name#Parent#Child]] at the last heading', () => {
    expect(hrefs(render('[[atlas#Goals#Q3 Plan]]'))).toEqual(['/notes/projects/atlas.md#user-content-q3-plan']);
  });

  it('points [[name#^block]] at the prefixed block id', () => {
    expect(hrefs(render('[[atlas#^risk1]]'))).toEqual(['/notes/projects/atlas.md#user-content-%5Erisk1']);
  });

  it('links [[#Heading]] inside the note itself', () => {
    const html = render('# Big Plan\n\nBack to [[#Big Plan]] and [[#^b1|that block]].');
    expect(hrefs(html)).toEqual(['#user-content-big-plan', '#user-content-%5Eb1']);
    expect(html).toContain('id="user-content-big-plan"');
    expect(html).toContain('>that block</a>');
  });

  it('reads [[name\\|alias]] in a GFM table cell as an alias, not a column', () => {
    const html = render('| who | link |\n|---|---|\n| x | [[atlas\\|Atlas]] |');
    expect(html).toContain('<td><a href="/notes/projects/atlas.md"');
    expect(html).toContain('>Atlas</a></td>');
    expect(html.match(/<td/g)).toHaveLength(2);
  });

  it('leaves wikilinks in code spans and fenced and indented code blocks as text', () => {
    const html = render('`[[atlas]]`\n\n```\n[[atlas]] ![[diagram.png]]\n```\n\n    [[atlas]]\n');
    expect(hrefs(html)).toEqual([]);
    expect(html).not.toContain('<img');
    expect(html).toContain('<code>[[atlas]]</code>');
    expect(html).toContain('[[atlas]] ![[diagram.png]]\n</code></pre>');
  });

  it('renders an unresolved link as a broken-link span, not a link', () => {
    const html = render('[[Nowhere]] and [[Nowhere|shown]]');
    expect(hrefs(html)).toEqual([]);
    expect(html).toContain('<span class="broken-link"');
    expect(html).toContain('title="No note named “Nowhere”"');
    expect(html).toContain('>shown</span>');
  });

  it('links non-note files to the file route', () => {
    expect(hrefs(render('[[spec.pdf]] and ![[spec.pdf]]'))).toEqual(['/files/docs/spec.pdf', '/files/docs/spec.pdf']);
  });

  it('finds several links in one text and takes the innermost of [[a [[b]]', () => {
    expect(hrefs(render('[[atlas]], [[ana]] then [[x [[index]]'))).toEqual(['/notes/projects/atlas.md', '/notes/people/ana.md', '/notes/index.md']);
  });

  it('keeps [[]] and a link broken across lines as text', () => {
    const html = render('[[]] and [[at\nlas]]');
    expect(hrefs(html)).toEqual([]);
    expect(html).toContain('[[]]');
  });

  it('does not nest a link inside a markdown link', () => {
    const html = render('[see [[atlas]]](https://example.com)');
    expect(hrefs(html)).toEqual(['https://example.com']);
    expect(html).toContain('see atlas</a>');
  });
});

describe('markdown links', () => {
  it('resolves [t](path.md) relative to the note', () => {
    expect(hrefs(render('[g](sub/gamma.md) [a](../projects/atlas.md) [root](/index.md)'))).toEqual([
      '/notes/notes/sub/gamma.md',
      '/notes/projects/atlas.md',
      '/notes/index.md',
    ]);
  });

  it('resolves [t](<a b.md>) and URL-encoded [t](My%20Note.md#Heading)', () => {
    expect(hrefs(render('[b](<Beta Note.md>) [h](Beta%20Note.md#Next%20Steps)'))).toEqual([
      '/notes/notes/Beta%20Note.md',
      '/notes/notes/Beta%20Note.md#user-content-next-steps',
    ]);
  });

  it('links [t](#Heading) and [t](#^block) inside the note', () => {
    expect(hrefs(render('[up](#My%20Heading) [blk](#^abc)'))).toEqual(['#user-content-my-heading', '#user-content-%5Eabc']);
  });

  it('renders an unresolved markdown link as a broken-link span keeping its text', () => {
    const html = render('[the *plan*](missing/plan.md)');
    expect(hrefs(html)).toEqual([]);
    expect(html).toMatch(/<span class="broken-link" title="No note named “missing\/plan\.md”">the <em>plan<\/em><\/span>/);
  });

  it('opens http(s) and mailto links in a new tab without referrer or opener', () => {
    const html = render('[site](https://example.com/a?b=1) <https://auto.example> www.literal.example [m](mailto:a@b.c)');
    const links = tagsOf(html).filter((t) => t.name === 'a');
    expect(links.map((l) => decodeAttr(l.attrs.href))).toEqual([
      'https://example.com/a?b=1',
      'https://auto.example',
      'http://www.literal.example',
      'mailto:a@b.c',
    ]);
    for (const link of links) {
      expect(link.attrs.target).toBe('_blank');
      expect(link.attrs.rel).toBe('noopener noreferrer nofollow');
    }
  });

  it('resolves reference-style links through their definitions', () => {
    expect(hrefs(render('[a][r] [b][web]\n\n[r]: ../projects/atlas.md\n[web]: https://example.com'))).toEqual([
      '/notes/projects/atlas.md',
      'https://example.com',
    ]);
  });

  it('does not give internal links a target', () => {
    const link = tagsOf(render('[[atlas]]')).find((t) => t.name === 'a');
    expect(link?.attrs.target).toBeUndefined();
  });
});

describe('encoded paths', () => {
  it('percent-encodes each segment of paths with spaces, #, % and emoji', () => {
    const expected = '/notes/C%23%20100%25%20%F0%9F%93%9D%20ideas.md';
    expect(hrefs(render('[[100% done 📝]]'))).toEqual(['/notes/notes/100%25%20done%20%F0%9F%93%9D.md']);
    expect(hrefs(render('[x](../C%23%20100%25%20%F0%9F%93%9D%20ideas.md)'))).toEqual([expected]);
    expect(hrefs(render('[x](<../C%23 100%25 📝 ideas.md>)'))).toEqual([expected]);
  });

  it('keeps folder separators and encodes the file route the same way', () => {
    expect(noteHref('a b/c#d/e%f.md', 'Sub Head')).toBe('/notes/a%20b/c%23d/e%25f.md#user-content-sub-head');
    expect(render('![](<../assets/my photo.jpg>)')).toContain('src="/files/assets/my%20photo.jpg"');
  });

  it('encodes non-ASCII heading slugs in the fragment', () => {
    expect(hrefs(render('[[atlas#Über uns]]'))).toEqual(['/notes/projects/atlas.md#user-content-%C3%BCber-uns']);
    expect(render('## Über uns')).toContain('id="user-content-über-uns"');
  });
});

describe('images', () => {
  it('serves vault images from the file route', () => {
    const html = render('![[diagram.png]] ![Diagram](../assets/diagram.png)');
    const images = tagsOf(html).filter((t) => t.name === 'img');
    expect(images.map((i) => i.attrs.src)).toEqual(['/files/assets/diagram.png', '/files/assets/diagram.png']);
    expect(images[1].attrs.alt).toBe('Diagram');
  });

  it('reads Obsidian sizes: ![[x.png|300]], ![[x.png|300x200]], ![alt|120](x.png)', () => {
    const images = tagsOf(render('![[diagram.png|300]] ![[diagram.png|300x200]] ![Small|120](../assets/diagram.png)')).filter((t) => t.name === 'img');
    expect(images.map((i) => [i.attrs.width, i.attrs.height])).toEqual([
      ['300', undefined],
      ['300', '200'],
      ['120', undefined],
    ]);
    expect(images[2].attrs.alt).toBe('Small');
  });

  it('renders a missing image as a broken-link span', () => {
    const html = render('![[lost.png]] ![gone](lost.png)');
    expect(html).not.toContain('<img');
    expect(html).toContain('title="No file named “lost.png”"');
  });

  it('never loads a remote image: it becomes a link that opens in a new tab', () => {
    const html = render(
      '![](https://attacker.example/x?leak) ![a](http://127.0.0.1:8080/p.png) ![p](//cdn.example/y.png) ![q](https:evil.example/z.png) ![r][ref]\n\n[ref]: https://ref.example/i.png',
    );
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/src="(https?:)?\/\//);
    const links = tagsOf(html).filter((t) => t.name === 'a');
    expect(links.map((l) => decodeAttr(l.attrs.href))).toEqual([
      'https://attacker.example/x?leak',
      'http://127.0.0.1:8080/p.png',
      '//cdn.example/y.png',
      'https:evil.example/z.png',
      'https://ref.example/i.png',
    ]);
    expect(links.every((l) => l.attrs.target === '_blank' && l.attrs.rel === 'noopener noreferrer nofollow')).toBe(true);
    expect(html).toContain('>Remote image: https://attacker.example/x?leak</a>');
  });

  it('shows no image for data: and other schemes', () => {
    const html = render('![pixel](data:image/png;base64,iVBORw0KGgo=) ![f](file:///etc/passwd)');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('data:image');
    expect(html).not.toContain('file:///');
  });

  it('only ever emits img elements pointing at /files/', () => {
    const html = render('![[diagram.png]] ![](https://x.example/a.png) ![](../assets/diagram.png) ![](//x.example/b.png)');
    const sources = tagsOf(html)
      .filter((t) => t.name === 'img')
      .map((t) => t.attrs.src);
    expect(sources).toHaveLength(2);
    expect(sources.every((src) => src.startsWith('/files/'))).toBe(true);
  });
});

describe('note embeds', () => {
  it('shows a box with the title linking to the note and its body inside', () => {
    const html = render('![[atlas]]');
    expect(html).toMatch(/^<div class="embed"><div class="embed-title"><a href="\/notes\/projects\/atlas\.md"[^>]*>atlas<\/a><\/div><div class="embed-content/);
    expect(html).toContain('Atlas intro with <a href="/notes/people/ana.md"');
  });

  it('embeds one level deep: embeds inside the embedded note are plain links', () => {
    const html = render('![[atlas]]');
    expect(html.match(/class="embed"/g)).toHaveLength(1);
    expect(html).not.toContain('DEEP BODY');
    expect(html).toContain('Nested embed: <a href="/notes/projects/deep.md"');
  });

  it('does not recurse when two notes embed each other', () => {
    const html = render('![[deep]]');
    expect(html).toContain('DEEP BODY');
    expect(html.match(/class="embed"/g)).toHaveLength(1);
    expect(html).not.toContain('Atlas intro');
  });

  it('points same-note links inside an embed at the embedded note', () => {
    expect(hrefs(render('![[atlas]]'))).toContain('/notes/projects/atlas.md#user-content-goals');
  });

  it('gives the embedded headings no ids, so they cannot collide with the note’s own', () => {
    const html = render('## Goals\n\n![[atlas]]');
    expect(html.match(/id="user-content-goals"/g)).toHaveLength(1);
  });

  it('shows only the section of ![[note#Heading]] and the block of ![[note#^id]]', () => {
    const section = render('![[atlas#Goals]]');
    expect(section).toContain('Ship the map.');
    expect(section).not.toContain('Atlas intro');
    expect(section).not.toContain('Too big');
    expect(section).toContain('>atlas &gt; Goals</a>');
    const block = render('![[atlas#^risk1]]');
    expect(block).toContain('Too big');
    expect(block).not.toContain('Ship the map.');
    expect(block).not.toContain('Too big ^risk1');
  });

  it('applies comments, raw-HTML and link rules to the embedded body', () => {
    const html = render('![[Beta Note]]');
    expect(html).toContain('Beta body');
    expect(html).not.toContain('secret');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;');
  });

  it('shows only the title box without an embed source', () => {
    const html = render('![[atlas]]', { embed: false });
    expect(html).toContain('class="embed-title"');
    expect(html).not.toContain('embed-content');
    expect(html).not.toContain('Atlas intro');
  });

  it('lifts the box out of its paragraph, never <div> inside <p>', () => {
    const html = render('Before ![[atlas]] after');
    expect(html).not.toMatch(/<p[^>]*>(?:(?!<\/p>).)*<div/s);
    expect(html).toMatch(/<p>Before<\/p>\n?<div class="embed">/);
    expect(html).toMatch(/<\/div><\/div>\n?<p>after<\/p>/);
  });

  it('renders a note embed in a table cell, a heading or a link as a link', () => {
    const html = render('# ![[atlas]]\n\n| a |\n|---|\n| ![[atlas]] |');
    expect(html).not.toContain('class="embed');
    expect(hrefs(html)).toEqual(['/notes/projects/atlas.md', '/notes/projects/atlas.md']);
  });

  it('renders a self-embed and a missing embed without a box', () => {
    const html = render('![[alpha]]\n\n![[Ghost]]');
    expect(html).not.toContain('class="embed');
    expect(hrefs(html)).toEqual(['/notes/notes/alpha.md']);
    expect(html).toContain('title="No note named “Ghost”"');
  });
});

describe('callouts', () => {
  it('turns > [!note] Title into a callout div with a title', () => {
    const html = render('> [!note] Read *this*\n> Body with [[atlas]].');
    expect(html).toMatch(/<div class="callout" data-callout="note">\n?<div class="callout-title" data-callout="note">Read <em>this<\/em><\/div>/);
    expect(html).toMatch(/<div class="callout-content"><p>Body with <a href="\/notes\/projects\/atlas\.md"/);
    expect(html).not.toContain('<blockquote');
    expect(html).not.toContain('[!note]');
  });

  it('uses the type as the title when there is none, and lower-cases the type', () => {
    const html = render('> [!WARNING]\n> Careful.');
    expect(html).toContain('data-callout="warning"');
    expect(html).toMatch(/callout-title[^>]*>Warning<\/div>/);
  });

  it('makes [!type]- a closed and [!type]+ an open <details>', () => {
    const closed = render('> [!faq]- Why?\n> Because.');
    expect(closed).toMatch(/<details><summary class="callout-title" data-callout="faq">Why\?<\/summary>/);
    expect(tagsOf(closed).find((t) => t.name === 'details')?.attrs.open).toBeUndefined();
    expect(tagsOf(render('> [!tip]+ Open\n> Yes.')).find((t) => t.name === 'details')?.attrs.open).toBe('');
  });

  it('keeps multi-paragraph content and nests callouts', () => {
    const html = render('> [!info] Outer\n> first\n>\n> > [!bug] Inner\n> > deep');
    expect(html).toContain('data-callout="info"');
    expect(html).toContain('data-callout="bug"');
    expect(html).toMatch(/>Inner<\/div>/);
    expect(html).toContain('deep');
  });

  it('leaves a plain blockquote and a malformed marker as blockquotes', () => {
    expect(render('> just a quote')).toContain('<blockquote');
    const odd = render('> [!x"><b>] hi');
    expect(odd).toContain('<blockquote');
    expect(odd).not.toContain('data-callout');
  });
});

describe('comments', () => {
  it('hides inline %%comments%%', () => {
    const html = render('Visible %%hidden [[atlas]]%% text');
    expect(html).not.toContain('hidden');
    expect(hrefs(html)).toEqual([]);
    expect(html).toContain('Visible');
    expect(html).toContain('text');
  });

  it('hides a multi-line comment block across paragraphs', () => {
    const html = render('Before\n\n%%\nsecret one\n\n- secret two\n%%\n\nAfter');
    expect(html).not.toContain('secret');
    expect(html).toContain('Before');
    expect(html).toContain('After');
  });

  it('keeps %% inside code and hides the rest of the note after an unclosed %%', () => {
    expect(render('`50%%` done')).toContain('<code>50%%</code>');
    const html = render('shown\n\n%% never closed\n\nhidden too');
    expect(html).toContain('shown');
    expect(html).not.toContain('hidden');
  });

  it('hides HTML comments', () => {
    const html = render('a <!-- inline secret --> b\n\n<!--\nblock secret\n-->\n\nc');
    expect(html).not.toContain('secret');
    expect(html).not.toContain('&lt;!--');
  });

  it('stripComments leaves text without %% untouched', () => {
    const text = 'no comments here, 100% sure';
    expect(stripComments(text)).toBe(text);
  });
});

describe('headings and block ids', () => {
  it('gives headings prefixed, unique slug ids', () => {
    const html = render('# Intro\n\n## Intro\n\n### What’s next? (v2)');
    expect(html).toContain('<h1 id="user-content-intro"');
    expect(html).toContain('<h2 id="user-content-intro-1"');
    expect(html).toContain('<h3 id="user-content-whats-next-v2"');
  });

  it('links to a heading with the same slug the heading gets', () => {
    const html = render('## What’s next? (v2)\n\n[[#What’s next? (v2)]]');
    const id = /<h2 id="([^"]+)"/.exec(html)?.[1];
    expect(hrefs(html)).toEqual([`#${id}`]);
  });

  it('turns a trailing ^id into the block’s id and hides the marker', () => {
    const html = render('A claim. ^claim-1\n\n- item\n\n^list1');
    expect(html).toContain('<p id="user-content-^claim-1"');
    expect(html).toMatch(/<ul id="user-content-\^list1"/);
    expect(html).not.toContain('^claim-1<');
    expect(html).not.toContain('>^list1<');
  });

  it('headingSlug and anchorId agree with GitHub-style slugs', () => {
    expect(headingSlug('  Hello, World!  ')).toBe('hello-world');
    expect(headingSlug('!!!')).toBe('section');
    expect(anchorId('Parent#Child Heading')).toBe('child-heading');
    expect(anchorId('^blk-1')).toBe('^blk-1');
    const slug = createSlugger();
    expect([slug('A'), slug('A'), slug('A-1'), slug('A')]).toEqual(['a', 'a-1', 'a-1-1', 'a-2']);
  });

  it('findWikilinks splits target, subpath and alias', () => {
    expect(findWikilinks('x ![[a/b#H#^c|Al]] [[#H]]')).toEqual([
      { start: 2, end: 18, embed: true, target: 'a/b', subpath: 'H#^c', alias: 'Al' },
      { start: 19, end: 25, embed: false, target: '', subpath: 'H' },
    ]);
  });
});

describe('XSS battery (SECURITY-TESTS #29)', () => {
  const ALLOWED_TAGS = new Set([
    'a',
    'blockquote',
    'br',
    'code',
    'del',
    'details',
    'div',
    'em',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'hr',
    'img',
    'input',
    'li',
    'ol',
    'p',
    'pre',
    'section',
    'span',
    'strong',
    'summary',
    'sup',
    'table',
    'tbody',
    'td',
    'th',
    'thead',
    'tr',
    'ul',
  ]);
  const DANGEROUS_URL = /^\s*(?:javascript|vbscript|data|file):/i;

  const payloads: [string, string][] = [
    ['script element', '<script>window.__xss = 1</script>'],
    ['img onerror', '<img src=x onerror=alert(1)>'],
    ['inline img onerror', 'text <img src=x onerror="alert(1)"> text'],
    ['svg onload', '<svg onload=alert(1)><circle r="1"/></svg>'],
    ['iframe', '<iframe src="javascript:alert(1)"></iframe>'],
    ['html anchor', '<a href="javascript:alert(1)">x</a>'],
    ['markdown javascript:', '[x](javascript:alert(1))'],
    ['mixed case', '[x](JaVaScRiPt:alert(1))'],
    ['entity-encoded', '[x](&#106;avascript:alert(1))'],
    ['hex entity colon', '[x](javascript&#x3A;alert(1))'],
    ['leading space in <>', '[x](< javascript:alert(1)>)'],
    ['tab inside scheme', '[x](<java\tscript:alert(1)>)'],
    ['data:text/html', '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)'],
    ['vbscript', '[x](vbscript:msgbox(1))'],
    ['style element', '<style>body { display: none }</style>'],
    ['style breakout', '</style><script>alert(1)</script>'],
    ['autolink javascript', '<javascript:alert(1)>'],
    ['reference definition', '[x][evil]\n\n[evil]: javascript:alert(1)'],
    ['image javascript', '![x](javascript:alert(1))'],
    ['wikilink javascript', '[[javascript:alert(1)]] ![[javascript:alert(1)]]'],
    ['object and embed', '<object data="x.swf"></object><embed src="x.swf">'],
    ['form', '<form action="https://evil.example"><button>go</button></form>'],
    ['meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'],
    ['base', '<base href="https://evil.example/">'],
    ['link in callout title', '> [!note] [t](javascript:alert(1)) <img src=x onerror=alert(1)>\n> body'],
    ['payload in a table', '| a |\n|---|\n| <script>alert(1)</script> [x](javascript:alert(1)) |'],
  ];

  it.each(payloads)('%s renders nothing executable', (_name, markdown) => {
    const html = render(markdown);
    const tags = tagsOf(html);
    for (const tag of tags) {
      expect(ALLOWED_TAGS, `<${tag.name}> in ${html}`).toContain(tag.name);
      for (const [name, value] of Object.entries(tag.attrs)) {
        expect(name, html).not.toMatch(/^on/);
        expect(name, html).not.toBe('style');
        if (name === 'href' || name === 'src' || name === 'action' || name === 'formaction') {
          expect(decodeAttr(value), html).not.toMatch(DANGEROUS_URL);
        }
      }
    }
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<iframe/i);
    expect(html).not.toMatch(/<style/i);
    expect(html).not.toMatch(/<[^>]*\sonerror=/i);
    expect(html).not.toMatch(/href="\s*javascript:/i);
  });

  it('shows raw HTML as escaped text', () => {
    const html = render('<script>alert(1)</script>\n\nand <img src=x onerror=alert(1)> inline');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('escapes a hostile file name used as an embed title', () => {
    const html = render('![["><img src=x onerror=alert(1)>]]');
    expect(html).not.toMatch(/<img/);
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(hrefs(html)[0]).toBe('/notes/%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E.md');
  });
});

describe('DOM clobbering (SECURITY-TESTS #30)', () => {
  it('prefixes heading, block and footnote ids with user-content-', () => {
    const html = render('# __next\n\n## currentUser\n\n### forms\n\nA^[x] note[^__proto__]. ^location\n\n[^__proto__]: def');
    const ids = tagsOf(html).flatMap((t) => (t.attrs.id !== undefined ? [t.attrs.id] : []));
    expect(ids).toEqual(expect.arrayContaining(['user-content-__next', 'user-content-currentuser', 'user-content-forms', 'user-content-^location']));
    expect(ids.every((id) => id.startsWith('user-content-') && !id.startsWith('user-content-user-content-'))).toBe(true);
    expect(tagsOf(html).some((t) => 'name' in t.attrs)).toBe(false);
  });

  it('keeps footnote links pointing at their prefixed targets', () => {
    const html = render('Claim[^1].\n\n[^1]: Source.');
    const ids = new Set(
      tagsOf(html)
        .map((t) => t.attrs.id)
        .filter(Boolean),
    );
    const inPage = hrefs(html).filter((href) => href.startsWith('#'));
    expect(inPage.length).toBeGreaterThan(0);
    for (const href of inPage) expect(ids).toContain(decodeURIComponent(href.slice(1)));
    const describedBy = tagsOf(html).find((t) => t.attrs['aria-describedby'])?.attrs['aria-describedby'];
    expect(ids).toContain(describedBy);
  });
});

describe('markup', () => {
  it('renders GFM tables, task lists, strikethrough and code blocks with language classes', () => {
    const html = render('- [x] done\n- [ ] todo\n\n~~old~~\n\n```ts\nconst a = 1;\n```');
    expect(html).toContain('type="checkbox"');
    expect(html).toContain('<del');
    expect(html).toMatch(/<code class="language-ts[^"]*">const a = 1;/);
  });

  it('styles elements with Tailwind utilities while keeping the semantic classes', () => {
    const html = renderStyled('# T\n\n> [!warning] W\n> x\n\n[[Nowhere]]');
    expect(html).toMatch(/<h1 class="[^"]*text-3xl[^"]*" id="user-content-t"/);
    expect(html).toMatch(/class="callout [^"]*border-orange-500/);
    expect(html).toMatch(/class="broken-link [^"]*text-red-700/);
  });
});

describe('sanitize schema', () => {
  const sanitize = (element: Element): Element | undefined => {
    const tree: Root = { type: 'root', children: [element] };
    const clean = rehypeSanitize(noteSanitizeSchema)(tree) as unknown as Root;
    return clean.children[0] as Element | undefined;
  };
  const el = (tagName: string, properties: Element['properties']): Element => ({
    type: 'element',
    tagName,
    properties,
    children: [{ type: 'text', value: 'x' }],
  });

  it('drops an img src outside /files/, whatever produced it', () => {
    expect(sanitize(el('img', { src: 'https://attacker.example/x.png' }))?.properties.src).toBeUndefined();
    expect(sanitize(el('img', { src: '//attacker.example/x.png' }))?.properties.src).toBeUndefined();
    expect(sanitize(el('img', { src: '/files/a.png', onError: 'alert(1)' }))?.properties).toEqual({ src: '/files/a.png' });
  });

  it('allows only the link attributes and classes the plugins emit', () => {
    const link = sanitize(el('a', { href: 'https://x.example', target: '_top', rel: ['opener'] }));
    expect(link?.properties.href).toBe('https://x.example');
    expect(link?.properties.target).toBeUndefined();
    expect(link?.properties.rel ?? []).toEqual([]);
    expect(sanitize(el('a', { href: 'javascript:alert(1)' }))?.properties.href).toBeUndefined();
    expect(sanitize(el('a', { href: 'xmpp:someone@x' }))?.properties.href).toBeUndefined();
    const div = sanitize(el('div', { className: ['callout', 'fixed', 'inset-0'], dataCallout: 'x" onload="y', style: 'x' }));
    expect(div?.properties).toEqual({ className: ['callout'] });
    expect(sanitize(el('span', { className: ['broken-link', 'evil'] }))?.properties).toEqual({ className: ['broken-link'] });
  });

  it('removes elements outside the allow-list and prefixes ids and names', () => {
    expect(sanitize(el('iframe', { src: '/files/a.html' }))?.tagName).toBeUndefined();
    expect(sanitize(el('p', { id: 'currentUser', name: 'forms' }))?.properties).toEqual({
      id: 'user-content-currentUser',
      name: 'user-content-forms',
    });
  });
});
