import { formatMinute } from '../ids';

/** One line of text for a commit message or a changelog line: no line breaks, no control characters. */
export function oneLine(value: string, max = 300): string {
  const cleaned = value
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > max ? `${cleaned.slice(0, max - 1)}…` : cleaned;
}

/** A changelog entry before it becomes a line. */
export interface ChangelogEntry {
  date: Date;
  actor: string;
  op: string;
  /** Vault-relative path of the note the edit is about. */
  path: string;
  reason: string;
  session?: string;
  /** Folder of session notes, for the session link. */
  sessionsFolder?: string;
  editId: string;
  /** For reverts of commits Lucid did not make: how many files. */
  note?: string;
}

/** A changelog line as read back. */
export interface ChangelogLine {
  date: string;
  time: string;
  actor: string;
  op: string;
  target: string;
  reason: string;
  session: string | null;
  editId: string;
  raw: string;
}

/**
 * A link to a note for a changelog line: a wikilink, or, for names a wikilink cannot hold
 * (`#`, `|`, `^`, `[`, `]`), a markdown link with the path URL-encoded.
 */
function changelogLink(path: string): string {
  if (/[#|^[\]]/.test(path)) {
    const name = path
      .slice(path.lastIndexOf('/') + 1)
      .replace(/\.md$/i, '')
      .replace(/[[\]]/g, '');
    return `[${name}](${path.split('/').map(encodeURIComponent).join('/')})`;
  }
  return `[[${linkTo(path)}]]`;
}

function linkTo(path: string): string {
  return path.toLowerCase().endsWith('.md') ? path.slice(0, -3) : path;
}

/** The line for an edit: `- DATE TIME · actor · op [[target]] · reason · [[sessions/id|session]] ^editid`. */
export function formatChangelogLine(entry: ChangelogEntry): string {
  const parts = [formatMinute(entry.date), oneLine(entry.actor, 80).replace(/ · /g, ' - '), `${entry.op} ${changelogLink(entry.path)}`];
  const reason = oneLine(entry.reason).replace(/\s\^[a-z0-9-]+$/i, '');
  if (reason) parts.push(reason.replace(/ · /g, ' - '));
  if (entry.session) parts.push(`[[${entry.sessionsFolder ?? 'sessions'}/${entry.session}|session]]`);
  return `- ${parts.join(' · ')} ^${entry.editId}`;
}

// The actor may hold spaces (`human:Ada Lovelace`); it runs up to the ` · ` before the op.
const LINE =
  /^- (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) · (\S.*?) · (\S+) (?:\[\[([^\]]+)\]\]|\[[^\]]*\]\(([^)\s]+)\))(?: · (.*?))?(?: · \[\[([^\]|]+)\|session\]\])? \^(e[a-z2-7]{12})\s*$/;

/** Parses one changelog line; null for anything else (titles, blank lines, a person's notes). */
export function parseChangelogLine(raw: string): ChangelogLine | null {
  const match = LINE.exec(raw);
  if (!match) return null;
  const [, date, time, actor, op, wikiTarget, markdownTarget, reason = '', session, editId] = match;
  let target = wikiTarget ? `${wikiTarget}.md` : markdownTarget;
  if (!wikiTarget) {
    try {
      target = decodeURIComponent(markdownTarget);
    } catch {
      // keep it as written
    }
  }
  return {
    date,
    time,
    actor,
    op,
    target,
    reason,
    session: session ? session.slice(session.lastIndexOf('/') + 1) : null,
    editId,
    raw,
  };
}

/** The title a new changelog file starts with. */
function changelogTitle(month?: string): string {
  return month ? `# Changelog ${month}` : '# Changelog';
}

/**
 * Adds a line at the top of this month's changelog. Lines of earlier months move out to their
 * month's archive text (returned in `archives`, keyed by `YYYY-MM`, each newest first), so the
 * rotation lands in the same commit as the edit that triggered it.
 */
export function addChangelogLine(
  current: string | null,
  line: string,
  month: string,
  archives: (month: string) => string | null,
): { changelog: string; archives: Map<string, string> } {
  const text = current ?? `${changelogTitle()}\n`;
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  const moved = new Map<string, string[]>();
  const kept: string[] = [];
  for (const existing of lines) {
    const m = /^- (\d{4}-\d{2})-\d{2} /.exec(existing);
    if (m && m[1] < month) {
      const list = moved.get(m[1]) ?? [];
      list.push(existing);
      moved.set(m[1], list);
    } else {
      kept.push(existing);
    }
  }
  let insertAt = kept.findIndex((l) => l.startsWith('- '));
  if (insertAt === -1) {
    insertAt = kept.length;
    if (kept.length > 0 && kept[kept.length - 1].trim() !== '') {
      kept.push('');
      insertAt += 1;
    }
  }
  kept.splice(insertAt, 0, line);
  const outArchives = new Map<string, string>();
  for (const [archiveMonth, movedLines] of moved) {
    const existing = archives(archiveMonth);
    const base = existing ?? `${changelogTitle(archiveMonth)}\n\n`;
    const baseLines = base.split(/\r?\n/);
    if (baseLines[baseLines.length - 1] === '') baseLines.pop();
    let at = baseLines.findIndex((l) => l.startsWith('- '));
    if (at === -1) at = baseLines.length;
    baseLines.splice(at, 0, ...movedLines);
    outArchives.set(archiveMonth, `${baseLines.join('\n')}\n`);
  }
  return { changelog: `${kept.join(eol)}${eol}`, archives: outArchives };
}
