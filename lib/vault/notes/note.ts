import { VaultError } from '../errors';
import { decodeNoteBytes, hashBytes, parseFrontmatter, type FrontmatterData, type ParsedFrontmatter } from './frontmatter';
import { firstTitleHeading } from './headings';
import { parseLinks, type ParsedLink } from './links';
import { basenameOf } from './paths';
import { isLucidType, validateFrontmatter, type NoteType, type Violation } from './schema';

/** Notes larger than this are listed and shown as text but not parsed, indexed or rewritten. */
export const MAX_NOTE_BYTES = 4 * 1024 * 1024;
/** A file of the vault as the listing sees it. */
export interface VaultFile {
  path: string;
  size: number;
  mtimeMs: number;
}

/** Why a note cannot be parsed (it is still listed and readable as text where it is text). */
export type NoteProblem = 'invalid_frontmatter' | 'binary' | 'invalid_utf8' | 'too_large';

/** A note as every consumer sees it: never raw gray-matter output. */
export interface Note {
  path: string;
  /** The note's title by the vault format's rule: see {@link noteTitle}. */
  title: string;
  size: number;
  mtimeMs: number;
  /** sha256 of the file's bytes: pass it back as `expectedHash` when writing. */
  hash: string;
  /** The text (without a byte-order mark), or null for binary and undecodable files. */
  text: string | null;
  /** Whether the file starts with a UTF-8 byte-order mark (writes keep it). */
  bom: boolean;
  frontmatter: FrontmatterData;
  body: string;
  /** The `type` field as written (any string), and whether it is one of Lucid's. */
  type: string | null;
  lucidType: NoteType | null;
  problem: NoteProblem | null;
  problemMessage: string | null;
  violations: Violation[];
  links: ParsedLink[];
}

/** A front-matter value as a title: non-blank text (or a number) on one line; else null. */
function titleValue(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const text = value.replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}

/**
 * A note's title, the vault format's one rule for every tool, page and CLI verb: its front-matter
 * `title`, else the `name` of a person or project, else the text of its first `# ` heading, else
 * its file name (without folders and `.md`). `frontmatter` is null when it does not parse (the
 * heading and the file name still count).
 */
export function noteTitle(path: string, frontmatter: FrontmatterData | null, body: string): string {
  if (frontmatter) {
    const title = titleValue(frontmatter.title);
    if (title) return title;
    if (frontmatter.type === 'person' || frontmatter.type === 'project') {
      const name = titleValue(frontmatter.name);
      if (name) return name;
    }
  }
  return firstTitleHeading(body) ?? basenameOf(path);
}

/**
 * Refuses an agent's change to a note Lucid cannot read (bad front matter, binary or undecodable
 * bytes, too large): such notes are never rewritten until a person fixes them.
 */
export function assertAgentWritable(note: Note): void {
  if (!note.problem) return;
  const code = note.problem === 'invalid_frontmatter' ? 'invalid_frontmatter' : note.problem === 'too_large' ? 'too_large' : 'binary';
  throw new VaultError(code, `${note.path} cannot be changed by an agent until a person fixes it: ${note.problemMessage}`, { path: note.path });
}

/** Parses a note's bytes into a {@link Note}; problems are recorded, never thrown. */
export function buildNote(path: string, bytes: Buffer, mtimeMs: number, known?: ParsedFrontmatter): Note {
  return parseNoteBytes(path, bytes, mtimeMs, known).note;
}

/**
 * {@link buildNote}, also returning the parsed front matter (null when the bytes are not text
 * Lucid parses), so a writer can edit properties without parsing the note a second time. `known`
 * is the front matter of these bytes when the caller already has it (the write path composed it).
 * `options.links: false` leaves `links` empty: parsing the markdown for links is most of the cost
 * of a note, and a reader of properties and text (start_session) needs none.
 */
export function parseNoteBytes(
  path: string,
  bytes: Buffer,
  mtimeMs: number,
  known?: ParsedFrontmatter,
  options: { links?: boolean } = {},
): { note: Note; parsed: ParsedFrontmatter | null } {
  const linksOf = options.links === false ? () => [] : safeLinks;
  const base: Note = {
    path,
    title: basenameOf(path),
    size: bytes.length,
    mtimeMs,
    hash: hashBytes(bytes),
    text: null,
    bom: false,
    frontmatter: {},
    body: '',
    type: null,
    lucidType: null,
    problem: null,
    problemMessage: null,
    violations: [],
    links: [],
  };
  const decoded = decodeNoteBytes(bytes);
  if (!decoded.ok) return { note: { ...base, problem: decoded.reason, problemMessage: decoded.message }, parsed: null };
  base.text = decoded.text;
  base.bom = decoded.bom;
  if (bytes.length > MAX_NOTE_BYTES) {
    return {
      note: {
        ...base,
        body: decoded.text,
        problem: 'too_large',
        problemMessage: `The note is larger than ${MAX_NOTE_BYTES / 1024 / 1024} MiB; it is shown as text only.`,
      },
      parsed: null,
    };
  }
  const parsed = known ?? parseFrontmatter(decoded.text);
  if (!parsed.ok) {
    const body = parsed.parts.hasFrontmatter ? parsed.parts.body : decoded.text;
    const note: Note = {
      ...base,
      title: noteTitle(path, null, body),
      body,
      problem: 'invalid_frontmatter',
      problemMessage: parsed.error,
      links: linksOf(body),
    };
    return { note, parsed };
  }
  const data = parsed.data;
  const type = typeof data.type === 'string' ? data.type : null;
  const note: Note = {
    ...base,
    title: noteTitle(path, data, parsed.parts.body),
    frontmatter: data,
    body: parsed.parts.body,
    type,
    lucidType: isLucidType(type) ? type : null,
    violations: validateFrontmatter(path, data),
    links: linksOf(parsed.parts.body, data),
  };
  return { note, parsed };
}

function safeLinks(body: string, data?: FrontmatterData): ParsedLink[] {
  try {
    return parseLinks(body, data);
  } catch {
    return [];
  }
}
