import { describe, expect, it } from 'vitest';
import { addChangelogLine, formatChangelogLine, parseChangelogLine, type ChangelogEntry } from '../../lib/vault/git/changelog';
import { oneLine } from '../../lib/vault/text';

const entry: ChangelogEntry = {
  date: new Date(2026, 10, 30, 14, 2, 11),
  actor: 'agent:claude-code',
  op: 'update',
  path: 'decisions/use-postgres.md',
  reason: 'switched after load test',
  session: '20261130-140112-claude-code-k3tq',
  editId: 'e7f3a2c2kq7mz',
};

const noArchives = () => null;

function lineCount(text: string): number {
  return text.split('\n').filter((l) => l.startsWith('- ')).length;
}

describe('formatChangelogLine and parseChangelogLine', () => {
  it('writes the line in the documented shape, ending in the edit id as a block id', () => {
    expect(formatChangelogLine(entry)).toBe(
      '- 2026-11-30 14:02 · agent:claude-code · update [[decisions/use-postgres]] · switched after load test · [[sessions/20261130-140112-claude-code-k3tq|session]] ^e7f3a2c2kq7mz',
    );
  });

  it('links a name a wikilink cannot hold as a markdown link that reads back, parentheses included', () => {
    const line = formatChangelogLine({ ...entry, path: 'notes/C# (draft).md' });
    expect(line).toContain('update [C# (draft)](notes/C%23%20%28draft%29.md) · ');
    expect(parseChangelogLine(line)?.target).toBe('notes/C# (draft).md');
  });

  it('reads back every field of the line it wrote', () => {
    const line = formatChangelogLine(entry);
    expect(parseChangelogLine(line)).toEqual({
      date: '2026-11-30',
      time: '14:02',
      actor: 'agent:claude-code',
      op: 'update',
      target: 'decisions/use-postgres.md',
      reason: 'switched after load test',
      session: '20261130-140112-claude-code-k3tq',
      editId: 'e7f3a2c2kq7mz',
      raw: line,
    });
  });

  it('round-trips a line without a session, without a reason, and with a custom sessions folder', () => {
    const noSession = parseChangelogLine(formatChangelogLine({ ...entry, session: undefined }));
    expect(noSession).toMatchObject({ reason: 'switched after load test', session: null, editId: entry.editId });
    const bare = parseChangelogLine(formatChangelogLine({ ...entry, reason: '', session: undefined }));
    expect(bare).toMatchObject({ reason: '', session: null, target: 'decisions/use-postgres.md' });
    const folder = formatChangelogLine({ ...entry, sessionsFolder: 'Agent Sessions' });
    expect(folder).toContain('[[Agent Sessions/20261130-140112-claude-code-k3tq|session]]');
    expect(parseChangelogLine(folder)?.session).toBe(entry.session);
  });

  it('round-trips a person whose name has spaces', () => {
    const line = formatChangelogLine({ ...entry, actor: 'human:Test Person', session: undefined });
    expect(parseChangelogLine(line)).toMatchObject({ actor: 'human:Test Person', op: 'update', target: 'decisions/use-postgres.md' });
  });

  it('round-trips note paths with spaces and non-Latin letters', () => {
    const line = formatChangelogLine({ ...entry, path: 'Meeting notes/Планы 2026.md' });
    expect(parseChangelogLine(line)?.target).toBe('Meeting notes/Планы 2026.md');
  });

  it("returns null for titles, blank lines and a person's own text", () => {
    for (const raw of ['# Changelog', '', 'Some words by a person.', '- a plain list item', '- 2026-11-30 14:02 · agent:x · update [[a]] ^notanid']) {
      expect(parseChangelogLine(raw)).toBeNull();
    }
  });
});

describe('a reason cannot add a changelog line, a block id or a trailer', () => {
  const hostile: [string, string][] = [
    ['line breaks and a forged line', 'one\ntwo\n- 2026-11-30 14:02 · agent:x · delete [[a]] · x ^eaaaaaaaaaaaa'],
    ['a forged trailer', 'fine\n\nLucid-Actor: human:Boss\nLucid-Edit: eaaaaaaaaaaaa'],
    ['Unicode line and paragraph separators', 'a\u2028- forged\u2029Lucid-Op: delete\u0085x'],
    ['carriage returns and other control characters', 'a\r- forged\u0000\u001b[31m'],
    ['middle dots that would add fields', 'a · b · [[sessions/20261130-140112-x-abcd|session]]'],
    ['a fake block id at the end', 'looks done ^eaaaaaaaaaaaa'],
    ['a fake block id and trailing spaces', 'looks done ^eaaaaaaaaaaaa   '],
    ['a fake session link and block id', 'x · [[sessions/20261130-140112-x-abcd|session]] ^eaaaaaaaaaaaa'],
  ];

  it.each(hostile)('with %s', (_label, reason) => {
    const line = formatChangelogLine({ ...entry, reason, session: undefined });
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
    expect(line.split('\n')).toHaveLength(1);
    expect(line.match(/\^e[a-z2-7]{12}/g)?.at(-1)).toBe(`^${entry.editId}`);
    expect(line.endsWith(` ^${entry.editId}`)).toBe(true);
    expect(line.match(/ · /g)).toHaveLength(3);
    const parsed = parseChangelogLine(line);
    expect(parsed).toMatchObject({ actor: entry.actor, op: entry.op, session: null, editId: entry.editId });
    const added = addChangelogLine('# Changelog\n', line, '2026-11', noArchives).changelog;
    expect(lineCount(added)).toBe(1);
    expect(added.split('\n').filter((l) => /^Lucid-/.test(l))).toEqual([]);
  });

  it('oneLine turns every kind of line break into one space and trims', () => {
    expect(oneLine(' a\r\n\tb\u2028c\u0085d ')).toBe('a b c d');
  });

  it('oneLine shortens long text with an ellipsis', () => {
    const out = oneLine('x'.repeat(400), 300);
    expect(out).toHaveLength(300);
    expect(out.endsWith('…')).toBe(true);
  });

  it('an actor cannot add fields either', () => {
    const line = formatChangelogLine({ ...entry, actor: 'human:A · update [[x]]\nB', session: undefined });
    expect(line.split('\n')).toHaveLength(1);
    expect(parseChangelogLine(line)).toMatchObject({ op: 'update', target: 'decisions/use-postgres.md', editId: entry.editId });
  });
});

describe('addChangelogLine', () => {
  const line = (day: string, id: string) => `- ${day} 10:00 · agent:a · update [[x]] ^${id}`;

  it('starts a new changelog with its title and the line', () => {
    const { changelog, archives } = addChangelogLine(null, line('2026-11-02', 'eaaaaaaaaaaaa'), '2026-11', noArchives);
    expect(changelog).toBe(`# Changelog\n\n${line('2026-11-02', 'eaaaaaaaaaaaa')}\n`);
    expect(archives.size).toBe(0);
  });

  it("puts the newest line first, under the title and a person's introduction", () => {
    const current = `# Changelog\n\nWhat the agents changed.\n\n${line('2026-11-02', 'eaaaaaaaaaaab')}\n${line('2026-11-01', 'eaaaaaaaaaaaa')}\n`;
    const { changelog, archives } = addChangelogLine(current, line('2026-11-03', 'eaaaaaaaaaaac'), '2026-11', noArchives);
    expect(changelog).toBe(
      `# Changelog\n\nWhat the agents changed.\n\n${line('2026-11-03', 'eaaaaaaaaaaac')}\n${line('2026-11-02', 'eaaaaaaaaaaab')}\n${line('2026-11-01', 'eaaaaaaaaaaaa')}\n`,
    );
    expect(archives.size).toBe(0);
  });

  it('keeps CRLF line breaks in a CRLF changelog', () => {
    const current = `# Changelog\r\n\r\n${line('2026-11-02', 'eaaaaaaaaaaab')}\r\n`;
    const { changelog } = addChangelogLine(current, line('2026-11-03', 'eaaaaaaaaaaac'), '2026-11', noArchives);
    expect(changelog).toBe(`# Changelog\r\n\r\n${line('2026-11-03', 'eaaaaaaaaaaac')}\r\n${line('2026-11-02', 'eaaaaaaaaaaab')}\r\n`);
  });

  it('moves earlier months into their archives, newest first, at the first edit of a new month', () => {
    const current = ['# Changelog', '', line('2026-11-30', 'eaaaaaaaaaaad'), line('2026-11-02', 'eaaaaaaaaaaac'), line('2026-10-31', 'eaaaaaaaaaaab'), ''].join(
      '\n',
    );
    const asked: string[] = [];
    const existingOctober = `# Changelog 2026-10\n\n${line('2026-10-01', 'eaaaaaaaaaaaa')}\n`;
    const { changelog, archives } = addChangelogLine(current, line('2026-12-01', 'eaaaaaaaaaaae'), '2026-12', (month) => {
      asked.push(month);
      return month === '2026-10' ? existingOctober : null;
    });
    expect(changelog).toBe(`# Changelog\n\n${line('2026-12-01', 'eaaaaaaaaaaae')}\n`);
    expect([...archives.keys()].sort()).toEqual(['2026-10', '2026-11']);
    expect(asked.sort()).toEqual(['2026-10', '2026-11']);
    expect(archives.get('2026-11')).toBe(`# Changelog 2026-11\n\n${line('2026-11-30', 'eaaaaaaaaaaad')}\n${line('2026-11-02', 'eaaaaaaaaaaac')}\n`);
    expect(archives.get('2026-10')).toBe(`# Changelog 2026-10\n\n${line('2026-10-31', 'eaaaaaaaaaaab')}\n${line('2026-10-01', 'eaaaaaaaaaaaa')}\n`);
  });

  it("leaves lines of the current month and a person's text where they are", () => {
    const current = `# Changelog\n\nIntro.\n\n${line('2026-12-01', 'eaaaaaaaaaaab')}\n`;
    const { changelog, archives } = addChangelogLine(current, line('2026-12-02', 'eaaaaaaaaaaac'), '2026-12', noArchives);
    expect(changelog).toBe(`# Changelog\n\nIntro.\n\n${line('2026-12-02', 'eaaaaaaaaaaac')}\n${line('2026-12-01', 'eaaaaaaaaaaab')}\n`);
    expect(archives.size).toBe(0);
  });

  it('every line added is kept exactly once across the changelog and its archives', () => {
    let changelog: string | null = null;
    const stored = new Map<string, string>();
    const ids: string[] = [];
    const months = ['2026-09', '2026-10', '2026-10', '2026-11', '2026-11', '2026-11', '2026-12'];
    months.forEach((month, i) => {
      const id = `e${'abcdefg'[i]}aaaaaaaaaaa`;
      ids.push(id);
      const result = addChangelogLine(changelog, line(`${month}-0${i + 1}`, id), month, (m) => stored.get(m) ?? null);
      changelog = result.changelog;
      for (const [m, text] of result.archives) stored.set(m, text);
    });
    const all = [changelog ?? '', ...stored.values()].join('\n');
    for (const id of ids) expect(all.split(`^${id}`).length - 1).toBe(1);
    expect(lineCount(changelog ?? '')).toBe(1);
    expect(lineCount(stored.get('2026-11') ?? '')).toBe(3);
  });
});

describe('names a wikilink cannot hold', () => {
  it('links them with an encoded markdown link that Obsidian and the parser both follow', () => {
    const line = formatChangelogLine({
      date: new Date(2026, 10, 30, 14, 2),
      actor: 'agent:claude-code',
      op: 'update',
      path: 'notes/🚀 launch #1 100%|x.md',
      reason: 'why',
      editId: 'eabcdefghijkl',
    });
    expect(line).toContain('update [🚀 launch #1 100%|x](notes/%F0%9F%9A%80%20launch%20%231%20100%25%7Cx.md)');
    expect(parseChangelogLine(line)).toMatchObject({ op: 'update', target: 'notes/🚀 launch #1 100%|x.md', reason: 'why', editId: 'eabcdefghijkl' });
  });

  it('keeps wikilinks for ordinary names', () => {
    const line = formatChangelogLine({
      date: new Date(2026, 10, 30, 14, 2),
      actor: 'agent:a',
      op: 'create',
      path: 'notes/plain name.md',
      reason: '',
      editId: 'eabcdefghijkl',
    });
    expect(line).toContain('create [[notes/plain name]]');
    expect(parseChangelogLine(line)?.target).toBe('notes/plain name.md');
  });
});
