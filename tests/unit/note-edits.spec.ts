import { describe, expect, it } from 'vitest';
import { parseInput } from '../../lib/vault/agents/contract';
import { editNoteInputSchema } from '../../lib/vault/agents/contract-write';
import { VaultError } from '../../lib/vault/errors';
import { parseHeadings } from '../../lib/vault/notes/headings';
import { appendToText } from '../../lib/vault/agents/write-ops';
import { applyNoteEdit, type NoteEdit } from '../../lib/vault/notes/note-edits';

const PATH = 'notes/plan.md';
const edit = (text: string, e: NoteEdit) => applyNoteEdit(PATH, text, e);

/** The VaultError an edit is refused with. */
function refusal(text: string, e: NoteEdit): VaultError {
  try {
    edit(text, e);
  } catch (error) {
    if (error instanceof VaultError) return error;
    throw error;
  }
  throw new Error('the edit was not refused');
}

const NOTE = [
  '---', // 1
  'title: Plan', // 2
  '---', // 3
  '# Plan', // 4
  '', // 5
  'Intro line.', // 6
  '', // 7
  '## Status', // 8
  '', // 9
  'Active since May.', // 10
  'Owner: Ana.', // 11
  '', // 12
  '### Detail', // 13
  'Nested text.', // 14
  '', // 15
  '## Next', // 16
  '- ship it', // 17
  '',
].join('\n');

describe('parseHeadings', () => {
  it("gives each heading's line and where its line ends, before a CRLF's carriage return", () => {
    expect(parseHeadings('# A\r\ntext\r\n## B\r\n')).toEqual([
      { level: 1, text: 'A', offset: 0, end: 3, line: 0 },
      { level: 2, text: 'B', offset: 11, end: 15, line: 2 },
    ]);
  });

  it('counts the lines of a fenced code block but finds no heading in it', () => {
    expect(parseHeadings('```sh\n# not a heading\n```\n## Real\n')).toEqual([{ level: 2, text: 'Real', offset: 26, end: 33, line: 3 }]);
  });
});

describe('headings inside comments', () => {
  it('finds no heading inside a %% comment or an HTML comment, a fence inside a comment stays text', () => {
    expect(parseHeadings('## A\n%%\n## Hidden\n%%\n<!--\n## Also hidden\n-->\n## B\n').map((h) => h.text)).toEqual(['A', 'B']);
    expect(parseHeadings('`%%`\n## Shown\n`%%`\n').map((h) => h.text)).toEqual(['Shown']);
  });

  it('replace_section runs over a heading inside a %% comment instead of cutting the comment in two', () => {
    const text = '## Notes\nKeep this.\n%%\n## Draft\nhidden\n%%\nVisible tail.\n## Next\n';
    expect(edit(text, { operation: 'replace_section', heading: '## Notes', content: 'New.' }).text).toBe('## Notes\nNew.\n## Next\n');
  });

  it('a heading repeated inside a comment is not a duplicate, and insert_before_heading lands outside the comment', () => {
    const text = '## Status\nok\n<!--\n## Status\n-->\n## End\n';
    expect(edit(text, { operation: 'insert_before_heading', heading: '## Status', content: 'Top.' }).text).toBe(`Top.\n${text}`);
    const hiddenOnly = '## A\n%%\n## Target\n%%\n';
    expect(refusal(hiddenOnly, { operation: 'insert_after_heading', heading: '## Target', content: 'x' }).code).toBe('not_found');
  });
});

describe('find_replace', () => {
  it('replaces the one occurrence and keeps every other byte', () => {
    const result = edit(NOTE, { operation: 'find_replace', find: 'since May', replace: 'since June' });
    expect(result.text).toBe(NOTE.replace('since May', 'since June'));
    expect(result).toMatchObject({ bodyOnly: true, replacements: 1, line: 10 });
  });

  it('replaces every occurrence when expected_replacements says how many there are', () => {
    const text = 'a cat, a cat, a dog\n';
    expect(edit(text, { operation: 'find_replace', find: 'cat', replace: 'fox', expectedReplacements: 2 }).text).toBe('a fox, a fox, a dog\n');
  });

  it('refuses another count with the count found and the lines, changing nothing', () => {
    const error = refusal(NOTE, { operation: 'find_replace', find: 'Status', replace: 'State', expectedReplacements: 2 });
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^find occurs 1 time in notes\/plan\.md \(line 8\), not 2 as expected_replacements says; nothing was changed\./);
    const twice = refusal('x\ny\nx\n', { operation: 'find_replace', find: 'x', replace: 'z' });
    expect(twice.message).toContain('find occurs 2 times in notes/plan.md (lines 1 and 3), not 1');
    expect(twice.message).toContain('expected_replacements 2');
    expect(twice.details).toMatchObject({ field: 'expected_replacements', found: 2 });
  });

  it('refuses text that is not there as not_found', () => {
    const error = refusal(NOTE, { operation: 'find_replace', find: 'since march', replace: 'x' });
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('matched literally');
  });

  it('matches the line breaks of a CRLF note and writes CRLF in the replacement', () => {
    const text = 'one\r\ntwo\r\nthree\r\n';
    expect(edit(text, { operation: 'find_replace', find: 'one\ntwo', replace: 'uno\ndos' }).text).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('may change the front matter, which is then no longer body only', () => {
    const result = edit(NOTE, { operation: 'find_replace', find: 'title: Plan', replace: 'title: The plan' });
    expect(result.text).toBe(NOTE.replace('title: Plan', 'title: The plan'));
    expect(result.bodyOnly).toBe(false);
  });

  it('refuses an edit that changes nothing', () => {
    expect(refusal(NOTE, { operation: 'find_replace', find: 'Plan', replace: 'Plan', expectedReplacements: 2 }).message).toBe(
      'The edit leaves notes/plan.md as it is; nothing was written.',
    );
  });
});

describe('replace_section', () => {
  it('replaces the text under the heading, nested headings included, up to the next heading of its level; blank lines around stay', () => {
    const result = edit(NOTE, { operation: 'replace_section', heading: '## Status', content: 'Paused.\n' });
    expect(result.text).toBe(NOTE.replace('Active since May.\nOwner: Ana.\n\n### Detail\nNested text.\n', 'Paused.\n'));
    expect(result.line).toBe(10);
  });

  it('ends a section at a heading of a higher level', () => {
    const text = '## A\nold\n# B\nkept\n';
    expect(edit(text, { operation: 'replace_section', heading: '## A', content: 'new' }).text).toBe('## A\nnew\n# B\nkept\n');
  });

  it('runs the last section to the end, keeping a missing final line break missing', () => {
    expect(edit('## A\nold', { operation: 'replace_section', heading: '## A', content: 'new\n' }).text).toBe('## A\nnew');
    expect(edit('## A\nold\n', { operation: 'replace_section', heading: '## A', content: 'new' }).text).toBe('## A\nnew\n');
  });

  it('drops a first line that repeats the heading, since the heading stays', () => {
    expect(edit('## A\nold\n## B\n', { operation: 'replace_section', heading: '## A', content: '## A\nnew\n' }).text).toBe('## A\nnew\n## B\n');
  });

  it('clears a section with empty content', () => {
    expect(edit('## A\n\nold\n\n## B\n', { operation: 'replace_section', heading: '## A', content: '' }).text).toBe('## A\n\n## B\n');
  });

  it('fills an empty section, with a blank line before the next heading when there was one', () => {
    expect(edit('## A\n\n## B\n', { operation: 'replace_section', heading: '## A', content: 'new' }).text).toBe('## A\n\nnew\n\n## B\n');
    expect(edit('## A\n## B\n', { operation: 'replace_section', heading: '## A', content: 'new' }).text).toBe('## A\nnew\n## B\n');
    expect(edit('text\n## A', { operation: 'replace_section', heading: '## A', content: 'new' }).text).toBe('text\n## A\nnew');
  });

  it('writes the section with the note’s CRLF line endings', () => {
    const text = '## A\r\nold\r\n## B\r\n';
    expect(edit(text, { operation: 'replace_section', heading: '## A', content: 'one\ntwo\n' }).text).toBe('## A\r\none\r\ntwo\r\n## B\r\n');
  });

  it('matches the heading by level and text: `### Status` is another heading', () => {
    expect(refusal(NOTE, { operation: 'replace_section', heading: '### Status', content: 'x' }).code).toBe('not_found');
  });

  it('refuses a heading that occurs twice, naming both lines of the file', () => {
    const text = '---\ntitle: T\n---\n## Log\none\n## Log\ntwo\n';
    const error = refusal(text, { operation: 'replace_section', heading: '## Log', content: 'x' });
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain('has the heading "## Log" twice, at lines 4 and 6');
    expect(error.message).toContain('nothing was changed');
  });

  it('refuses a missing heading, listing the headings with their lines', () => {
    const error = refusal(NOTE, { operation: 'replace_section', heading: '## Risks', content: 'x' });
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('has no heading "## Risks"');
    expect(error.message).toContain('Its headings: "# Plan" (line 4), "## Status" (line 8), "### Detail" (line 13), "## Next" (line 16).');
  });

  it('refuses a heading given without its level, naming the one meant', () => {
    const error = refusal(NOTE, { operation: 'replace_section', heading: 'Status', content: 'x' });
    expect(error.message).toBe('heading must be one heading line with its level, e.g. "## Status", not "Status". notes/plan.md has "## Status" (line 8).');
  });

  it('does not count a # line inside a fenced code block as a heading', () => {
    const text = '## Setup\nrun it\n\n```md\n## Setup\n# Title\n```\n\n## Next\n';
    // The fenced `## Setup` is not a second heading: the section (its code block included) runs to `## Next`.
    expect(edit(text, { operation: 'replace_section', heading: '## Setup', content: 'run it twice' }).text).toBe('## Setup\nrun it twice\n\n## Next\n');
    expect(refusal(text, { operation: 'replace_section', heading: '# Title', content: 'x' }).code).toBe('not_found');
  });
});

describe('inserting at a heading', () => {
  it('insert_after_heading puts the content right after the heading line', () => {
    expect(edit(NOTE, { operation: 'insert_after_heading', heading: '## Status', content: 'New line.' }).text).toBe(
      NOTE.replace('## Status\n', '## Status\nNew line.\n'),
    );
  });

  it('insert_before_heading puts the content on the lines before it', () => {
    expect(edit(NOTE, { operation: 'insert_before_heading', heading: '## Next', content: 'Before next.\n\n' }).text).toBe(
      NOTE.replace('## Next\n', 'Before next.\n\n## Next\n'),
    );
  });

  it('takes the CRLF line endings of the note and keeps a missing final line break', () => {
    expect(edit('# A\r\nx\r\n', { operation: 'insert_after_heading', heading: '# A', content: 'one\ntwo' }).text).toBe('# A\r\none\r\ntwo\r\nx\r\n');
    expect(edit('x\n# A', { operation: 'insert_after_heading', heading: '# A', content: 'y\n' }).text).toBe('x\n# A\ny');
  });
});

describe('prepend and append', () => {
  it('prepend inserts after the front matter, or at the top of a note without any', () => {
    expect(edit(NOTE, { operation: 'prepend', content: 'First.' }).text).toBe(NOTE.replace('---\n# Plan', '---\nFirst.\n# Plan'));
    expect(edit('# A\n', { operation: 'prepend', content: 'First.' })).toMatchObject({ text: 'First.\n# A\n', bodyOnly: true });
  });

  it('a prepend that makes front matter of a note without it is not body only', () => {
    expect(edit('# A\n', { operation: 'prepend', content: '---\ntype: project\n---' }).bodyOnly).toBe(false);
  });

  it('append leaves one blank line before the content and keeps the final line break as it was', () => {
    expect(edit('a\n', { operation: 'append', content: 'b' }).text).toBe('a\n\nb\n');
    expect(edit('a', { operation: 'append', content: '\nb\n' }).text).toBe('a\n\nb');
    expect(edit('a\n\n\n', { operation: 'append', content: 'b' }).text).toBe('a\n\n\nb\n');
    expect(edit('a\r\n', { operation: 'append', content: 'b\nc' }).text).toBe('a\r\n\r\nb\r\nc\r\n');
  });

  it('refuses blank content', () => {
    expect(refusal(NOTE, { operation: 'append', content: '  \n' }).details).toMatchObject({ field: 'content' });
  });
});

describe("write_note's append and the inbox's are edit_note's", () => {
  it('keeps trailing blank lines, a missing final line break and the line ending of the first line', () => {
    for (const text of ['Text\n\n\n', 'Text', 'Text\n', '# A\r\nx\r\n', '# A\nx\r\n', '']) {
      expect(appendToText(text, 'X')).toBe(text === '' ? 'X\n' : edit(text, { operation: 'append', content: 'X' }).text);
    }
    expect(appendToText('Text\n\n\n', 'X')).toBe('Text\n\n\nX\n');
    expect(appendToText('# A\nx\r\n', 'X')).toBe('# A\nx\r\n\nX\n');
  });
});

describe("edit_note's input", () => {
  const SESSION = '20261130-140112-claude-code-k3tq';
  const base = { session: SESSION, path: 'notes/a.md', reason: 'r' };
  const problem = (input: Record<string, unknown>) => {
    try {
      parseInput(editNoteInputSchema, { ...base, ...input });
    } catch (error) {
      if (error instanceof VaultError) return { code: error.code, message: error.message, field: error.details?.field };
      throw error;
    }
    return null;
  };

  it('takes each operation with its own fields', () => {
    expect(problem({ operation: 'find_replace', find: 'a', replace: '' })).toBeNull();
    expect(problem({ operation: 'find_replace', find: 'a', replace: 'b', expected_replacements: 3 })).toBeNull();
    expect(problem({ operation: 'replace_section', heading: '## A', content: '' })).toBeNull();
    expect(problem({ operation: 'insert_after_heading', heading: '## A', content: 'x' })).toBeNull();
    expect(problem({ operation: 'append', content: 'x', expected_hash: 'a'.repeat(64) })).toBeNull();
  });

  it('refuses a missing field, and a field the operation does not use, naming it', () => {
    expect(problem({ operation: 'find_replace', replace: 'b' })).toEqual({
      code: 'invalid_input',
      message: 'find is required for find_replace.',
      field: 'find',
    });
    expect(problem({ operation: 'find_replace', find: 'a' })).toMatchObject({ field: 'replace' });
    expect(problem({ operation: 'prepend', content: ' ' })).toEqual({ code: 'invalid_input', message: 'content is required for prepend.', field: 'content' });
    expect(problem({ operation: 'insert_before_heading', content: 'x' })).toMatchObject({ field: 'heading' });
    expect(problem({ operation: 'append', content: 'x', heading: '## A' })).toEqual({
      code: 'invalid_input',
      message: 'heading is not used by append; leave it out.',
      field: 'heading',
    });
    expect(problem({ operation: 'find_replace', find: 'a', replace: 'b', expected_replacements: 0 })).toMatchObject({ field: 'expected_replacements' });
    expect(problem({ operation: 'move', content: 'x' })).toEqual({
      code: 'invalid_input',
      message: 'operation must be find_replace, replace_section, insert_before_heading, insert_after_heading, prepend or append.',
      field: 'operation',
    });
  });
});
