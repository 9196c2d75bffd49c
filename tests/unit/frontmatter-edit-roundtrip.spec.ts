import { describe, expect, it } from 'vitest';
import { editFrontmatter, parseFrontmatter } from '../../lib/vault/notes/frontmatter';

// The write path validates and caches the properties editFrontmatter returns without parsing the
// text it writes; this pins that those properties are exactly what the written text parses to.

const NOTES: Record<string, string> = {
  'no front matter': '# Title\n\nBody text.\n',
  'an empty file': '',
  'a thematic break only': '---\nnot front matter, no closing line\n',
  'empty front matter': '---\n---\n# Body\n',
  'empty front matter, no body': '---\n---\n',
  'a blank line as front matter': '---\n\n---\nBody\n',
  'a scalar': '---\ntitle: Plan\n---\nBody\n',
  CRLF: '---\r\ntitle: Plan\r\ntags:\r\n  - a\r\n  - b\r\n---\r\nBody\r\n',
  'CRLF, no front matter': 'Body\r\nmore\r\n',
  'a BOM': '\uFEFF---\ntitle: Plan\n---\nBody\n',
  'a BOM, no front matter': '\uFEFFBody\n',
  'a block list': '---\ntags:\n  - atlas\n  - "[[Link]]"\ntitle: x\n---\n',
  'an unindented list': '---\ntags:\n- atlas\n- beta\nnext: 1\n---\n',
  'a nested map': '---\nmeta:\n  owner: ana\n  deep:\n    level: 3\ntitle: t\n---\nBody\n',
  'quoted strings': "---\na: 'single ''quoted'''\nb: \"double \\\"quoted\\\" \\u00e9\"\nc: 'yes'\n---\n",
  comments: '---\n# leading comment\ntitle: Plan # trailing\n# between\nstatus: draft\n# last\n---\nBody\n',
  'colons in values': '---\nurl: "https://example.com:8080/a"\ntime: 10:30\nnote: "a: b"\n---\n',
  'a literal block': '---\ntext: |\n  line one\n  line two\n\nafter: 1\n---\n',
  'a folded block': '---\ntext: >-\n  folded\n  lines\nafter: 2\n---\n',
  'a keep block at the end': '---\ntext: |+\n  kept\n\n---\nBody\n',
  'a keep block before the last key': '---\ntext: |+\n  kept\n\ntitle: x\n---\n',
  'a literal block at the end': '---\ntitle: x\ntext: |\n  a\n  b\n---\n',
  'a folded block at the end': '---\ntext: >\n  a\n  b\n---\n',
  'a strip block at the end, CRLF': '---\r\ntext: |-\r\n  a\r\n\r\n---\r\nBody\r\n',
  'a plain scalar over lines at the end': '---\ntitle: x\ntext: a plain\n  scalar\n---\n',
  'a multi-line plain scalar': '---\ntext: a plain\n  scalar over lines\nnext: x\n---\n',
  'flow sequences': '---\ntags: [a, b, "c d"]\nmap: {x: 1, y: [2, 3]}\n---\n',
  'null and empty values': '---\nempty:\nnothing: null\ntilde: ~\n---\n',
  'numbers, booleans and dates': '---\nn: 12\nf: 1.5\nb: true\nd: 2024-01-02\n---\n',
  'unicode keys and values': '---\nnaïve: café\n名前: 値\n---\n',
  'a yaml language tag': '---yaml\ntitle: tagged\n---\n',
  'trailing spaces on the close': '---\ntitle: x\n---  \nBody\n',
  'a document-end marker inside': '---\ntitle: x\nlist:\n  - one\n---\nBody with --- inside\n---\nmore\n',
};

const CHANGES: Record<string, Record<string, unknown>> = {
  'a new key': { added: 'value' },
  'a new key with a colon': { link: 'see: here' },
  'an existing scalar': { title: 'Changed' },
  'every key of the note set to new values': {
    title: 'T',
    tags: ['x'],
    meta: { a: 1 },
    text: 'new\ntext',
    a: 'A',
    b: 'B',
    url: 'u',
    empty: 'now set',
    n: 13,
    naïve: 'plain',
  },
  'a removed key': { title: undefined },
  'several removed keys': { title: undefined, tags: undefined, meta: undefined, text: undefined, empty: undefined, nothing: undefined, a: undefined },
  'a removed key that does not exist': { missing: undefined },
  'a list': { tags: ['one', 'two words', '[[Link]]', '#hash'] },
  'an empty list': { tags: [] },
  'a nested map': { meta: { owner: 'bo', list: [1, 2], deep: { x: null } } },
  null: { title: null, extra: null },
  'unicode values': { title: 'Ünïcödé ✓ 名前 🙂', 名前: '新しい' },
  'a multi-line string': { text: 'first\nsecond\n\nfourth' },
  'strings YAML would read otherwise': { a: 'yes', b: '123', c: 'null', d: '2024-01-02', e: '- dash', f: '# hash', g: "it's", h: ' padded ' },
  'numbers and booleans': { n: 0, f: -2.5, b: false },
  'the same value again': { title: 'Plan', tags: ['atlas', '[[Link]]'] },
  'keys needing quotes': { 'with space': 1, 'with: colon': 2, '#hash': 3 },
};

describe('editFrontmatter returns the properties of the text it writes', () => {
  for (const [noteName, note] of Object.entries(NOTES)) {
    for (const [changeName, changes] of Object.entries(CHANGES)) {
      it(`${noteName}, ${changeName}`, () => {
        const before = parseFrontmatter(note.replace(/^\uFEFF/, ''));
        expect(before.ok).toBe(true);
        const edited = editFrontmatter(note, changes);
        const reparsed = parseFrontmatter(edited.text.replace(/^\uFEFF/, ''));
        expect(reparsed.ok ? reparsed.data : reparsed.error).toEqual(edited.data);
        // With the parse handed in (as the write path does), the same text and properties.
        const known = editFrontmatter(note.replace(/^\uFEFF/, ''), changes, before);
        expect(known.text).toBe(edited.text.replace(/^\uFEFF/, ''));
        expect(known.data).toEqual(edited.data);
      });
    }
  }
});
