import { aliasesOf } from '../../agents/read-note';
import { resolveLinkValue } from '../../agents/session-context';
import { parseHeadings, type Heading } from '../../notes/headings';
import type { LinkResolver } from '../../notes/links';
import type { Note } from '../../notes/note';
import type { Vault } from '../../vault';
import { corpusExclusions } from '../corpus';
import { plainText } from '../plain-text';
import { documentFrequencies } from './words';

/**
 * One note as the generator reads it: a searchable text note. A note whose front matter does not
 * parse (an unfilled template's `{{date}}`) is still one: its title, body, headings and links are
 * read as search reads them, with no properties, so only the mined questions use it.
 */
export interface SourceNote {
  path: string;
  title: string;
  aliases: string[];
  /** One of Lucid's types, or null (always null when the front matter does not parse). */
  type: string | null;
  /** False when the note's front matter does not parse: its `frontmatter` is then empty. */
  parsed: boolean;
  frontmatter: Record<string, unknown>;
  /** The body after the front matter's closing fence (the whole text when the fence is not closed). */
  body: string;
  /** The body's headings (parsed on first use: only some templates need them). */
  headings(): Heading[];
  note: Note;
}

/** What every template reads: the notes, link resolution and how common each word is. */
export interface GenerateSource {
  notes: SourceNote[];
  byPath: Map<string, SourceNote>;
  /** The note a `[[link]]` property value of `from` names, when it is a note of the source whose front matter parses. */
  linkOf(value: unknown, from: string): SourceNote | null;
  /** The note a body link written in `from` leads to, when it is a note of the source. */
  resolve(target: string, from: string): SourceNote | null;
  /** In how many notes each lowercase word occurs, and how many notes there are. */
  df: Map<string, number>;
  total: number;
  /** Notes left out because they are not text or too large to parse. */
  skipped: string[];
  /** Notes whose front matter does not parse: read for mined questions only. */
  unparsed: string[];
}

/**
 * Reads the notes a question may name as gold: the notes a run retrieves from (`corpusExclusions`:
 * Lucid's system folders, the evaluations and AGENTS.md left out), skipping notes that are not
 * text or too large to parse. Notes whose front matter does not parse are kept, unparsed.
 */
export async function loadGenerateSource(vault: Vault): Promise<GenerateSource> {
  const graph = await vault.linkGraph();
  return sourceFromNotes(graph.notes, graph.resolver, corpusExclusions(vault.layout));
}

/** {@link loadGenerateSource} over notes already read (tests pass literal notes). */
export function sourceFromNotes(all: readonly Note[], resolver: LinkResolver, excluded: string[] = []): GenerateSource {
  const notes: SourceNote[] = [];
  const skipped: string[] = [];
  for (const note of [...all].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    if (excluded.some((prefix) => note.path.startsWith(prefix))) continue;
    const parsed = note.problem === null;
    if ((!parsed && note.problem !== 'invalid_frontmatter') || note.text === null) {
      skipped.push(note.path);
      continue;
    }
    notes.push({
      path: note.path,
      title: note.title,
      aliases: aliasesOf(note),
      type: parsed ? note.lucidType : null,
      parsed,
      frontmatter: parsed ? note.frontmatter : {},
      body: note.body,
      headings: lazyHeadings(note.body),
      note,
    });
  }
  const byPath = new Map(notes.map((n) => [n.path, n]));
  return {
    notes,
    byPath,
    linkOf: (value, from) => {
      const path = resolveLinkValue(resolver, value, from);
      const note = path ? byPath.get(path) : undefined;
      return note?.parsed ? note : null;
    },
    resolve: (target, from) => {
      const path = resolver.resolve(target, from, 'wikilink');
      return path ? (byPath.get(path) ?? null) : null;
    },
    df: documentFrequencies(notes.map((n) => plainText(n.body))),
    total: notes.length,
    skipped,
    unparsed: notes.filter((n) => !n.parsed).map((n) => n.path),
  };
}

function lazyHeadings(body: string): () => Heading[] {
  let headings: Heading[] | null = null;
  return () => {
    if (!headings) {
      try {
        headings = parseHeadings(body);
      } catch {
        headings = [];
      }
    }
    return headings;
  };
}

/** A property holding one link or a list of links, as the notes it names. */
export function linkedNotes(source: GenerateSource, value: unknown, from: string): SourceNote[] {
  const values = Array.isArray(value) ? value : [value];
  const out: SourceNote[] = [];
  for (const v of values) {
    const note = source.linkOf(v, from);
    if (note && !out.includes(note)) out.push(note);
  }
  return out;
}

/** A front-matter value as one line of text, or null. */
export function textField(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return null;
  const text = value.replace(/\s+/g, ' ').trim();
  return text === '' ? null : text;
}
