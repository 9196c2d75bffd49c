import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, it } from 'vitest';
import { initVault, maskSecrets, openVault } from '../../lib/vault/index';
import { commitAsOwner, copyFixture, FIXTURE_VAULTS, haveFixtures, testGitEnv } from '../support/fixtures';
import { connectInMemory, ok, textOf, type McpPair } from '../support/mcp';

/**
 * Issue 13 on `lucid init`-ed copies of the real vaults, committed as their owner: edit_note's
 * operations on a person's own note change only their target lines (checked byte for byte against
 * the file before, with positions found here by plain string search), each in one commit with one
 * changelog line; a wrong count and a duplicated heading change nothing; a CRLF note with a
 * byte-order mark keeps both; a stale hash goes to the inbox; create on an existing note is refused
 * and leaves the inbox alone; write_note's append adds no field to a note that is not Lucid's.
 */

const env = testGitEnv();
/** Lucid's note types: an edit of such a note also sets `updated`, so the exact checks use notes of other types. */
const LUCID_TYPES = new Set(['person', 'project', 'decision', 'session', 'skill', 'inbox', 'report', 'eval-run']);

const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

/** A heading of a note that occurs once, with text under it and a later heading of its level or higher. */
interface Section {
  heading: string;
  /** Offsets of its line's start and of the line after it, and of the next heading of its level or higher. */
  lineStart: number;
  lineEnd: number;
  sectionEnd: number;
  /** A line of text in the section that occurs once in the note. */
  unique: string;
}

/** Where the front matter ends: after the byte-order mark and the `---` block, when there are any. */
function bodyStart(text: string): number {
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  return bom + (/^---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/.exec(text.slice(bom))?.[0].length ?? 0);
}

/** A heading line as `## Text` (up to three spaces before, a closing run of `#` and extra spaces dropped), or null. */
function headingKey(line: string): string | null {
  const m = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(line.replace(/\r$/, ''));
  return m && m[2] !== '' && !m[2].endsWith('#') ? `${m[1]} ${m[2]}` : null;
}

/**
 * The section of `heading` in a note without code blocks, or the first section whose heading
 * occurs once and which holds a line of text that occurs once (and looks like no secret); null
 * when there is none.
 */
function sectionOf(text: string, heading?: string): Section | null {
  const lines = text.split('\n');
  const starts: number[] = [];
  let at = 0;
  for (const line of lines) {
    starts.push(at);
    at += line.length + 1;
  }
  const first = text.slice(0, bodyStart(text)).split('\n').length - 1;
  const keys = lines.map((line, i) => (i >= first ? headingKey(line) : null));
  const headings = keys.flatMap((key, i) => (key ? [{ i, key, level: key.indexOf(' ') }] : []));
  for (const [k, h] of headings.entries()) {
    if (heading !== undefined ? h.key !== heading : keys.filter((key) => key === h.key).length !== 1) continue;
    const next = headings.slice(k + 1).find((n) => n.level <= h.level);
    const unique = lines
      .slice(h.i + 1, next?.i)
      .find((l) => l.trim() !== '' && !l.includes('\r') && text.split(l).length === 2 && maskSecrets(`${l} (checked)`).findings.length === 0);
    if (!next || unique === undefined) continue;
    return { heading: h.key, lineStart: starts[h.i], lineEnd: starts[h.i + 1], sectionEnd: starts[next.i], unique };
  }
  return null;
}

/** Every note of the vault a person keeps (not in .git, .obsidian or Lucid's own folders), sorted. */
function notesOf(root: string, own: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.name.startsWith('.') || own.some((o) => rel === o || rel.startsWith(`${o}/`))) continue;
      if (entry.isDirectory()) walk(path.join(dir, entry.name), rel);
      else if (rel.endsWith('.md')) out.push(rel);
    }
  };
  walk(root, '');
  return out.sort();
}

describe.skipIf(!haveFixtures)('edit_note on init-ed copies of the real vaults', () => {
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });

  for (const name of FIXTURE_VAULTS) {
    it(`${name}: each operation changes only its lines in one commit; a wrong count and a duplicated heading change nothing; CRLF and BOM are kept; create on an existing note is refused`, async () => {
      const { root, cleanup } = copyFixture(name);
      cleanups.push(cleanup);
      const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: env as NodeJS.ProcessEnv });
      commitAsOwner(root, env);
      const { layout } = await initVault({ dir: root, env });
      const vault = await openVault({ root, env });
      const mcp: McpPair = await connectInMemory(vault);
      cleanups.unshift(() => vault.close());
      const read = (note: string) => readFileSync(path.join(root, note), 'utf8');
      const changelogCount = () =>
        read(layout.changelog)
          .split('\n')
          .filter((l) => /^- .* \^e[a-z2-7]{12}$/.test(l)).length;
      const byPerson = (note: string, text: string, message: string) => {
        writeFileSync(path.join(root, note), text);
        git('commit', '-qam', message);
      };

      // The notes a person keeps that Lucid reads, not of Lucid's types, without code blocks, with a section to edit.
      const picked: { note: string; section: Section }[] = [];
      const unreadable: string[] = [];
      for (const note of notesOf(root, [layout.inbox, layout.sessions, layout.skills, layout.changelog, layout.changelogArchive, layout.agents])) {
        const text = read(note);
        if (text.startsWith('\uFEFF') || text.includes('\r') || /^\s{0,3}(```|~~~)/m.test(text)) continue;
        const parsed = await vault.readNote(note);
        const section = sectionOf(text);
        if (section && parsed.problem === 'invalid_frontmatter') unreadable.push(note);
        if (parsed.problem || parsed.violations.length > 0 || LUCID_TYPES.has(String(parsed.frontmatter.type))) continue;
        if (section) picked.push({ note, section });
      }
      // A vault whose notes all hold template placeholders in their front matter (`created: {{date}}`) has no
      // note an agent may edit until a person fixes one (tests/mcp/edit-note.spec.ts checks that refusal): the
      // person fixes one here, dropping its front matter.
      if (picked.length === 0 && unreadable.length > 0) {
        const fixed = unreadable[0];
        byPerson(fixed, read(fixed).slice(bodyStart(read(fixed))), 'dropped the template front matter');
        const section = sectionOf(read(fixed));
        if (section) picked.push({ note: fixed, section });
      }
      expect(picked.length, 'notes with a section to edit').toBeGreaterThan(0);
      const { note, section } = picked[0];
      const session = ok<{ session: string }>(await mcp.call('start_session', { agent: 'test-agent', task: 'keep the notes current' })).session;

      const editOnce = async (tool: string, args: Record<string, unknown>): Promise<{ before: string; after: string }> => {
        const target = args.path as string;
        const before = read(target);
        const head = git('rev-parse', 'HEAD').trim();
        const lines = changelogCount();
        const result = ok<{ status: string; hash: string }>(await mcp.call(tool, { session, reason: 'kept it current', ...args }));
        expect(result.status).toBe('written');
        expect(git('rev-parse', 'HEAD~1').trim()).toBe(head);
        expect(git('show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean).sort()).toEqual([layout.changelog, target].sort());
        expect(changelogCount()).toBe(lines + 1);
        expect(result.hash).toBe(sha(readFileSync(path.join(root, target))));
        expect(git('status', '--porcelain', '--', target)).toBe('');
        return { before, after: read(target) };
      };
      const refused = async (args: Record<string, unknown>): Promise<string> => {
        const before = { bytes: read(args.path as string), head: git('rev-parse', 'HEAD').trim(), changelog: read(layout.changelog) };
        const result: CallToolResult = await mcp.call('edit_note', { session, reason: 'tried', ...args });
        expect(result.isError).toBe(true);
        expect({ bytes: read(args.path as string), head: git('rev-parse', 'HEAD').trim(), changelog: read(layout.changelog) }).toEqual(before);
        return textOf(result);
      };

      // A line of the section that occurs once in the note: find_replace changes that line only.
      let step = await editOnce('edit_note', { path: note, operation: 'find_replace', find: section.unique, replace: `${section.unique} (checked)` });
      expect(step.after).toBe(step.before.replace(section.unique, `${section.unique} (checked)`));
      const { heading } = section;

      step = await editOnce('edit_note', { path: note, operation: 'insert_after_heading', heading, content: 'Inserted after.' });
      let now = sectionOf(step.before, heading) ?? section;
      expect(step.after).toBe(`${step.before.slice(0, now.lineEnd)}Inserted after.\n${step.before.slice(now.lineEnd)}`);

      step = await editOnce('edit_note', { path: note, operation: 'insert_before_heading', heading, content: 'Inserted before.' });
      now = sectionOf(step.before, heading) ?? section;
      expect(step.after).toBe(`${step.before.slice(0, now.lineStart)}Inserted before.\n${step.before.slice(now.lineStart)}`);

      // replace_section: the bytes up to the heading line's end and from the next heading on are the same; between them, only the new text and blank lines.
      step = await editOnce('edit_note', { path: note, operation: 'replace_section', heading, content: 'The whole section, rewritten.\n' });
      now = sectionOf(step.before, heading) ?? section;
      const tail = step.before.slice(now.sectionEnd);
      expect(step.after.slice(0, now.lineEnd)).toBe(step.before.slice(0, now.lineEnd));
      expect(step.after.endsWith(tail)).toBe(true);
      expect(
        step.after
          .slice(now.lineEnd, step.after.length - tail.length)
          .replace('The whole section, rewritten.\n', '')
          .trim(),
      ).toBe('');

      step = await editOnce('edit_note', { path: note, operation: 'prepend', content: 'Prepended.' });
      const start = bodyStart(step.before);
      expect(step.after).toBe(`${step.before.slice(0, start)}Prepended.\n${step.before.slice(start)}`);

      step = await editOnce('edit_note', { path: note, operation: 'append', content: 'Appended.' });
      const breaks = /\n*$/.exec(step.before)?.[0].length ?? 0;
      expect(step.after).toBe(`${step.before}${breaks === 0 ? '\n\n' : breaks === 1 ? '\n' : ''}Appended.${breaks === 0 ? '' : '\n'}`);

      // write_note's append to a person's own note adds no `updated` (nor any other field).
      // It is edit_note's append: every byte before it kept, trailing blank lines included.
      step = await editOnce('write_note', { path: note, mode: 'append', content: 'Appended by write_note.' });
      const tailBreaks = /\n*$/.exec(step.before)?.[0].length ?? 0;
      expect(step.after).toBe(
        `${step.before}${tailBreaks === 0 ? '\n\n' : tailBreaks === 1 ? '\n' : ''}Appended by write_note.${tailBreaks === 0 ? '' : '\n'}`,
      );

      // A wrong count changes nothing: `#` is in each of the note's headings.
      const hashes = read(note).split('#').length - 1;
      expect(await refused({ path: note, operation: 'find_replace', find: '#', replace: '%' })).toContain(`find occurs ${hashes} times in ${note}`);

      // The person repeats the heading lower down: a replace_section on it changes nothing and names both lines.
      const { hash: readHash } = ok<{ hash: string }>(await mcp.call('read_note', { path: note }));
      const withRepeat = `${read(note).replace(/\n*$/, '\n')}\n${heading}\n\nAgain.\n`;
      byPerson(note, withRepeat, 'the heading again');
      const lines = withRepeat.split('\n');
      const repeats = lines.flatMap((l, i) => (headingKey(l) === heading ? [i + 1] : []));
      expect(repeats).toHaveLength(2);
      expect(await refused({ path: note, operation: 'replace_section', heading, content: 'x' })).toContain(
        `has the heading "${heading}" twice, at lines ${repeats[0]} and ${repeats[1]}`,
      );

      // With the hash read before the person's commit, the edit goes to the inbox and the note keeps their version.
      const stale = await mcp.call('edit_note', { session, path: note, operation: 'append', content: 'Late.', expected_hash: readHash, reason: 'late' });
      const conflict = stale.structuredContent as { status: string; inbox_path: string };
      expect(conflict.status).toBe('conflict');
      expect(read(note)).toBe(withRepeat);
      expect(git('show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean).sort()).toEqual([layout.changelog, conflict.inbox_path].sort());

      // create on the existing note: refused with its hash, nothing committed, the inbox as it was.
      const inbox = git('ls-files', '--', layout.inbox);
      const head = git('rev-parse', 'HEAD').trim();
      const create = await mcp.call('write_note', { session, path: note, mode: 'create', content: '# New\n', reason: 'new' });
      expect(create.isError).toBe(true);
      expect(textOf(create)).toContain(`${note} (`);
      expect(textOf(create)).toContain(`already exists, with hash ${sha(readFileSync(path.join(root, note)))}`);
      expect(git('rev-parse', 'HEAD').trim()).toBe(head);
      expect(git('ls-files', '--', layout.inbox)).toBe(inbox);
      expect(git('status', '--porcelain')).toBe('');

      // A note the person saved with CRLF line endings and a byte-order mark keeps both.
      const other = picked[picked.length > 1 ? 1 : 0].note;
      byPerson(other, `\uFEFF${read(other).replace(/\r?\n/g, '\r\n')}`, 'saved on Windows');
      step = await editOnce('edit_note', { path: other, operation: 'prepend', content: 'One.\nTwo.' });
      const top = bodyStart(step.before);
      expect(step.after).toBe(`${step.before.slice(0, top)}One.\r\nTwo.\r\n${step.before.slice(top)}`);
      step = await editOnce('edit_note', { path: other, operation: 'append', content: 'End.' });
      const last = /(\r\n)*$/.exec(step.before)?.[0].length ?? 0;
      expect(step.after).toBe(`${step.before}${last === 0 ? '\r\n\r\n' : last === 2 ? '\r\n' : ''}End.${last === 0 ? '' : '\r\n'}`);
      step = await editOnce('edit_note', { path: other, operation: 'find_replace', find: 'One.\nTwo.', replace: 'One and two.' });
      expect(step.after).toBe(step.before.replace('One.\r\nTwo.', 'One and two.'));
      expect(readFileSync(path.join(root, other)).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      expect(step.after.replace(/\r\n/g, '')).not.toContain('\n');

      await mcp.close();
    });
  }
});
