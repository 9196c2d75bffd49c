import { composeNote, type FrontmatterData } from './frontmatter';
import { formatDate, formatTime, slugify, type IdSource } from '../ids';
import { oneLine } from '../text';
import type { ProposalAction } from './schema';

/**
 * The text of the notes Lucid itself writes for agents (inbox proposals and session notes), shared
 * by the MCP server, the CLI and the demo vault so that all of them write exactly the same format.
 */

/** `[[path]]` without `.md`, as Lucid writes links in properties. */
export function noteLink(path: string): string {
  return `[[${path.replace(/\.md$/i, '')}]]`;
}

/** The vault path a `[[link]]` property value names (`.md` added), or null when it is not one link. */
export function linkTarget(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const match = /^\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]$/.exec(value.trim());
  if (!match) return null;
  const target = match[1].trim();
  return target.toLowerCase().endsWith('.md') ? target : `${target}.md`;
}

/** A fence of backticks longer than any run of backticks inside `content` (at least four). */
function fenceFor(content: string): string {
  const longest = Math.max(0, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(4, longest + 1));
}

/** `YYYY-MM-DD-HHMMSS` in local time, as inbox file names start. */
function inboxStamp(now: Date): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  return `${formatDate(now)}-${p2(now.getHours())}${p2(now.getMinutes())}${p2(now.getSeconds())}`;
}

/**
 * Where a proposal goes: `<inbox>/<YYYY-MM-DD-HHMMSS>-<slug>-<4 random base32>.md`. The random
 * suffix (from the vault's id source) keeps names unique across machines that share the vault
 * through git, and between two proposals of one name in the same second.
 */
export function inboxNotePath(inboxFolder: string, now: Date, title: string, ids: IdSource): string {
  const slug = slugify(title) || 'proposal';
  return `${inboxFolder}/${inboxStamp(now)}-${slug}-${ids.base32(4)}.md`;
}

/** What an inbox proposal holds (VAULT-FORMAT, "Inbox"). */
export interface InboxNoteInput {
  proposedBy: string;
  action: ProposalAction;
  /** Vault path of the note the proposal is about. */
  target: string;
  reason: string;
  now: Date;
  /** Session id, linked as `[[<sessions>/<id>]]`. */
  session?: string;
  sessionsFolder?: string;
  confidence?: number;
  /** Git blob id of the target when proposed (update, append, delete). */
  baseBlob?: string;
  flag?: string;
  /** A short explanation for the person, above the proposed content. */
  explanation: string;
  /** The proposed content: for `update` the whole note, front matter included. */
  content: string;
}

/**
 * The text of an inbox proposal: its front matter, a short explanation for the person, and the
 * proposed content in one ````markdown fence longer than any fence inside it.
 */
export function inboxNoteText(input: InboxNoteInput): string {
  const fence = fenceFor(input.content);
  const content = input.content === '' || input.content.endsWith('\n') ? input.content : `${input.content}\n`;
  const body = `${input.explanation.trim()}\n\n${fence}markdown\n${content}${fence}\n`;
  const data: FrontmatterData = {
    type: 'inbox',
    proposed_by: input.proposedBy,
    action: input.action,
    target: input.target,
    reason: input.reason,
    created: formatTime(input.now),
    session: input.session ? noteLink(`${input.sessionsFolder ?? 'sessions'}/${input.session}`) : undefined,
    confidence: input.confidence,
    base_blob: input.baseBlob,
    flag: input.flag,
  };
  return composeNote({ ...data, updated: formatDate(input.now) }, body);
}

/**
 * A link to a note for a body Lucid writes (reports): `[[path|shown]]` (`[[path]]` without
 * `shown`), `.md` left out as Obsidian shows it; a path a wikilink cannot hold (`#`, `|`, `^`, `[`,
 * `]`) becomes a markdown link with the path URL-encoded. `shown` is made one line, its brackets
 * and bars replaced, so it can never close the link or start another.
 */
export function noteLinkShown(path: string, shown?: string): string {
  const text = shown === undefined ? undefined : oneLine(shown, 200).replace(/\[/g, '(').replace(/\]/g, ')').replace(/\|/g, '/');
  if (/[#|^[\]]/.test(path)) {
    const name = path
      .slice(path.lastIndexOf('/') + 1)
      .replace(/\.md$/i, '')
      .replace(/[[\]]/g, '');
    const url = path
      .split('/')
      .map((part) => encodeURIComponent(part).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
      .join('/');
    return `[${text || name}](${url})`;
  }
  const target = path.replace(/\.md$/i, '');
  return text ? `[[${target}|${text}]]` : `[[${target}]]`;
}
