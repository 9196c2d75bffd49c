import { aliasesOf } from '../../agents/read-note';
import { resolveLinkValue } from '../../agents/session-context';
import { parseHeadings, type Heading } from '../../notes/headings';
import type { LinkResolver } from '../../notes/links';
import type { Note } from '../../notes/note';
import type { Vault } from '../../vault';
import { corpusExclusions } from '../corpus';
import { documentFrequencies, plainText } from './words';

/** One note as the generator reads it: a searchable note whose front matter parses. */
export interface SourceNote {
  path: string;
  title: string;
  aliases: string[];
  /** One of Lucid's types, or null. */
  type: string | null;
  frontmatter: Record<string, unknown>;
  /** The body without its front matter. */
  body: string;
  /** The body's headings (parsed on first use: only some templates need them). */
  headings(): Heading[];
  note: Note;
}

/** What every template reads: the notes, link resolution and how common each word is. */
export interface GenerateSource {
  notes: SourceNote[];
  byPath: Map<string, SourceNote>;
  /** The vault path a `[[link]]` property value of `from` names, when it is a note of the source. */
  linkOf(value: unknown, from: string): SourceNote | null;
  /** The note a body link written in `from` leads to, when it is a note of the source. */
  resolve(target: string, from: string): SourceNote | null;
  /** In how many notes each lowercase word occurs, and how many notes there are. */
  df: Map<string, number>;
  total: number;
  /** Notes left out because their front matter does not parse (or they are not text). */
  skipped: string[];
}

/**
 * Reads the notes a question may name as gold: the notes a run retrieves from (`corpusExclusions`:
 * Lucid's system folders, the evaluations and AGENTS.md left out), skipping notes whose front
 * matter does not parse or that are not text.
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
    if (note.problem || note.text === null) {
      skipped.push(note.path);
      continue;
    }
    notes.push({
      path: note.path,
      title: note.title,
      aliases: aliasesOf(note),
      type: note.lucidType,
      frontmatter: note.frontmatter,
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
      return path ? (byPath.get(path) ?? null) : null;
    },
    resolve: (target, from) => {
      const path = resolver.resolve(target, from, 'wikilink');
      return path ? (byPath.get(path) ?? null) : null;
    },
    df: documentFrequencies(notes.map((n) => plainText(n.body))),
    total: notes.length,
    skipped,
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
