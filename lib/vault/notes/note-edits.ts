import { VaultError } from '../errors';
import { trailingLineBreaksStart, trimEndOf, trimStartOf } from '../text';
import { splitNote } from './frontmatter';
import { headingOf, parseHeadings, type Heading } from './headings';

// The surgical edits of edit_note, on a note's text as plain strings: where each one lands, and
// the text after it. Nothing outside the edited range changes: the front matter, the line
// endings (inserted text takes the note's), a missing or present final line break.

/** How edit_note changes a note. */
export const NOTE_EDIT_OPERATIONS = ['find_replace', 'replace_section', 'insert_before_heading', 'insert_after_heading', 'prepend', 'append'] as const;
/** How edit_note changes a note: one of {@link NOTE_EDIT_OPERATIONS}. */
export type NoteEditOperation = (typeof NOTE_EDIT_OPERATIONS)[number];

/** One edit of a note's text; which fields count depends on the operation. */
export interface NoteEdit {
  operation: NoteEditOperation;
  /** find_replace: the literal text to find. */
  find?: string;
  /** find_replace: what replaces each occurrence (may be empty). */
  replace?: string;
  /** find_replace: how many occurrences there must be (default 1). */
  expectedReplacements?: number;
  /** The heading operations: the heading line with its level, e.g. `## Status`. */
  heading?: string;
  /** The text to insert, or the section's new text. */
  content?: string;
}

/** A note's text after an edit. */
export interface NoteEditResult {
  text: string;
  /** True when the edit changed nothing before the body (the front matter's bytes are the same). */
  bodyOnly: boolean;
  /** How many occurrences were replaced (find_replace), else 1. */
  replacements: number;
  /** The line of the text (from 1) where the change starts. */
  line: number;
}

const MAX_LISTED = 30;

/** `s` with its line breaks made `eol`. */
function withEol(s: string, eol: '\n' | '\r\n'): string {
  const lf = s.replace(/\r\n/g, '\n');
  return eol === '\n' ? lf : lf.replace(/\n/g, '\r\n');
}

/** `s` without line breaks at its start and end. */
function trimBreaks(s: string): string {
  return trimEndOf(trimStartOf(s, '\r\n'), '\r\n');
}

/** The line (from 1) an offset of `text` is on. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line += 1;
  return line;
}

/** `a, b and c`. */
function andList(words: string[]): string {
  return words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** How long the line break at `at` is: 2 for CRLF, 1 for LF, 0 at the end of the text. */
function breakAt(text: string, at: number): number {
  if (text.startsWith('\r\n', at)) return 2;
  return text[at] === '\n' ? 1 : 0;
}

/** `block` put at `at`: at the end of a text with no final line break, the break goes first and none is added after it. */
function insertAt(text: string, at: number, block: string, eol: string): string {
  if (at === text.length && text !== '' && !text.endsWith('\n')) return `${text}${eol}${trimEndOf(block, '\r\n')}`;
  return `${text.slice(0, at)}${block}${text.slice(at)}`;
}

/** Inserted text as whole lines: the note's line ending, and a line break at its end. */
function asLines(content: string, eol: '\n' | '\r\n'): string {
  const text = withEol(content, eol);
  return text.endsWith('\n') ? text : `${text}${eol}`;
}

const showHeading = (h: { level: number; text: string }) => `${'#'.repeat(h.level)} ${h.text}`;

/** The note's headings with their line in the whole text, for a message. */
function listHeadings(headings: Heading[], firstLine: number): string {
  if (headings.length === 0) return 'It has no headings (a # line inside a code block is not one): use prepend or append.';
  const shown = headings.slice(0, MAX_LISTED).map((h) => `"${showHeading(h)}" (line ${firstLine + h.line})`);
  return `Its headings: ${shown.join(', ')}${headings.length > MAX_LISTED ? `, and ${headings.length - MAX_LISTED} more` : ''}.`;
}

/**
 * The heading an edit names, in the body: exactly one heading of that level and text. A heading
 * given without its level, one the note lacks or has twice, is refused (nothing is changed) with
 * the line numbers an agent needs to choose again.
 */
function findHeading(path: string, body: string, firstLine: number, given: string): { heading: Heading; headings: Heading[] } {
  const headings = parseHeadings(body);
  const line = given.trim();
  const wanted = line.includes('\n') ? null : headingOf(line);
  if (!wanted || wanted.text === '') {
    const same = headings.filter((h) => h.text === line.replace(/^#+\s*/, '').trim());
    const hint = same.length > 0 ? ` ${path} has ${andList(same.slice(0, 5).map((h) => `"${showHeading(h)}" (line ${firstLine + h.line})`))}.` : '';
    throw new VaultError('invalid_input', `heading must be one heading line with its level, e.g. "## Status", not "${line.slice(0, 80)}".${hint}`, {
      field: 'heading',
    });
  }
  const matches = headings.filter((h) => h.level === wanted.level && h.text === wanted.text);
  if (matches.length === 0) {
    throw new VaultError('not_found', `${path} has no heading "${showHeading(wanted)}"; nothing was changed. ${listHeadings(headings, firstLine)}`, {
      field: 'heading',
      path,
    });
  }
  if (matches.length > 1) {
    const lines = andList(matches.map((h) => String(firstLine + h.line)));
    throw new VaultError(
      'invalid_input',
      `${path} has the heading "${showHeading(wanted)}" ${matches.length === 2 ? 'twice' : `${matches.length} times`}, at lines ${lines}, so Lucid cannot tell which one you mean; nothing was changed. Use find_replace with text around the place you mean, which occurs once.`,
      { field: 'heading', path },
    );
  }
  return { heading: matches[0], headings };
}

/** find_replace: every occurrence of `find`, literally; a count other than the expected one changes nothing. */
function findReplace(path: string, text: string, eol: '\n' | '\r\n', edit: NoteEdit): { text: string; start: number; replacements: number } {
  const find = withEol(edit.find ?? '', eol);
  const replace = withEol(edit.replace ?? '', eol);
  const expected = edit.expectedReplacements ?? 1;
  if (find === '') throw new VaultError('invalid_input', 'find is required for find_replace.', { field: 'find' });
  const at: number[] = [];
  for (let i = text.indexOf(find); i >= 0; i = text.indexOf(find, i + find.length)) at.push(i);
  if (at.length === 0) {
    throw new VaultError(
      'not_found',
      `find was not found in ${path}; nothing was changed. It is matched literally (case, spaces and line breaks included): read_note the note and copy the text exactly.`,
      { field: 'find', path },
    );
  }
  if (at.length !== expected) {
    const lines = andList([...new Set(at.slice(0, 10).map((i) => String(lineAt(text, i))))]);
    throw new VaultError(
      'invalid_input',
      `find occurs ${at.length} time${at.length === 1 ? '' : 's'} in ${path} (line${at.length === 1 ? '' : 's'} ${lines}${at.length > 10 ? ', ...' : ''}), not ${expected} as expected_replacements says; nothing was changed. Make find longer so it matches only what you mean, or pass expected_replacements ${at.length} to replace ${at.length === 1 ? 'it' : 'every one'}.`,
      { field: 'expected_replacements', path, found: at.length },
    );
  }
  return { text: text.split(find).join(replace), start: at[0], replacements: at.length };
}

/**
 * replace_section: the text under the heading line, up to the next heading of the same or a higher
 * level, becomes `content`; the heading line stays, and so do the blank lines around the
 * section's text. Empty content clears the section. A first line of content that repeats the
 * heading is dropped, since the heading stays.
 */
function replaceSection(body: string, heading: Heading, headings: Heading[], eol: '\n' | '\r\n', content: string): { body: string; start: number } {
  const afterHeading = heading.end + breakAt(body, heading.end);
  const next = headings.find((h) => h.offset > heading.offset && h.level <= heading.level);
  const sectionEnd = next ? next.offset : body.length;
  let first = -1;
  let last = afterHeading;
  for (let pos = afterHeading; pos < sectionEnd; ) {
    const lf = body.indexOf('\n', pos);
    const stop = lf < 0 || lf >= sectionEnd ? sectionEnd : lf + 1;
    if (body.slice(pos, stop).trim() !== '') {
      if (first < 0) first = pos;
      last = stop;
    }
    pos = stop;
  }
  let lines = trimBreaks(content).split(/\r?\n/);
  const own = headingOf(lines[0] ?? '');
  if (own && own.level === heading.level && own.text === heading.text) lines = lines.slice(1);
  const middle = withEol(trimBreaks(lines.join('\n')), eol);
  if (first >= 0) {
    if (middle === '') return { body: `${body.slice(0, afterHeading)}${body.slice(last)}`, start: afterHeading };
    const keepsBreak = body[last - 1] === '\n';
    return { body: `${body.slice(0, first)}${middle}${keepsBreak ? eol : ''}${body.slice(last)}`, start: first };
  }
  if (middle === '') return { body, start: afterHeading };
  // An empty section: the text goes after its blank lines, with a blank line before the next heading when there was one.
  const gap = next && sectionEnd > afterHeading ? eol : '';
  return { body: insertAt(body, sectionEnd, `${middle}${eol}${gap}`, eol), start: sectionEnd };
}

/** append: after the last line, one blank line between; the final line break stays as it was (present or missing). */
function appendText(text: string, eol: '\n' | '\r\n', content: string): { text: string; start: number } {
  const added = withEol(trimBreaks(content), eol);
  if (text === '') return { text: `${added}${eol}`, start: 0 };
  const breaks = text.slice(trailingLineBreaksStart(text)).split('\n').length - 1;
  if (breaks === 0) return { text: `${text}${eol}${eol}${added}`, start: text.length };
  if (breaks === 1) return { text: `${text}${eol}${added}${eol}`, start: text.length };
  return { text: `${text}${added}${eol}`, start: text.length };
}

/**
 * The append of edit_note on a whole note's text (front matter included), as write_note's append
 * and an accepted inbox append use it: `content` after the last line, one blank line between, in
 * the note's line ending; every byte already there kept, the final line break as it was. Content
 * with no text leaves `text` as it is.
 */
export function appendToNote(text: string, content: string): string {
  if (content.trim() === '') return text;
  return appendText(text, splitNote(text).eol, content).text;
}

/**
 * Applies one edit to a note's text (without its byte-order mark) and returns the new text; the
 * bytes outside the edited range are kept. find_replace replaces `find` literally, and only when it
 * occurs exactly `expectedReplacements` times (default 1); the heading operations find their
 * heading by level and text (`## Status`), outside code blocks, and only when it occurs once;
 * prepend inserts after the front matter, append after the last line. A refused edit throws a
 * VaultError naming `path` and what to do instead; so does an edit that would change nothing.
 */
export function applyNoteEdit(path: string, text: string, edit: NoteEdit): NoteEditResult {
  const parts = splitNote(text);
  const { eol, bodyStart } = parts;
  const firstLine = lineAt(text, bodyStart);
  const needContent = () => {
    if (edit.content === undefined || edit.content.trim() === '') {
      throw new VaultError('invalid_input', `content is required for ${edit.operation}.`, { field: 'content' });
    }
    return edit.content;
  };
  const headingIn = () => {
    if (edit.heading === undefined) throw new VaultError('invalid_input', `heading is required for ${edit.operation}, e.g. "## Status".`, { field: 'heading' });
    return findHeading(path, parts.body, firstLine, edit.heading);
  };
  const inBody = (edited: { body: string; start: number }) => ({
    text: `${text.slice(0, bodyStart)}${edited.body}`,
    start: bodyStart + edited.start,
    replacements: 1,
  });
  const apply = (): { text: string; start: number; replacements: number } => {
    switch (edit.operation) {
      case 'find_replace':
        return findReplace(path, text, eol, edit);
      case 'replace_section': {
        const { heading, headings } = headingIn();
        return inBody(replaceSection(parts.body, heading, headings, eol, edit.content ?? ''));
      }
      case 'insert_before_heading': {
        const block = asLines(needContent(), eol);
        const { heading } = headingIn();
        return inBody({ body: insertAt(parts.body, heading.offset, block, eol), start: heading.offset });
      }
      case 'insert_after_heading': {
        const block = asLines(needContent(), eol);
        const { heading } = headingIn();
        const after = heading.end + breakAt(parts.body, heading.end);
        return inBody({ body: insertAt(parts.body, after, block, eol), start: after });
      }
      case 'prepend':
        return { text: insertAt(text, bodyStart, asLines(needContent(), eol), eol), start: bodyStart, replacements: 1 };
      case 'append':
        return { ...appendText(text, eol, needContent()), replacements: 1 };
    }
  };
  const edited = apply();
  if (edited.text === text) throw new VaultError('invalid_input', `The edit leaves ${path} as it is; nothing was written.`, { path });
  // Text put at the top of a note without front matter can make some (a `---` block): then the front matter changed too.
  const after = splitNote(edited.text);
  const bodyOnly = edited.start >= bodyStart && after.hasFrontmatter === parts.hasFrontmatter && after.bodyStart === bodyStart;
  return { text: edited.text, bodyOnly, replacements: edited.replacements, line: lineAt(edited.text, edited.start) };
}
