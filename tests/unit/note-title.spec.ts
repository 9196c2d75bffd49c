import { describe, expect, it } from 'vitest';
import { closeNotes, parseNoteReference } from '../../lib/vault/agents/read-note';
import { firstTitleHeading, parseHeadings } from '../../lib/vault/notes/headings';
import { buildNote, noteTitle } from '../../lib/vault/notes/note';

const titleOf = (path: string, text: string) => buildNote(path, Buffer.from(text), 0).title;

describe("a note's title follows the vault format's rule", () => {
  it('is the title field first, even over a name and a heading', () => {
    expect(titleOf('people/jane.md', '---\ntype: person\nname: Jane Doe\ntitle: "Dr. Jane Doe"\n---\n# Jane\n')).toBe('Dr. Jane Doe');
    expect(titleOf('notes/plan.md', '---\ntitle: "  The   plan  "\n---\n# Plan v2\n')).toBe('The plan');
    expect(titleOf('notes/year.md', '---\ntitle: 2026\n---\n')).toBe('2026');
  });

  it("is a person's or a project's name when there is no title field", () => {
    expect(titleOf('people/jane-doe.md', '---\ntype: person\nname: Jane Doe\n---\n# About her\n')).toBe('Jane Doe');
    expect(titleOf('projects/test-project-2.md', '---\ntype: project\nname: Test Project 2\nstatus: active\n---\n')).toBe('Test Project 2');
  });

  it('ignores the name of a note that is neither a person nor a project', () => {
    expect(titleOf('skills/deploy.md', '---\ntype: skill\nname: deploy-it\n---\n# How to deploy\n')).toBe('How to deploy');
    expect(titleOf('notes/tool.md', '---\nname: Hammer\n---\nA tool.\n')).toBe('tool');
  });

  it('is the first "# " heading of a note with neither', () => {
    expect(titleOf('notes/meeting.md', 'Some text.\n\n## Agenda\n\n# Weekly meeting ##\n\n# Second\n')).toBe('Weekly meeting');
    expect(titleOf('notes/x.md', '---\ntags: [a]\n---\n   # Indented up to three spaces\n')).toBe('Indented up to three spaces');
    expect(titleOf('notes/c.md', '# C#\n')).toBe('C#');
  });

  it('is the file name of a bare note', () => {
    expect(titleOf('Notes/Bare note.md', 'Just text, #tag and no heading.\n')).toBe('Bare note');
    expect(titleOf('notes/empty.md', '')).toBe('empty');
    expect(titleOf('notes/hashes.md', '#\n# \n####### seven\n#nospace\n')).toBe('hashes');
  });

  it('skips headings inside fenced code blocks', () => {
    expect(titleOf('notes/code.md', '```sh\n# not a heading\n```\n\n~~~~\n# nor this\n~~~\n~~~~\n# Real\n')).toBe('Real');
  });

  it('uses the heading or the file name when the front matter does not parse', () => {
    const broken = buildNote('notes/broken.md', Buffer.from('---\ntitle: [unclosed\n---\n# Still a heading\n'), 0);
    expect(broken.problem).toBe('invalid_frontmatter');
    expect(broken.title).toBe('Still a heading');
    expect(noteTitle('notes/broken.md', null, 'no heading')).toBe('broken');
  });

  it('is the file name of a binary file', () => {
    expect(buildNote('notes/blob.md', Buffer.from([0x00, 0xff, 0x00, 0x01]), 0).title).toBe('blob');
  });
});

describe('headings', () => {
  it('lists every ATX heading with its level, text, the offsets of its line and its line number', () => {
    const body = '# One\n\ntext\n## Two ##\n```\n## no\n```\n### Three\n';
    expect(parseHeadings(body)).toEqual([
      { level: 1, text: 'One', offset: 0, end: 5, line: 0 },
      { level: 2, text: 'Two', offset: 12, end: 21, line: 3 },
      { level: 3, text: 'Three', offset: 36, end: 45, line: 7 },
    ]);
    expect(body.slice(12, 21)).toBe('## Two ##');
    expect(body.slice(36, 45)).toBe('### Three');
  });

  it('reads CRLF line ends and a last line without one', () => {
    expect(parseHeadings('# A\r\ntext\r\n## B')).toEqual([
      { level: 1, text: 'A', offset: 0, end: 3, line: 0 },
      { level: 2, text: 'B', offset: 11, end: 15, line: 2 },
    ]);
    expect(firstTitleHeading('## Only level two\n')).toBeNull();
  });
});

describe('what an agent names a note by', () => {
  it('reads wikilinks with an alias, a heading, both, an embed, and a table-escaped bar', () => {
    expect(parseNoteReference('[[Jane Doe]]')).toEqual({ target: 'Jane Doe', heading: null });
    expect(parseNoteReference(' [[Jane Doe|Jane]] ')).toEqual({ target: 'Jane Doe', heading: null });
    expect(parseNoteReference('[[Jane Doe#Role]]')).toEqual({ target: 'Jane Doe', heading: 'Role' });
    expect(parseNoteReference('[[people/Jane Doe#Role#Since|her role]]')).toEqual({ target: 'people/Jane Doe', heading: 'Role#Since' });
    expect(parseNoteReference('![[Jane Doe\\|x]]')).toEqual({ target: 'Jane Doe', heading: null });
    expect(parseNoteReference('[[Jane Doe#^block1]]')).toEqual({ target: 'Jane Doe', heading: null });
  });

  it('takes anything else as written, a # included', () => {
    expect(parseNoteReference('Notes/Résumé tips #1.md')).toEqual({ target: 'Notes/Résumé tips #1.md', heading: null });
    expect(parseNoteReference('Jane Doe')).toEqual({ target: 'Jane Doe', heading: null });
  });
});

describe('close matches for a name that matches no note', () => {
  const notes = [
    buildNote('Databases/CRM/Jane Doe.md', Buffer.from('# Jane Doe\n'), 0),
    buildNote('people/john-smith.md', Buffer.from('---\ntype: person\nname: John Smith\n---\n'), 0),
    buildNote('projects/atlas.md', Buffer.from('---\ntype: project\nname: Atlas\nstatus: active\naliases: [Billing]\n---\n'), 0),
    buildNote('notes/unrelated.md', Buffer.from('# Something else\n'), 0),
  ];
  const paths = (query: string) => closeNotes(query, notes).map((n) => n.path);

  it('finds a misspelling by edit distance, of the file name or the title', () => {
    expect(paths('Jane Do')).toEqual(['Databases/CRM/Jane Doe.md']);
    expect(paths('Jon Smith')).toEqual(['people/john-smith.md']);
    expect(paths('atlass')).toEqual(['projects/atlas.md']);
  });

  it('finds a part of the name, shared words and an alias', () => {
    expect(paths('jane')).toEqual(['Databases/CRM/Jane Doe.md']);
    expect(paths('smith john')).toEqual(['people/john-smith.md']);
    expect(paths('billin')).toEqual(['projects/atlas.md']);
  });

  it('names nothing that is not close', () => {
    expect(paths('kubernetes')).toEqual([]);
  });
});
