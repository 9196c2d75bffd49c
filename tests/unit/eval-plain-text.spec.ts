import { describe, expect, it } from 'vitest';
import {
  dropClosingHashes,
  dropSpaceBeforePunctuation,
  plainText,
  replaceHtmlComments,
  replaceHtmlTags,
  replaceMarkdownLinks,
  replaceWikilinks,
  splitSentences,
  stripFencedCode,
  stripListMarks,
} from '../../lib/vault/eval/plain-text';
import { mulberry32 } from '../../lib/vault/ids';
import { WHITESPACE } from '../../lib/vault/text';
import { MB, notQuadratic } from '../support/linear-time';

// The regexes the scanners replace, kept here (tests are not checked for ReDoS) to compare with.
const old = {
  plainText: (body: string) =>
    body
      .replace(/(^|\n)(`{3,}|~{3,})[^\n]*\n[\s\S]*?(\n\2[^\n]*|$)/g, '$1')
      .replace(/%%[\s\S]*?%%/g, ' ')
      .replace(/<!--[\s\S]*?-->/g, ' ')
      .replace(/`[^`\n]*`/g, ' ')
      .replace(/!?\[\[([^\]|\n]*)\|([^\]\n]*)\]\]/g, '$2')
      .replace(/!?\[\[([^\]\n]*)\]\]/g, (_, target: string) => (target.split('#')[0].split('/').pop() ?? '').trim())
      .replace(/!?\[([^\]\n]*)\]\([^)\n]*\)/g, '$1')
      .replace(/https?:\/\/\S+/g, ' ')
      .replace(/<[^>\n]+>/g, ' ')
      .replace(/(^|\n)\s{0,3}#{1,6}\s/g, '$1')
      .replace(/(^|\n)\s*(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?/g, '$1')
      .replace(/[*_~=]{1,3}/g, ''),
  fillerLinks: (body: string) =>
    body
      .replace(/!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|([^\]]*))?\]\]/g, (_, target: string, shown?: string) => shown ?? target.split('/').pop() ?? '')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>\n]*>/g, ' '),
  headingLinks: (text: string) => text.replace(/\[\[([^\]|]*\|)?([^\]]*)\]\]/g, '$2').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'),
};

const fillerLinks = (body: string) =>
  replaceHtmlTags(
    replaceMarkdownLinks(
      replaceWikilinks(body, { stopAtNewline: false, bang: true }, (inner, pipe) =>
        pipe >= 0 ? inner.slice(pipe + 1) : (inner.split('#')[0].split('/').pop() ?? ''),
      ),
      { stopAtNewline: false, bang: true },
    ),
    true,
  );
const headingLinks = (text: string) =>
  replaceMarkdownLinks(
    replaceWikilinks(text, { stopAtNewline: false, bang: false }, (inner, pipe) => inner.slice(pipe + 1)),
    { stopAtNewline: false, bang: false },
  );

const TOKENS = [
  '[',
  ']',
  '[[',
  ']]',
  '|',
  '#',
  '!',
  '(',
  ')',
  '<',
  '>',
  '\n',
  '\n',
  ' ',
  '\t',
  '\r',
  'a',
  'b/c',
  '```',
  '~~~',
  '````',
  '`',
  '-',
  '*',
  '+',
  '1.',
  '2)',
  '%%',
  '<!--',
  '-->',
  'http://x.y',
  '.',
  '?',
  ':',
  ';',
  ',',
  '[x]',
  '=',
  '_',
  '~',
  '\u00a0',
  'é',
];

function* randomTexts(count: number, maxTokens: number): Generator<string> {
  const random = mulberry32(11);
  for (let i = 0; i < count; i += 1) {
    let text = '';
    const n = Math.floor(random() * (maxTokens + 1));
    for (let j = 0; j < n; j += 1) text += TOKENS[Math.floor(random() * TOKENS.length)];
    yield text;
  }
}

/** Runs `f` on a 1 MB attack (tests/support/linear-time.ts: a bound only a quadratic reading reaches). */
const fast = <T>(f: () => T): T => notQuadratic(f);

describe('plain text from markdown', () => {
  it('reads links, code, comments, tags and list marks on literal strings', () => {
    expect(plainText('See [[notes/Alpha#Intro|the alpha]] and [[notes/Beta#Part]] or ![[img.png]].')).toBe('See the alpha and Beta or img.png.');
    expect(plainText('A [link](http://x.y/z) and <b>bold</b> **text**.')).toBe('A link and  bold  text.');
    expect(plainText('before\n```js\nconst x = 1;\n```\nafter')).toBe('before\n\nafter');
    expect(plainText('one <!-- hidden --> two %% also %% three `code` four')).toBe('one   two   three   four');
    expect(plainText('- [ ] task\n  2. second\n# Title')).toBe('task\nsecond\nTitle');
    expect(fillerLinks('[[a/b#h|shown]] [[a/b#h]] [[]] [t](u) <>')).toBe('shown b  t  ');
    expect(headingLinks('[[a/b|c|d]] [[a/b]] [t](u)')).toBe('c|d a/b t');
  });

  it('splits sentences, drops space before punctuation and closing hashes on literal strings', () => {
    expect(splitSentences('One. Two!? Three;four\n\nfive...')).toEqual(['One', 'Two', 'Three;four', 'five', '']);
    expect(splitSentences('')).toEqual(['']);
    expect(dropSpaceBeforePunctuation('a , b\t\t. c ?d e')).toBe('a, b. c?d e');
    expect(dropClosingHashes('Title ## ')).toBe('Title');
    expect(dropClosingHashes('Title##')).toBe('Title##');
    expect(dropClosingHashes('C# and F#')).toBe('C# and F#');
  });

  it('gives what the regexes gave on random markdown', () => {
    // Every text through every pair, the differences collected and asserted once (an expect per
    // comparison cost more than the comparisons).
    const differences: string[] = [];
    const compare = (what: string, text: string, got: unknown, want: unknown) => {
      const a = typeof got === 'string' ? got : JSON.stringify(got);
      const b = typeof want === 'string' ? want : JSON.stringify(want);
      if (a !== b) differences.push(`${what} of ${JSON.stringify(text)}: ${JSON.stringify(a)}, the regex gave ${JSON.stringify(b)}`);
    };
    for (const text of randomTexts(20000, 14)) {
      compare('plainText', text, plainText(text), old.plainText(text));
      compare('fillerLinks', text, fillerLinks(text), old.fillerLinks(text));
      compare('headingLinks', text, headingLinks(text), old.headingLinks(text));
      compare('stripFencedCode', text, stripFencedCode(text), text.replace(/(^|\n)(`{3,}|~{3,})[^\n]*\n[\s\S]*?(\n\2[^\n]*|$)/g, '$1'));
      compare('stripListMarks', text, stripListMarks(text), text.replace(/(^|\n)\s*(?:[-*+]|\d+[.)])\s+(?:\[.\]\s+)?/g, '$1'));
      compare('replaceHtmlComments', text, replaceHtmlComments(text), text.replace(/<!--[\s\S]*?-->/g, ' '));
      compare('splitSentences', text, splitSentences(text), text.split(/[.!?;:]+(?:\s|$)|\n+/));
      compare('dropSpaceBeforePunctuation', text, dropSpaceBeforePunctuation(text), text.replace(/\s+([,.;:!?])/g, '$1'));
      compare('dropClosingHashes', text, dropClosingHashes(text), text.replace(/\s+#+\s*$/, ''));
    }
    expect(differences.slice(0, 20)).toEqual([]);
  });

  it('WHITESPACE holds exactly what \\s matches', () => {
    let all = '';
    for (let code = 0; code < 0x10000; code += 1) if (/\s/.test(String.fromCharCode(code))) all += String.fromCharCode(code);
    expect([...WHITESPACE].sort().join('')).toBe([...all].sort().join(''));
  });

  it("reads the ReDoS check's attack strings in linear time, as the regexes read them", () => {
    // Each attack as a function of its length: compared with the regex on a short one, timed on 1 MB.
    const attacks: ((n: number) => string)[] = [
      (n) => '[[#'.repeat(n / 3),
      (n) => `${'['.repeat(n)}][]()`,
      (n) => `${'<'.repeat(n)}\n<>`,
      (n) => `${'[[['.repeat(n / 3)}\0][[]]`,
      (n) => '['.repeat(n),
      (n) => '<!--'.repeat(n / 4),
      (n) => '[[|'.repeat(n / 3),
      (n) => `${'[['.repeat(n / 2)}\n[[]]`,
      (n) => `${'<<'.repeat(n / 2)}\n<\0>`,
      (n) => `\n${'\n'.repeat(n)}\r`,
      (n) => `~~${'~'.repeat(n)}`,
      (n) => `\n${'- \n'.repeat(n / 3)}x`,
      (n) => '[a]('.repeat(n / 4),
      (n) => '[[a]('.repeat(n / 5),
      (n) => `\`\`\`\n${'\n``'.repeat(n / 3)}`,
      (n) => `${'~'.repeat(n / 2)}\n${'\n~'.repeat(n / 4)}`,
    ];
    for (const attack of attacks) {
      const short = attack(300);
      expect(plainText(short)).toBe(old.plainText(short));
      expect(fillerLinks(short)).toBe(old.fillerLinks(short));
      expect(headingLinks(short)).toBe(old.headingLinks(short));
      const long = attack(MB);
      fast(() => plainText(long));
      fast(() => fillerLinks(long));
      fast(() => headingLinks(long));
    }
    expect(fast(() => plainText('[[#'.repeat(MB)))).toBe('[[#'.repeat(MB));
    expect(fast(() => plainText(`${'['.repeat(MB)}][]()`))).toBe(`${'['.repeat(MB)}]`);
    expect(fast(() => plainText(`~~${'~'.repeat(MB)}\nx`))).toBe('');
    expect(fast(() => splitSentences(`\0${'!'.repeat(MB)}\0\n`))).toEqual([`\0${'!'.repeat(MB)}\0`, '']);
    expect(fast(() => dropSpaceBeforePunctuation(`${'\t'.repeat(MB)}\0\t!`))).toBe(`${'\t'.repeat(MB)}\0!`);
    expect(fast(() => dropClosingHashes(`${'\t'.repeat(MB)}#\t#`))).toBe(`${'\t'.repeat(MB)}#`);
    expect(fast(() => stripListMarks('\n 1'.repeat(MB)))).toBe('\n 1'.repeat(MB));
  });
});
