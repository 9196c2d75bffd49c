import { formatMinute } from '../ids';
import { oneLine } from '../text';
import { noteLinkShown } from '../notes/note-formats';

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

/** The line for an edit: `- DATE TIME · actor · op [[target]] · reason · [[sessions/id|session]] ^editid`. */
export function formatChangelogLine(entry: ChangelogEntry): string {
  const parts = [formatMinute(entry.date), oneLine(entry.actor, 80).replace(/ · /g, ' - '), `${entry.op} ${noteLinkShown(entry.path)}`];
  const reason = oneLine(entry.reason).replace(/\s\^[a-z0-9-]+$/i, '');
  if (reason) parts.push(reason.replace(/ · /g, ' - '));
  if (entry.session) parts.push(`[[${entry.sessionsFolder ?? 'sessions'}/${entry.session}|session]]`);
  return `- ${parts.join(' · ')} ^${entry.editId}`;
}

// The actor may hold spaces (`human:Ada Lovelace`); it runs up to the ` · ` before the op. What the
// line parser accepts and captures is exactly what this regex would (`tests/unit/changelog.spec.ts`
// compares the two); the regex itself is not run: on a line of many ` · [[x]]` it backtracks in cubic time.
//   /^- (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) · (\S.*?) · (\S+) (?:\[\[([^\]]+)\]\]|\[[^\]]*\]\(([^)\s]+)\))(?: · (.*?))?(?: · \[\[([^\]|]+)\|session\]\])? \^(e[a-z2-7]{12})\s*$/
const LINE_HEAD = /^- (\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}) · /;
const LINE_TAIL = /^ \^(e[a-z2-7]{12})$/;
const SEP = ' · ';
const SESSION_END = '|session]]';

/** The first index at or after a rising `from` where `pattern` (global) matches, or `text.length`; each call resumes the last scan. */
function forwardFinder(text: string, pattern: RegExp): (from: number) => number {
  let found = -1;
  let scannedFrom = Number.POSITIVE_INFINITY;
  return (from) => {
    if (from < scannedFrom || from > found) {
      pattern.lastIndex = from;
      found = pattern.exec(text)?.index ?? text.length;
      scannedFrom = from;
    }
    return found;
  };
}

type LineMatch = [string, string, string, string, string, string | undefined, string | undefined, string | undefined, string | undefined, string];

/** `LINE.exec(raw)` of the regex above, in linear time: the same captures, or null. */
function matchLine(raw: string): LineMatch | null {
  const head = LINE_HEAD.exec(raw);
  if (!head) return null;
  const actorStart = head[0].length;
  let end = raw.length;
  while (end > 0 && /\s/.test(raw[end - 1])) end -= 1;
  const tailStart = end - 15;
  const tail = tailStart > actorStart ? LINE_TAIL.exec(raw.slice(tailStart, end)) : null;
  if (!tail || /\s/.test(raw[actorStart])) return null;
  const nextBreak = forwardFinder(raw, /[\n\r\u2028\u2029]/g);
  const nextSpace = forwardFinder(raw, /\s/g);
  const nextBracket = forwardFinder(raw, /\]/g);
  const nextParenOrSpace = forwardFinder(raw, /[)\s]/g);
  const nextSessionOpen = forwardFinder(raw, / · \[\[/g);
  // A ` · [[X|session]]` must end where the tail starts; X holds no `]` or `|`.
  const sessionBar = tailStart - SESSION_END.length;
  const hasSessionEnd = raw.startsWith(SESSION_END, sessionBar);
  let lastStop = -1;
  if (hasSessionEnd) for (let i = sessionBar - 1; i >= 0 && lastStop === -1; i -= 1) if (raw[i] === ']' || raw[i] === '|') lastStop = i;
  const sessionAt = (at: number): string | null =>
    hasSessionEnd && raw.startsWith(' · [[', at) && at + 5 < sessionBar && at + 5 > lastStop ? raw.slice(at + 5, sessionBar) : null;
  // From the end of the link: ` · reason` (shortest), then ` · [[session]]`, then the tail.
  const rest = (linkEnd: number): { reason: string | undefined; session: string | undefined } | null => {
    if (raw.startsWith(SEP, linkEnd)) {
      const reasonStart = linkEnd + SEP.length;
      const breakAt = nextBreak(reasonStart);
      let candidate = hasSessionEnd ? nextSessionOpen(Math.max(reasonStart, lastStop - 4)) : raw.length;
      if (candidate < raw.length && sessionAt(candidate) === null) candidate = raw.length;
      const viaTail = tailStart >= reasonStart ? tailStart : raw.length;
      const reasonEnd = Math.min(candidate, viaTail);
      if (reasonEnd < raw.length && reasonEnd <= breakAt) {
        const session = reasonEnd === candidate ? (sessionAt(candidate) as string) : undefined;
        return { reason: raw.slice(reasonStart, reasonEnd), session };
      }
    }
    const session = sessionAt(linkEnd);
    if (session !== null) return { reason: undefined, session };
    return linkEnd === tailStart ? { reason: undefined, session: undefined } : null;
  };
  const actorBreak = nextBreak(actorStart);
  for (let sep = raw.indexOf(SEP, actorStart + 1); sep !== -1 && sep <= actorBreak; sep = raw.indexOf(SEP, sep + 1)) {
    const opStart = sep + SEP.length;
    const opEnd = nextSpace(opStart);
    if (opEnd === opStart || raw[opEnd] !== ' ') continue;
    const link = opEnd + 1;
    let linkEnd = -1;
    let wikiTarget: string | undefined;
    let markdownTarget: string | undefined;
    if (raw.startsWith('[[', link)) {
      const close = nextBracket(link + 2);
      if (close > link + 2 && raw.startsWith(']]', close)) {
        linkEnd = close + 2;
        wikiTarget = raw.slice(link + 2, close);
      }
    }
    if (linkEnd === -1 && raw[link] === '[') {
      const close = nextBracket(link + 1);
      if (raw[close + 1] === '(') {
        const paren = nextParenOrSpace(close + 2);
        if (paren > close + 2 && raw[paren] === ')') {
          linkEnd = paren + 1;
          markdownTarget = raw.slice(close + 2, paren);
        }
      }
    }
    if (linkEnd === -1) continue;
    const found = rest(linkEnd);
    if (!found) continue;
    const actor = raw.slice(actorStart, sep);
    const op = raw.slice(opStart, opEnd);
    return [raw, head[1], head[2], actor, op, wikiTarget, markdownTarget, found.reason, found.session, tail[1]];
  }
  return null;
}

/** Parses one changelog line; null for anything else (titles, blank lines, a person's notes). */
export function parseChangelogLine(raw: string): ChangelogLine | null {
  const match = matchLine(raw);
  if (!match) return null;
  const [, date, time, actor, op, wikiTarget, markdownTarget, reason = '', session, editId] = match;
  // one of the two link forms always matched
  let target = wikiTarget ? `${wikiTarget}.md` : (markdownTarget as string);
  if (!wikiTarget) {
    try {
      target = decodeURIComponent(markdownTarget as string);
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
