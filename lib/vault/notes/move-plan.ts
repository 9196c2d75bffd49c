import type { VaultErrorCode } from '../errors';
import { parseFrontmatter } from './frontmatter';
import { baseName, createLinkResolver, dirName, joinPath } from './link-resolver';
import { applyEdits, frontmatterStrings, relativeLinkPath, rewriteFrontmatterLinks, rewriteMarkdownLink, rewriteWikilink, type TextEdit } from './link-rewrite';
import { findWikilinks, isExternalTarget, locateBodyLinks, parseLinks, type LinkKind, type LinkResolver, type ParsedLink } from './links';

/**
 * Moving a note without breaking a link: which links a rename changes and the new text of every
 * note that must change. Pure: it reads only the texts and the file list it is given, so the whole
 * move is planned (and checked) before anything is written.
 */

/** A note as the planner needs it: its path, its text (BOM removed; null when not text) and its links as the vault parsed them. */
export interface PlanNote {
  path: string;
  text: string | null;
  links: readonly ParsedLink[];
  problem: string | null;
  problemMessage: string | null;
}

/** One link written again: in which note (its path after the move), and the text before and after. */
export interface LinkChange {
  path: string;
  /** 1-based line in the body; 0 in front matter. */
  line: number;
  before: string;
  after: string;
  /** The link led to another note, which the moved note's new name or folder would have taken over. */
  captured: boolean;
}

/** Why a note stops the move, and the error code that says so. */
export interface MoveBlock {
  path: string;
  why: string;
  code: Extract<VaultErrorCode, 'invalid_frontmatter' | 'too_large' | 'binary' | 'invalid_input' | 'conflict'>;
}

/** What moving one note does to the vault's text. */
export interface MovePlan {
  /** The new text (without BOM) of every note that changes, by its path before the move; always holds the moved note. */
  texts: Map<string, string>;
  changes: LinkChange[];
  /** Links that led nowhere before and lead to a note after (the moved note fills a dangling link, as in Obsidian). */
  newlyResolved: { path: string; line: number; raw: string; resolved: string }[];
  /** Notes that stop the move: nothing may be written when this is not empty. */
  blocked: MoveBlock[];
}

/**
 * Plans moving the note `from` to `to` (both vault paths of `.md` files; `to` absent from `files`):
 * every link of `notes` that resolved to the moved note is written again so that it still does, the
 * moved note's own links are written again where its new folder changes what they reach, and links
 * to other notes that the new name or folder would take over (a bare `[[name]]` now matching the
 * moved note) are written again so they keep their note. Only links whose resolution changes are
 * touched, each in its own style: a bare `[[name]]` stays bare when that name is unique or in the
 * linking note's folder and becomes the full vault path otherwise, a path stays a path, a relative
 * markdown link stays relative, URL-encoding and `<...>` destinations are kept, and subpaths,
 * aliases, embeds and table escapes are left as written. Front-matter links are changed in place,
 * in their quoting. `files` is every file of the vault (attachments too) before the move; `notes`
 * are the notes whose links count (the changelog left out). Afterwards every link of every given
 * note is resolved again on the new file list and compared with what it reached before; any
 * difference is a block. Notes that cannot be parsed or decoded block the move when they would have
 * to change (or, unparsed, may name the moved note).
 */
export function planMove(input: { files: readonly string[]; notes: readonly PlanNote[]; from: string; to: string }): MovePlan {
  const { from, to } = input;
  const afterFiles = [...input.files.filter((path) => path !== from), to];
  const ctx: Context = {
    from,
    to,
    before: createLinkResolver(input.files),
    after: createLinkResolver(afterFiles),
    nameCounts: countNames(afterFiles),
  };
  const plan: MovePlan = { texts: new Map(), changes: [], newlyResolved: [], blocked: [] };
  const keys = new Set([nameKey(from), nameKey(to)]);
  for (const note of input.notes) {
    if (note.text === null) continue;
    if (note.problem && note.problem !== 'invalid_frontmatter') {
      const lower = note.text.toLowerCase();
      if ([...keys].some((key) => lower.includes(key))) {
        plan.blocked.push({
          path: note.path,
          code: note.problem === 'too_large' ? 'too_large' : 'binary',
          why: `Lucid cannot parse it (${note.problemMessage ?? note.problem}) and it names "${nameOf(from)}" or "${nameOf(to)}", so it may hold a link the move would break`,
        });
      }
      continue;
    }
    const affected = note.path === from || note.problem === 'invalid_frontmatter' || note.links.some((link) => keys.has(nameKey(link.target)));
    if (affected) planNote(ctx, note, plan);
  }
  if (!plan.texts.has(from)) {
    const note = input.notes.find((n) => n.path === from);
    if (note?.text != null) plan.texts.set(from, note.text);
  }
  return plan;
}

interface Context {
  from: string;
  to: string;
  before: LinkResolver;
  after: LinkResolver;
  /** How many files of the vault after the move have each file name (lowercased). */
  nameCounts: Map<string, number>;
}

const moved = (ctx: Context, path: string) => (path === ctx.from ? ctx.to : path);

/** Rewrites one note's links as the move needs, then checks every link of it on the new file list. */
function planNote(ctx: Context, note: PlanNote, plan: MovePlan): void {
  const text = note.text as string;
  const source = note.path;
  const target = moved(ctx, source);
  const parsed = parseFrontmatter(text);
  const parts = parsed.parts;
  const blocksBefore = plan.blocked.length;
  const block = (why: string, code: MoveBlock['code'] = 'invalid_input') => plan.blocked.push({ path: source, why, code });
  const changes: LinkChange[] = [];

  /** The new target for a link whose resolution the move changes; undefined: keep it; null: none reaches its note. */
  const decide = (kind: LinkKind, written: string): { value: string | null; was: string } | undefined => {
    if (written === '' || (kind === 'markdown' && isExternalTarget(written))) return undefined;
    const was = ctx.before.resolve(written, source, kind);
    if (was === null) return undefined;
    const want = moved(ctx, was);
    if (ctx.after.resolve(written, target, kind) === want) return undefined;
    const value = kind === 'markdown' ? markdownTarget(ctx, written, source, target, was, want) : wikiTarget(ctx, written, target, kind, want);
    return { value, was };
  };
  const unreachable = (raw: string, want: string) =>
    block(`${raw} must still lead to ${want}, and no link written from ${target} can (its path holds a character links cannot carry, such as # | [ ])`);

  // Front-matter links come first in note.links, then the body's in the order they are written.
  const firstBody = note.links.findIndex((link) => link.kind !== 'frontmatter');
  const frontCount = firstBody < 0 ? note.links.length : firstBody;
  const bodyLinks = note.links.slice(frontCount);
  const wanted = new Map<number, { value: string | null; was: string }>();
  bodyLinks.forEach((link, i) => {
    const decided = decide(link.kind, link.target);
    if (decided) wanted.set(i, decided);
  });
  const replaced = new Map<number, string>();
  const edits: TextEdit[] = [];
  const spans = wanted.size > 0 ? locate(parts.body, bodyLinks, wanted) : new Map<number, Span>();
  if (spans === null) block('its links are not where Lucid read them (it changed meanwhile?); try the move again');
  for (const [i, decided] of spans ? wanted : []) {
    const link = bodyLinks[i];
    const span = spans?.get(i) as Span;
    if (decided.value === null) {
      unreachable(link.raw, moved(ctx, decided.was));
      continue;
    }
    const raw = link.kind === 'markdown' ? rewriteMarkdownLink(link.raw, span.url ?? '', decided.value) : rewriteWikilink(link.raw, decided.value);
    if (raw === null) {
      block(
        `${link.raw} (line ${link.line}) is written in a way Lucid cannot rewrite in place (an escaped character in its destination); change it to a plain link first`,
      );
      continue;
    }
    edits.push({ start: parts.bodyStart + span.start, end: parts.bodyStart + span.end, text: raw });
    replaced.set(frontCount + i, raw);
    changes.push({ path: target, line: link.line, before: link.raw, after: raw, captured: decided.was !== ctx.from && source !== ctx.from });
  }
  let next = applyEdits(text, edits);
  let frontChanged = false;

  if (parts.hasFrontmatter) {
    const decisions = new Map<string, { value: string | null; was: string }>();
    const values = parsed.ok ? frontmatterStrings(parsed.data) : [parts.frontmatter];
    const kept = new Set<string>();
    for (const value of values) {
      for (const match of findWikilinks(value)) {
        if (kept.has(match.target)) continue;
        const raw = value.slice(match.start, match.end);
        let decided = decisions.get(match.target);
        if (!decided) {
          decided = decide('frontmatter', match.target);
          if (!decided || decided.value === null) {
            kept.add(match.target);
            if (decided) unreachable(raw, moved(ctx, decided.was));
            continue;
          }
          decisions.set(match.target, decided);
        }
        changes.push({
          path: target,
          line: 0,
          before: raw,
          after: rewriteWikilink(raw, decided.value as string),
          captured: decided.was !== ctx.from && source !== ctx.from,
        });
      }
    }
    if (decisions.size > 0 && parsed.ok) {
      frontChanged = true;
      const targets = new Map([...decisions].map(([written, decided]) => [written, decided.value as string]));
      const rewritten = rewriteFrontmatterLinks(next, parsed, targets);
      if (rewritten === null) block('its front matter could not be rewritten without changing other values; change its links by hand first');
      else next = rewritten;
    }
  }

  if (note.problem && (changes.length > 0 || plan.blocked.length > blocksBefore)) {
    plan.blocked.splice(blocksBefore);
    block(
      `it links to a note the move changes, but its front matter cannot be parsed (${note.problemMessage ?? note.problem}); a person must fix it first`,
      'invalid_frontmatter',
    );
    return;
  }
  if (plan.blocked.length > blocksBefore) return;
  if (next !== text || source === ctx.from) plan.texts.set(source, next);
  plan.changes.push(...changes);
  verifyNote(ctx, note, { text: next, frontChanged, replaced, frontCount }, plan);
}

/**
 * Resolves every link of the note again as it will be after the move, and compares with before:
 * the links as read, with each rewritten one parsed again from its new text (and the front
 * matter's parsed again when it changed), so no body is parsed twice.
 */
function verifyNote(
  ctx: Context,
  note: PlanNote,
  next: { text: string; frontChanged: boolean; replaced: ReadonlyMap<number, string>; frontCount: number },
  plan: MovePlan,
): void {
  const source = note.path;
  const target = moved(ctx, source);
  const fail = (why: string, code: MoveBlock['code'] = 'invalid_input') => plan.blocked.push({ path: source, code, why });
  const after: ParsedLink[] = [...note.links];
  if (next.frontChanged) {
    const parsed = parseFrontmatter(next.text);
    if (!parsed.ok) {
      fail(`rewriting its links would leave front matter Lucid cannot read (${parsed.error})`, 'invalid_frontmatter');
      return;
    }
    const front = parseLinks('', parsed.data);
    if (front.length !== next.frontCount) {
      fail(`rewriting its links would change how many front-matter links it has (${next.frontCount} → ${front.length})`);
      return;
    }
    after.splice(0, front.length, ...front);
  }
  for (const [index, raw] of next.replaced) {
    const [link, ...more] = parseLinks(raw);
    if (!link || more.length > 0 || link.kind !== note.links[index].kind) {
      fail(`${note.links[index].raw} would not stay one link once rewritten as ${raw}`);
      return;
    }
    after[index] = { ...link, line: note.links[index].line };
  }
  for (let i = 0; i < after.length; i += 1) {
    const was = note.links[i];
    const now = after[i];
    if (was.kind === 'markdown' && isExternalTarget(was.target)) continue;
    const reached = was.target === '' ? source : ctx.before.resolve(was.target, source, was.kind);
    const reaches = now.target === '' ? target : ctx.after.resolve(now.target, target, now.kind);
    if (reached === null) {
      if (reaches !== null) plan.newlyResolved.push({ path: target, line: now.line, raw: now.raw, resolved: reaches });
      continue;
    }
    if (reaches !== moved(ctx, reached)) {
      plan.blocked.push({
        path: source,
        code: 'invalid_input',
        why: `${was.raw} would lead to ${reaches ?? 'nothing'} instead of ${moved(ctx, reached)} after the move`,
      });
    }
  }
}

/** Where a body link is written: `body.slice(start, end)`, and a markdown link's destination as written. */
interface Span {
  start: number;
  end: number;
  url?: string;
}

/**
 * Where the `wanted` links of `links` (a note's body links, in order) are written in `body`. Wikilinks
 * are found on their line by their text, when that line holds exactly as many copies of it as it
 * has links written so (none in code, an embed or an escape); otherwise, and for markdown links,
 * the body is parsed once. Null when the parse does not find the same links.
 */
function locate(body: string, links: readonly ParsedLink[], wanted: ReadonlyMap<number, unknown>): Map<number, Span> | null {
  if ([...wanted.keys()].every((i) => links[i].kind === 'wikilink')) {
    const found = locateOnLines(body, links, wanted);
    if (found) return found;
  }
  const located = locateBodyLinks(body);
  if (located.length !== links.length || located.some((l, i) => l.link.raw !== links[i].raw)) return null;
  return new Map([...wanted.keys()].map((i) => [i, { start: located[i].start, end: located[i].end, url: located[i].url }]));
}

function locateOnLines(body: string, links: readonly ParsedLink[], wanted: ReadonlyMap<number, unknown>): Map<number, Span> | null {
  const starts = [0];
  for (let at = body.indexOf('\n'); at >= 0; at = body.indexOf('\n', at + 1)) starts.push(at + 1);
  const same = new Map<string, number[]>();
  links.forEach((link, i) => {
    const key = `${link.line}\u0000${link.raw}`;
    same.set(key, [...(same.get(key) ?? []), i]);
  });
  const out = new Map<number, Span>();
  for (const i of wanted.keys()) {
    const { line, raw } = links[i];
    const members = same.get(`${line}\u0000${raw}`) ?? [];
    const lineStart = starts[line - 1];
    if (lineStart === undefined) return null;
    const lineText = body.slice(lineStart, line < starts.length ? starts[line] - 1 : body.length);
    const found: number[] = [];
    for (let at = lineText.indexOf(raw); at >= 0; at = lineText.indexOf(raw, at + raw.length)) found.push(at);
    if (found.length !== members.length) return null;
    const at = found[members.indexOf(i)];
    out.set(i, { start: lineStart + at, end: lineStart + at + raw.length });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Targets

/** Characters a wikilink target cannot carry. */
const NOT_IN_WIKILINK = /[|#\n]|\]\]|\[\[/;

/**
 * A wikilink (or front-matter link) target that leads from `source` to `want` on the new file list:
 * a bare name stays a bare name when it is unique in the vault or `want` is in the linking note's
 * folder, and otherwise becomes the vault path; a path stays a path. `.md` is written when it was.
 */
function wikiTarget(ctx: Context, written: string, source: string, kind: LinkKind, want: string): string | null {
  const full = withExtensionAsWritten(written, want);
  const name = full.slice(full.lastIndexOf('/') + 1);
  const candidates = written.includes('/') ? [full] : [name, full];
  for (const candidate of candidates) {
    if (NOT_IN_WIKILINK.test(candidate)) continue;
    if (candidate === name && name !== full && !bareNameIsSafe(ctx, want, source)) continue;
    if (ctx.after.resolve(candidate, source, kind) === want) return candidate;
  }
  return null;
}

/**
 * A markdown link path (decoded; encoded when written) that leads from `source` to `want`: in the
 * link's own style first (relative to the note, from the vault root with `/`, a vault path, or a
 * bare name), then relative, then from the root.
 */
function markdownTarget(ctx: Context, written: string, before: string, source: string, was: string, want: string): string | null {
  const full = withExtensionAsWritten(written, want);
  const name = full.slice(full.lastIndexOf('/') + 1);
  let relative = relativeLinkPath(dirName(source), full);
  if (written.startsWith('./') && !relative.startsWith('../')) relative = `./${relative}`;
  const rooted = `/${full}`;
  let candidates: string[];
  if (written.startsWith('/')) candidates = [rooted, relative];
  else if (sameFile(joinPath(dirName(before), written), was)) candidates = [relative, rooted];
  else if (written.includes('/')) candidates = [full, relative, rooted];
  else candidates = [name, relative, rooted];
  for (const candidate of candidates) {
    if (candidate.includes('#') || candidate.includes('\n')) continue;
    if (candidate === name && name !== full && !bareNameIsSafe(ctx, want, source)) continue;
    if (ctx.after.resolve(candidate, source, 'markdown') === want) return candidate;
  }
  return null;
}

/** A bare file name is written only when no other file has it, or the file is in the linking note's folder. */
function bareNameIsSafe(ctx: Context, want: string, source: string): boolean {
  return (ctx.nameCounts.get(baseName(want).toLowerCase()) ?? 0) <= 1 || dirName(want) === dirName(source);
}

/** `want` with `.md` dropped unless the link wrote it (`[[note.md]]`) or the file is not a note. */
function withExtensionAsWritten(written: string, want: string): string {
  const isNote = want.toLowerCase().endsWith('.md');
  return isNote && !written.toLowerCase().endsWith('.md') ? want.slice(0, -3) : want;
}

function sameFile(joined: string | null, path: string): boolean {
  if (joined === null) return false;
  const a = joined.toLowerCase();
  const b = path.toLowerCase();
  return a === b || `${a}.md` === b;
}

function nameOf(path: string): string {
  return baseName(path).replace(/\.md$/i, '');
}

/** A link target's or a path's file name as name lookups compare it: lowercased, without `.md`. */
function nameKey(target: string): string {
  return nameOf(target.trim()).toLowerCase();
}

function countNames(files: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of files) {
    const key = baseName(file).toLowerCase();
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
