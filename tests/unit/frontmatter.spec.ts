import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import matter from 'gray-matter';
import { afterEach, describe, expect, it } from 'vitest';
import { VaultError } from '../../lib/vault/errors';
import { parseFrontmatter, setFrontmatterFields, splitNote } from '../../lib/vault/notes/frontmatter';

/** A file path that a payload would create; it must never exist. */
function canaryPath(): string {
  return path.join(os.tmpdir(), `lucid-canary-${randomBytes(6).toString('hex')}`);
}

/** JavaScript that creates `file` when evaluated by gray-matter's default `js` engine. */
function payload(file: string): string {
  return `require('fs').writeFileSync(${JSON.stringify(file)}, 'pwned')`;
}

const canaries: string[] = [];
afterEach(() => {
  for (const file of canaries.splice(0)) fs.rmSync(file, { force: true });
});

function newCanary(): string {
  const file = canaryPath();
  canaries.push(file);
  return file;
}

function expectError(text: string): { error: string; line?: number } {
  const parsed = parseFrontmatter(text);
  expect(parsed.ok).toBe(false);
  if (parsed.ok) throw new Error('unreachable');
  return { error: parsed.error, line: parsed.line };
}

function dataOf(text: string): Record<string, unknown> {
  const parsed = parseFrontmatter(text);
  if (!parsed.ok) throw new Error(`expected front matter to parse: ${parsed.error}`);
  return parsed.data;
}

/** The indexes of lines that differ between two texts of the same line count. */
function changedLines(before: string, after: string): number[] {
  const a = before.split('\n');
  const b = after.split('\n');
  expect(b.length).toBe(a.length);
  return a.flatMap((line, i) => (line === b[i] ? [] : [i]));
}

describe('splitNote', () => {
  it('reads a note that opens with a --- thematic break and never closes it as body only', () => {
    const text = '---\nA paragraph after a rule.\n\nMore text: with a colon.\n';
    const parts = splitNote(text);
    expect(parts.hasFrontmatter).toBe(false);
    expect(parts.body).toBe(text);
    expect(parts.bodyStart).toBe(0);
  });

  it('reads a note whose first line is ---- as body only', () => {
    const text = '----\ntitle: not properties\n----\nbody\n';
    const parts = splitNote(text);
    expect(parts.hasFrontmatter).toBe(false);
    expect(parts.body).toBe(text);
  });

  it('closes the front matter at the first --- line and keeps a later --- rule in the body', () => {
    const text = '---\ntitle: x\n---\nintro\n\n---\n\nafter the rule\n';
    const parts = splitNote(text);
    expect(parts.hasFrontmatter).toBe(true);
    expect(parts.frontmatter).toBe('title: x');
    expect(parts.body).toBe('intro\n\n---\n\nafter the rule\n');
    expect(text.slice(parts.bodyStart)).toBe(parts.body);
  });

  it('does not take a --- inside a line as the closing delimiter', () => {
    const parts = splitNote('---\ntitle: a --- b\nnote: x---\n---\nbody\n');
    expect(parts.frontmatter).toBe('title: a --- b\nnote: x---');
    expect(parts.body).toBe('body\n');
  });

  it('reads CRLF notes and reports their line break', () => {
    const parts = splitNote('---\r\ntitle: x\r\n---\r\nbody\r\n');
    expect(parts.hasFrontmatter).toBe(true);
    expect(parts.eol).toBe('\r\n');
    expect(parts.frontmatter).toBe('title: x');
    expect(parts.body).toBe('body\r\n');
  });

  it('names the language after the opening delimiter, lowercased and trimmed', () => {
    expect(splitNote('---JS  \n{}\n---\n').language).toBe('js');
    expect(splitNote('---\ntitle: x\n---\n').language).toBe('');
  });
});

describe('parseFrontmatter', () => {
  it('keeps dates and times as the strings they were written as', () => {
    const data = dataOf('---\ndate: 2024-01-01\ncreated: 2024-01-01 10:00\nstarted: 2026-11-30T14:02:00+01:00\n---\n');
    expect(data).toEqual({ date: '2024-01-01', created: '2024-01-01 10:00', started: '2026-11-30T14:02:00+01:00' });
  });

  it('keeps yes, no, on and off as strings (YAML 1.2), and true/false and numbers as values', () => {
    const data = dataOf('---\na: yes\nb: no\nc: on\nd: off\ne: true\nf: 3\n---\n');
    expect(data).toEqual({ a: 'yes', b: 'no', c: 'on', d: 'off', e: true, f: 3 });
  });

  it('returns an empty object for a note without front matter and for an empty block', () => {
    expect(dataOf('just text\n')).toEqual({});
    expect(dataOf('---\n---\nbody\n')).toEqual({});
  });

  it('refuses duplicate keys and names the line of the duplicate', () => {
    const { error, line } = expectError('---\na: 1\nb: 2\na: 3\n---\nbody\n');
    expect(line).toBe(4);
    expect(error).toContain('line 4');
    expect(error).toMatch(/unique/i);
  });

  it('refuses an unclosed [ with an invalid YAML error', () => {
    const { error, line } = expectError('---\ntitle: [unclosed\n---\nbody\n');
    expect(error).toMatch(/^Invalid YAML/);
    expect(line).toBe(2);
  });

  it('refuses tabs used as indentation', () => {
    const { error, line } = expectError('---\nparent:\n\tchild: 1\n---\n');
    expect(error).toMatch(/tab/i);
    expect(line).toBe(3);
  });

  it('refuses a billion-laughs alias bomb without expanding it', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i += 1) {
      const previous = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(', ')}]`);
    }
    const { error } = expectError(`---\n${lines.join('\n')}\n---\n`);
    expect(error).toMatch(/alias/i);
  });

  it('refuses 5,000 levels of [ with a clean error', () => {
    const open = expectError(`---\nx: ${'['.repeat(5000)}\n---\n`);
    expect(open.error).toMatch(/nested more than \d+ levels/);
    const balanced = expectError(`---\nx: ${'['.repeat(5000)}${']'.repeat(5000)}\n---\n`);
    expect(balanced.error).toMatch(/nested more than \d+ levels/);
  });

  it('keeps __proto__, constructor.prototype and << merge keys as own data and never pollutes Object.prototype', () => {
    const text = [
      '---',
      '__proto__:',
      '  polluted: 1',
      'constructor:',
      '  prototype:',
      '    polluted: 2',
      '<<:',
      '  __proto__:',
      '    polluted: 3',
      'merged:',
      '  <<: {polluted: 4}',
      '---',
      '',
    ].join('\n');
    const data = dataOf(text);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.hasOwn(data, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(data, '__proto__')?.value).toEqual({ polluted: 1 });
    expect((data as { polluted?: unknown }).polluted).toBeUndefined();
    expect(data.merged).toEqual({ '<<': { polluted: 4 } });
    expect(JSON.parse(JSON.stringify(data))).toMatchObject({ constructor: { prototype: { polluted: 2 } } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('keeps !!js/function, !!js/regexp, !!js/undefined and !!python/object as inert plain values', () => {
    const data = dataOf(
      '---\nf: !!js/function "function () { return 1 }"\nr: !!js/regexp /a/g\nu: !!js/undefined ""\np: !!python/object:os.system [ls]\n---\n',
    );
    expect(data).toEqual({ f: 'function () { return 1 }', r: '/a/g', u: '', p: ['ls'] });
    for (const value of Object.values(data)) expect(typeof value === 'function' || value instanceof RegExp).toBe(false);
  });

  it('proves its canary: gray-matter with its default engines does run ---js front matter', () => {
    const canary = newCanary();
    matter(`---js\n${payload(canary)}\n---\nbody ${canary}\n`, { language: 'yaml' });
    expect(fs.existsSync(canary)).toBe(true);
  });

  it.each(['---js', '---javascript', '---JS  ', '---JavaScript\t'])('never runs %j front matter and reports it as unsupported', (opener) => {
    const canary = newCanary();
    const { error } = expectError(`${opener}\n${payload(canary)}\n---\nbody\n`);
    expect(error).toMatch(/not supported/);
    expect(fs.existsSync(canary)).toBe(false);
  });

  it('never runs a ---js block that sits at the start of the body', () => {
    const canary = newCanary();
    const text = `---\ntitle: safe\n---\n---js\n${payload(canary)}\n---\n`;
    expect(dataOf(text)).toEqual({ title: 'safe' });
    expect(fs.existsSync(canary)).toBe(false);
  });

  it('refuses ---coffee every time the same text is parsed (nothing is cached)', () => {
    const text = '---coffee\na = 1\n---\nbody\n';
    const first = expectError(text);
    const second = expectError(text);
    expect(first.error).toMatch(/"coffee" is not supported/);
    expect(second.error).toBe(first.error);
  });

  it('refuses ---toml and ---whatever and leaves the text itself alone', () => {
    const text = '---toml\na = 1\n---\nbody\n';
    expect(expectError(text).error).toMatch(/"toml"/);
    expect(expectError('---whatever\nx\n---\n').error).toMatch(/"whatever"/);
  });

  it('hands out fresh data: mutating one result does not change the next parse of the same text', () => {
    const text = '---\ntitle: Original\ntags:\n  - a\nmeta:\n  k: v\n---\nbody\n';
    const first = dataOf(text);
    first.title = 'Changed';
    (first.tags as string[]).push('b');
    (first.meta as Record<string, string>).k = 'changed';
    first.extra = true;
    expect(dataOf(text)).toEqual({ title: 'Original', tags: ['a'], meta: { k: 'v' } });
  });

  it("leaves no entry in gray-matter's process-wide cache", () => {
    const cache = (matter as unknown as { cache: Record<string, unknown> }).cache;
    const before = Object.keys(cache).length;
    for (let i = 0; i < 20; i += 1) dataOf(`---\ntitle: note ${i}\n---\nbody ${i}\n`);
    expect(Object.keys(cache).length).toBe(before);
  });

  it('refuses front matter that is a list or a scalar instead of properties', () => {
    expect(expectError('---\n- a\n- b\n---\n').error).toMatch(/key: value/);
    expect(expectError('---\njust a string\n---\n').error).toMatch(/key: value/);
  });
});

describe('setFrontmatterFields', () => {
  const note = [
    '---',
    '# a comment the person wrote',
    'title: "Quoted title"',
    "alias: 'single quoted'",
    'status: inbox',
    'date: 2024-01-01',
    'created: 2024-01-01 10:00',
    'draft: yes',
    'public: no',
    'live: on',
    'tags:',
    '  - one',
    '  - two',
    'project: "[[projects/atlas]]"',
    'zeta: last # keeps its comment',
    '---',
    '',
    'Body text with a [[link]].',
    '',
  ].join('\n');

  it('changing one field changes exactly that one line and keeps comments, quotes, yes/no and key order', () => {
    const out = setFrontmatterFields(note, { status: 'accepted' });
    const changed = changedLines(note, out);
    expect(changed).toEqual([4]);
    expect(out.split('\n')[4]).toBe('status: accepted');
  });

  it('changes exactly one line of a CRLF note and keeps every line break CRLF', () => {
    const crlf = note.replace(/\n/g, '\r\n');
    const out = setFrontmatterFields(crlf, { status: 'accepted' });
    expect(out).toBe(crlf.replace('status: inbox\r\n', 'status: accepted\r\n'));
    expect(out.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('keeps a leading BOM and changes only the one line after it', () => {
    const out = setFrontmatterFields(`\uFEFF${note}`, { status: 'accepted' });
    expect(out).toBe(`\uFEFF${note.replace('status: inbox\n', 'status: accepted\n')}`);
  });

  it('appends a new field as one line at the end of the block', () => {
    const out = setFrontmatterFields(note, { owner: '[[people/ada]]' });
    expect(out).toBe(note.replace('zeta: last # keeps its comment\n', 'zeta: last # keeps its comment\nowner: "[[people/ada]]"\n'));
  });

  it('removes a field given as undefined, and only its lines', () => {
    expect(setFrontmatterFields(note, { draft: undefined })).toBe(note.replace('draft: yes\n', ''));
    expect(setFrontmatterFields(note, { tags: undefined })).toBe(note.replace('tags:\n  - one\n  - two\n', ''));
  });

  it('writes lists as block lists and quotes links', () => {
    expect(setFrontmatterFields(note, { tags: ['x', 'y'] })).toBe(note.replace('  - one\n  - two\n', '  - x\n  - y\n'));
    const added = setFrontmatterFields('---\ntitle: a\n---\n', { people: ['[[people/ada]]', '[[people/bob]]'] });
    expect(added).toBe('---\ntitle: a\npeople:\n  - "[[people/ada]]"\n  - "[[people/bob]]"\n---\n');
    expect(dataOf(added).people).toEqual(['[[people/ada]]', '[[people/bob]]']);
  });

  it('quotes values that YAML would otherwise read differently', () => {
    const out = setFrontmatterFields('---\ntitle: a\n---\n', { note: 'has: colon', tag: '#tag', empty: '' });
    expect(dataOf(out)).toEqual({ title: 'a', note: 'has: colon', tag: '#tag', empty: '' });
  });

  it('returns the identical text when every value is unchanged', () => {
    expect(setFrontmatterFields(note, { status: 'inbox', date: '2024-01-01', tags: ['one', 'two'], draft: 'yes' })).toBe(note);
    expect(setFrontmatterFields(note, { missing: undefined })).toBe(note);
  });

  it('replaces a multi-line value with its new lines and nothing else', () => {
    const text = '---\nsummary: |\n  line one\n  line two\nnext: 1\n---\nbody\n';
    expect(setFrontmatterFields(text, { summary: 'short' })).toBe('---\nsummary: short\nnext: 1\n---\nbody\n');
  });

  it('adds a front-matter block to a note that has none, keeping the body', () => {
    expect(setFrontmatterFields('Just a body.\n', { status: 'x' })).toBe('---\nstatus: x\n---\n\nJust a body.\n');
  });

  it("keeps a thematic-break note's body intact when adding properties", () => {
    const text = '---\nA paragraph after a rule.\n';
    const out = setFrontmatterFields(text, { status: 'x' });
    expect(out.endsWith(text)).toBe(true);
    expect(dataOf(out)).toEqual({ status: 'x' });
  });

  it('keeps a later --- rule in the body when changing a field', () => {
    const text = '---\ntitle: x\n---\nintro\n\n---\n\nafter\n';
    expect(setFrontmatterFields(text, { title: 'y' })).toBe('---\ntitle: y\n---\nintro\n\n---\n\nafter\n');
  });

  it('throws invalid_frontmatter for broken YAML and never returns a rewrite', () => {
    for (const broken of ['---\ntitle: [unclosed\n---\nbody\n', '---\na: 1\na: 2\n---\n', '---coffee\na = 1\n---\n']) {
      let caught: unknown;
      try {
        setFrontmatterFields(broken, { status: 'x' });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(VaultError);
      expect((caught as VaultError).code).toBe('invalid_frontmatter');
    }
  });

  it('never runs ---js front matter when asked to change a field', () => {
    const canary = newCanary();
    expect(() => setFrontmatterFields(`---js\n${payload(canary)}\n---\nbody\n`, { title: 'x' })).toThrow(VaultError);
    expect(fs.existsSync(canary)).toBe(false);
  });

  it('never runs a ---js block at the start of the body when changing a field, and keeps it byte for byte', () => {
    const canary = newCanary();
    const body = `---js\n${payload(canary)}\n---\n`;
    const out = setFrontmatterFields(`---\ntitle: a\n---\n${body}`, { title: 'b' });
    expect(out).toBe(`---\ntitle: b\n---\n${body}`);
    expect(dataOf(out)).toEqual({ title: 'b' });
    expect(fs.existsSync(canary)).toBe(false);
  });
});
