import { CONFIG_FILE, isChangelogPath, type VaultLayout } from '../notes/layout';
import { isSessionId } from '../ids';
import { parseFrontmatter, type FrontmatterData } from '../notes/frontmatter';
import { linkTarget } from '../notes/note-formats';
import { isUnderFolded } from '../notes/protected';
import { basenameOf, normalizeVaultPath } from '../notes/paths';
import { PROPOSAL_ACTIONS, type ProposalAction } from '../notes/schema';
import type { InboxItem } from './types';

/*
 * The one reader of inbox notes (VAULT-FORMAT, "Inbox"): front matter, a short explanation for the
 * person, and the proposal in one fenced block whose fence is longer than any fence inside it.
 * Pure functions over text, so the queue, the detail, accept and the tests share them.
 */

/** Where a fenced block sits in a text, and what it holds. */
export interface FencedBlock {
  /** The info string after the opening fence, trimmed (`markdown`). */
  info: string;
  /** The lines between the fences, line breaks as in the text; '' for an empty block. */
  content: string;
  /** Offsets of the opening fence line's start and of the end of the closing fence line (its line break included). */
  start: number;
  end: number;
}

// The lookaheads end the fence at the end of its run, so a long run is not retried split by split.
const OPENING = /^( {0,3})(`{3,}(?!`)|~{3,}(?!~))(.*)$/;

/** The lines of `text`, each with its offset and its line break. */
function linesOf(text: string): { text: string; start: number; end: number }[] {
  const out: { text: string; start: number; end: number }[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf('\n', at);
    const end = nl === -1 ? text.length : nl + 1;
    const raw = text.slice(at, nl === -1 ? text.length : nl);
    out.push({ text: raw.endsWith('\r') ? raw.slice(0, -1) : raw, start: at, end });
    at = end;
  }
  return out;
}

/** Whether `line` closes a block opened by `fence`: up to three spaces, the same character at least as many times, then only blanks. */
function closesFence(line: string, fence: string): boolean {
  let i = 0;
  while (i < 3 && line[i] === ' ') i += 1;
  let run = 0;
  while (line[i + run] === fence[0]) run += 1;
  return run >= fence.length && /^[ \t]*$/.test(line.slice(i + run));
}

/**
 * The top-level fenced code blocks of a markdown text, CommonMark style: an opening fence of three or
 * more backticks or tildes (indented at most three spaces; a backtick fence's info string holds no
 * backtick), closed by a line of the same character at least as long, with nothing after it but
 * spaces. Content lines lose the opening fence's indentation. `unclosed` is the offset of a fence
 * that no line closes (CommonMark runs it to the end of the text; a proposal cut there is not applied).
 */
export function fencedBlocks(text: string): { blocks: FencedBlock[]; unclosed: number | null } {
  const lines = linesOf(text);
  const blocks: FencedBlock[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = OPENING.exec(lines[i].text);
    if (!open) continue;
    const [, indent, fence, rest] = open;
    if (fence[0] === '`' && rest.includes('`')) continue;
    let j = i + 1;
    while (j < lines.length && !closesFence(lines[j].text, fence)) j += 1;
    if (j >= lines.length) return { blocks, unclosed: lines[i].start };
    const content = lines
      .slice(i + 1, j)
      .map((line) => text.slice(line.start, line.end))
      .map((line) => stripIndent(line, indent.length))
      .join('');
    blocks.push({ info: rest.trim(), content, start: lines[i].start, end: lines[j].end });
    i = j;
  }
  return { blocks, unclosed: null };
}

function stripIndent(line: string, width: number): string {
  let n = 0;
  while (n < width && line[n] === ' ') n += 1;
  return line.slice(n);
}

/** What an inbox note's body holds: the explanation for the person and the proposal, or why there is none. */
export interface ParsedProposal {
  explanation: string;
  /** The fenced block's content, or null when there is none. */
  proposal: string | null;
  /** Why no proposal could be read (no block, a block never closed), else null. */
  problem: string | null;
}

const PROPOSAL_INFO = new Set(['markdown', 'md']);

/**
 * Reads an inbox note's body: the proposal is its first top-level fenced block marked `markdown`
 * (or `md`), else its first fenced block of any kind; the explanation is the rest, trimmed.
 */
export function parseProposalBlock(body: string): ParsedProposal {
  const { blocks, unclosed } = fencedBlocks(body);
  const block = blocks.find((b) => PROPOSAL_INFO.has(b.info.split(/\s+/)[0].toLowerCase())) ?? blocks[0];
  if (!block) {
    if (unclosed !== null) {
      return {
        explanation: body.slice(0, unclosed).trim(),
        proposal: null,
        problem: 'its proposal block is never closed (a fence line opens it and none ends it), so it may be cut short',
      };
    }
    return { explanation: body.trim(), proposal: null, problem: 'it holds no fenced block with the proposed content' };
  }
  const explanation = `${body.slice(0, block.start).trim()}\n\n${body.slice(block.end).trim()}`.trim();
  return { explanation, proposal: block.content, problem: null };
}

/** git's conflict marker lines that open or close a conflict: `<<<<<<< ...` and `>>>>>>> ...`. */
const END_MARKER = /^(<{7}|>{7})(?:[ \t].*)?\r?$/m;

/**
 * True when `text` still holds a conflict: a `<<<<<<<` or `>>>>>>>` marker line (with or without
 * a label). A `=======` or `|||||||` line alone is not one: `=======` under a line is a markdown
 * setext heading; between the two end markers it is always caught with them.
 */
export function hasConflictMarkers(text: string): boolean {
  return END_MARKER.test(text);
}

/** The id of an inbox note: its file name without `.md`. */
export function inboxIdOf(path: string): string {
  return basenameOf(path).replace(/\.md$/i, '');
}

function stringField(data: FrontmatterData, key: string): string | null {
  const value = data[key];
  if (typeof value === 'string') return value;
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  if (typeof value === 'number') return String(value);
  return null;
}

/**
 * One inbox note as an item of the queue. Never throws: what keeps the item from being applied
 * (front matter that does not parse, a missing field or block, an unknown action, a target outside
 * the vault or in the inbox, the changelog or lucid.json) is its `problem`.
 */
export function parseInboxNote(path: string, text: string, layout: VaultLayout): InboxItem {
  const parsed = parseFrontmatter(text.replace(/^\uFEFF/, ''));
  const problems: string[] = [];
  const data: FrontmatterData = parsed.ok ? parsed.data : {};
  if (!parsed.ok) problems.push(`its front matter does not parse (${parsed.error})`);
  else if (data.type !== 'inbox') problems.push(`it is not an inbox proposal (its type is ${data.type === undefined ? 'missing' : JSON.stringify(data.type)})`);
  const body = parsed.parts.body;

  const proposedBy = stringField(data, 'proposed_by')?.trim() ?? '';
  if (parsed.ok && !proposedBy) problems.push('proposed_by is missing');
  const rawAction = stringField(data, 'action')?.trim() ?? '';
  const known = (PROPOSAL_ACTIONS as readonly string[]).includes(rawAction);
  if (parsed.ok && !known) problems.push(rawAction ? `its action "${rawAction}" is not one of ${PROPOSAL_ACTIONS.join(', ')}` : 'action is missing');
  const action = (known ? rawAction : 'update') as ProposalAction;

  const rawTarget = stringField(data, 'target')?.trim() ?? '';
  let target = rawTarget;
  if (parsed.ok && !rawTarget) problems.push('target is missing');
  else if (rawTarget) {
    try {
      target = normalizeVaultPath(rawTarget, { forWrite: true });
      if (isUnderFolded(target, layout.inbox)) problems.push('its target is in the inbox itself');
      else if (isChangelogPath(layout, target)) problems.push('its target is the changelog, which only Lucid writes');
      else if (target.toLowerCase() === CONFIG_FILE) problems.push(`its target is ${CONFIG_FILE}, which only lucid init writes`);
    } catch (error) {
      problems.push(`its target ${JSON.stringify(rawTarget)} is not a path inside the vault (${(error as Error).message})`);
    }
  }

  const block = parseProposalBlock(body);
  if (action !== 'delete' && block.problem) problems.push(block.problem);

  const sessionTarget = linkTarget(data.session);
  const sessionId = sessionTarget ? basenameOf(sessionTarget).replace(/\.md$/i, '') : null;
  const confidence = typeof data.confidence === 'number' && data.confidence >= 0 && data.confidence <= 1 ? data.confidence : null;
  const baseBlob = stringField(data, 'base_blob');
  const flag = stringField(data, 'flag')?.trim() || null;
  return {
    id: inboxIdOf(path),
    path,
    proposedBy,
    session: sessionId && isSessionId(sessionId) ? sessionId : null,
    action,
    target,
    reason: stringField(data, 'reason') ?? '',
    confidence,
    flag,
    created: stringField(data, 'created') ?? '',
    baseBlob: baseBlob && /^[0-9a-f]{40,64}$/.test(baseBlob) ? baseBlob : null,
    explanation: block.explanation,
    proposal: action === 'delete' ? null : block.proposal,
    problem: problems.length > 0 ? `This item cannot be accepted: ${problems.join('; ')}. Reject it, or fix the note in ${path}.` : null,
  };
}
