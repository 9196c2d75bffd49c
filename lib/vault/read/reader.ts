import type { Stats } from 'node:fs';
import nodePath from 'node:path';
import { VaultError } from '../errors';
import type { VaultFs } from '../fs';
import { isChangelogPath, type VaultLayout } from '../notes/layout';
import { ioError } from '../write/atomic';
import { readConfined, readConfinedMany } from '../write/confine-read';
import { hashBytes } from '../notes/frontmatter';
import { computeBacklinks, createLinkResolver } from '../notes/link-resolver';
import { isExternalTarget, type LinkResolver, type ParsedLink } from '../notes/links';
import { buildNote, type Note, type NoteProblem, type VaultFile } from '../notes/note';
import { isInside, normalizeNotePath, normalizeVaultPath } from '../notes/paths';
import type { Violation } from '../notes/schema';
import { sortListing, walkVault } from '../watch/walk';

interface CachedNote {
  size: number;
  mtimeMs: number;
  note: Note;
}

/**
 * Reading a vault: its files, its notes (parsed once per version and kept by hash), and the link
 * graph between them (computed once per state of the files). Every read is confined to the vault.
 */
export class NoteReader {
  private readonly notes = new Map<string, CachedNote>();
  private resolverCache: { key: string; resolver: LinkResolver } | null = null;
  private graphCache: { signature: string; graph: LinkGraph } | null = null;
  private listingSource: (() => Promise<VaultFile[]> | null) | null = null;

  constructor(
    private readonly root: string,
    private readonly layout: VaultLayout,
    private readonly fs: VaultFs,
  ) {}

  /** Keeps a note just written (already parsed by the write path) so that the next read reuses it. */
  remember(note: Note, size: number, mtimeMs: number): void {
    this.notes.set(note.path, { size, mtimeMs, note });
    this.resolverCache = null;
  }

  /** Forgets what is known of `path` after a write changed it. */
  forget(path: string): void {
    this.notes.delete(path);
    this.resolverCache = null;
  }

  /**
   * Answers {@link listFiles} from `source` (a file watcher's listing) while it returns one; when it
   * returns null (the watcher failed or stopped), or with `source` null, the vault is walked.
   */
  setListingSource(source: (() => Promise<VaultFile[]> | null) | null): void {
    this.listingSource = source;
  }

  /** Every file of the vault except git's, Lucid's state, dot-folders and temp files, sorted by path. */
  async listFiles(): Promise<VaultFile[]> {
    const kept = this.listingSource?.();
    if (kept) return kept;
    return sortListing(await walkVault(this.fs, this.root));
  }

  /** The absolute path of a vault path for reading; links may not lead outside the vault. */
  async resolveForRead(path: string): Promise<string> {
    const abs = nodePath.join(this.root, path);
    let real: string;
    try {
      real = await this.fs.realpath(abs);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new VaultError('not_found', `No file ${path} in this vault.`);
      throw ioError(error, `read ${path}`);
    }
    if (!isInside(this.root, real) || isInside(nodePath.join(this.root, '.git'), real)) {
      throw new VaultError('forbidden', `${path} is a link that leads outside the vault.`);
    }
    return real;
  }

  /**
   * The raw bytes of a vault file (attachments included), confined to the vault: read through a
   * descriptor confirmed to be the file inside it (a folder swapped for a link is `forbidden`).
   */
  async readFileBytes(path: string): Promise<Buffer> {
    const rel = normalizeVaultPath(path);
    return (await readConfined(this.fs, this.root, rel)).bytes;
  }

  /**
   * Reads a note. Bad front matter, binary bytes and invalid UTF-8 are reported on the note
   * (`problem`), never thrown; a missing file is `not_found`.
   */
  async readNote(path: string): Promise<Note> {
    const rel = normalizeNotePath(path);
    const { bytes, stat } = await readConfined(this.fs, this.root, rel);
    // The hash, not the mtime, decides: a same-size change with its mtime reset is still seen.
    const cached = this.notes.get(rel);
    if (cached && cached.note.hash === hashBytes(bytes)) {
      this.notes.set(rel, { size: stat.size, mtimeMs: stat.mtimeMs, note: cached.note });
      return cached.note;
    }
    const note = buildNote(rel, bytes, stat.mtimeMs);
    this.notes.set(rel, { size: stat.size, mtimeMs: stat.mtimeMs, note });
    return note;
  }

  /** Every note (`*.md`) of the vault (or of `listing`, a listing just taken), parsed; unreadable ones are listed with their problem. */
  async listNotes(listing?: VaultFile[]): Promise<Note[]> {
    const files = (listing ?? (await this.listFiles())).filter((f) => f.path.toLowerCase().endsWith('.md'));
    const seen = new Set<string>();
    const out: Note[] = [];
    for (const file of files) {
      seen.add(file.path);
      const cached = this.notes.get(file.path);
      if (cached && cached.size === file.size && cached.mtimeMs === file.mtimeMs) {
        out.push(cached.note);
        continue;
      }
      try {
        out.push(await this.readNote(file.path));
      } catch {
        // removed or became unreadable meanwhile
      }
    }
    for (const key of this.notes.keys()) if (!seen.has(key)) this.notes.delete(key);
    return out;
  }

  /** A resolver over the vault's current files (rebuilt when files come or go). */
  async linkResolver(files?: VaultFile[]): Promise<LinkResolver> {
    const list = files ?? (await this.listFiles());
    const key = `${list.length}:${list.map((f) => f.path).join('\u0000')}`;
    if (this.resolverCache?.key === key) return this.resolverCache.resolver;
    const resolver = createLinkResolver(list.map((f) => f.path));
    this.resolverCache = { key, resolver };
    return resolver;
  }

  /** The notes that link to `path`, with the line of each link. */
  async backlinks(path: string): Promise<{ from: string; line: number }[]> {
    const target = normalizeNotePath(path);
    return (await this.linkGraph()).backlinks.get(target) ?? [];
  }

  /**
   * Every note's resolved links and the backlinks they make, computed once per state of the files
   * on disk (any note added, removed or changed recomputes it).
   */
  async linkGraph(): Promise<LinkGraph> {
    const files = await this.listFiles();
    let signature = '';
    for (const f of files) signature += `${f.path}\u0000${f.mtimeMs}\u0000${f.size}\n`;
    if (this.graphCache?.signature === signature) return this.graphCache.graph;
    const resolver = await this.linkResolver(files);
    const notes = await this.listNotes(files);
    // The changelog is a log: its links name notes as they were, and would make every edited
    // note "linked from the changelog". It neither counts as a backlink nor as broken.
    const linksByPath = new Map<string, ParsedLink[]>();
    for (const note of notes) {
      if (note.problem && note.problem !== 'invalid_frontmatter') continue;
      if (isChangelogPath(this.layout, note.path)) continue;
      linksByPath.set(note.path, note.links);
    }
    const backlinks = computeBacklinks(linksByPath, resolver);
    const broken: { path: string; line: number; link: string; target: string }[] = [];
    // A session note names the proposals it sent to the inbox; once a person accepted or rejected
    // one it has left the inbox, and the link records where it was: not a broken link.
    const sessions = new Set(notes.filter((n) => n.lucidType === 'session').map((n) => n.path));
    const inboxPrefix = `${this.layout.inbox}/`;
    for (const [path, links] of linksByPath) {
      for (const link of links) {
        if (link.target === '' || isExternalTarget(link.target)) continue;
        if (sessions.has(path) && link.target.startsWith(inboxPrefix)) continue;
        if (resolver.resolve(link.target, path, link.kind) === null) broken.push({ path, line: link.line, link: link.raw, target: link.target });
      }
    }
    const graph: LinkGraph = { notes, resolver, backlinks, broken };
    this.graphCache = { signature, graph };
    return graph;
  }

  /** Where each of a note's links leads (null: broken; external links left out). */
  async resolveLinks(note: Note): Promise<{ link: ParsedLink; resolved: string | null }[]> {
    const resolver = await this.linkResolver();
    return note.links
      .filter((link) => !isExternalTarget(link.target))
      .map((link) => ({ link, resolved: link.target === '' ? note.path : resolver.resolve(link.target, note.path, link.kind) }));
  }

  /**
   * Reads many files' bytes at once (each folder opened once, several files in flight), confined to
   * the vault as {@link readFileBytes} is; `onFile` gets each file's bytes and stat, or its error.
   */
  readMany(paths: readonly string[], onFile: (path: string, result: { bytes: Buffer; stat: Stats } | Error) => void): Promise<void> {
    return readConfinedMany(this.fs, this.root, paths, onFile);
  }

  /**
   * Everything wrong with the vault: schema violations of Lucid-typed notes, notes that cannot be
   * parsed, and links that lead nowhere.
   */
  async lint(): Promise<LintReport> {
    const { notes, broken } = await this.linkGraph();
    const report: LintReport = { notes: notes.length, violations: [], unparseable: [], brokenLinks: [] };
    for (const note of notes) {
      if (note.problem) report.unparseable.push({ path: note.path, problem: note.problem, message: note.problemMessage ?? note.problem });
      else report.violations.push(...note.violations);
    }
    const unparseable = new Set(report.unparseable.map((u) => u.path));
    report.brokenLinks = broken.filter((b) => !unparseable.has(b.path));
    return report;
  }
}

/** The vault's links, resolved: backlinks by target path, and the links that lead nowhere. */
export interface LinkGraph {
  notes: Note[];
  resolver: LinkResolver;
  backlinks: Map<string, { from: string; line: number }[]>;
  broken: { path: string; line: number; link: string; target: string }[];
}

/** What `lint` found. */
export interface LintReport {
  notes: number;
  violations: Violation[];
  unparseable: { path: string; problem: NoteProblem; message: string }[];
  brokenLinks: { path: string; line: number; link: string; target: string }[];
}
