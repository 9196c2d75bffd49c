import nodePath from 'node:path';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
} from 'node:fs';
import { ioError, writeFileAtomic } from './write/atomic';
import { addChangelogLine, formatChangelogLine, oneLine } from './git/changelog';
import {
  CONFIG_FILE,
  isChangelogPath,
  systemPrefixes,
  type VaultLayout,
} from './config';
import { VaultError } from './errors';
import { hashBytes, parseFrontmatter } from './notes/frontmatter';
import { nodeFs, type VaultFs } from './fs';
import {
  assertWritableRepo,
  commitPaths,
  headBlobs,
  worktreeBlobs,
  gitConfig,
  openRepo,
  type GitIdentity,
  type GitRepo,
} from './git/repo';
import {
  cryptoIds,
  formatDate,
  newEditId,
  type Clock,
  type IdSource,
} from './ids';
import { computeBacklinks, createLinkResolver } from './notes/link-resolver';
import { isExternalTarget, type LinkResolver, type ParsedLink } from './notes/links';
import { withVaultLock, type LockOptions } from './write/lock';
import {
  isInside,
  normalizeNotePath,
  normalizeVaultPath,
  TEMP_PREFIX,
} from './notes/paths';
import { validateFrontmatter, type Violation } from './notes/schema';
import {
  SearchIndex,
  type IndexableNote,
  type SearchHit,
  type SearchOptions,
} from './search/search-index';
import { isSessionId } from './agents/sessions';
import { CommitIndex, type CommitQuery, type CommitRecord } from './git/commit-index';
import { resolveCommit, runGit } from './git/repo';
import {
  assertAgentWritable,
  buildNote,
  MAX_NOTE_BYTES,
  type Note,
  type NoteProblem,
  type VaultFile,
} from './notes/note';
import { toIndexable } from './search/indexable';
import {
  OPS,
  type EditRequest,
  type EditResult,
  type Op,
} from './write/edit-types';
import { readLayout } from './config';
/** How to open a vault: everything from outside (environment, clock, ids, file system) is passed in. */
export interface OpenVaultOptions {
  root: string;
  /** The environment git runs with (the CLI passes its own environment). */
  env: Record<string, string | undefined>;
  clock?: Clock;
  ids?: IdSource;
  fs?: VaultFs;
  /** The person's name when git has no user.name (LUCID_USER, else the OS user). */
  fallbackUser?: string;
  lock?: LockOptions;
  /** The layout to use instead of reading lucid.json (`lucid init`, before it writes lucid.json). */
  layout?: VaultLayout;
}
const ACTOR = /^(agent:[a-z0-9][a-z0-9-]{0,62}|human:[^\s\u0000-\u001f][^\u0000-\u001f]{0,99})$/;

interface CachedNote {
  size: number;
  mtimeMs: number;
  note: Note;
}

/**
 * A Lucid vault: the one place that reads, searches and writes it. Open it with {@link openVault}.
 */
export class Vault {
  readonly root: string;
  readonly repo: GitRepo;
  readonly layout: VaultLayout;
  readonly clock: Clock;
  readonly ids: IdSource;
  private readonly fs: VaultFs;
  private readonly personName: string;
  private readonly personEmail: string;
  private readonly lockOptions: LockOptions;
  private readonly notes = new Map<string, CachedNote>();
  private searchIndex: SearchIndex | null = null;
  private commitIndex: CommitIndex | null = null;
  private lastSync = 0;
  private resolverCache: { key: string; resolver: LinkResolver } | null = null;
  private graphCache: { signature: string; graph: LinkGraph } | null = null;

  constructor(init: {
    root: string;
    repo: GitRepo;
    layout: VaultLayout;
    clock: Clock;
    ids: IdSource;
    fs: VaultFs;
    personName: string;
    personEmail: string;
    lockOptions: LockOptions;
  }) {
    this.root = init.root;
    this.repo = init.repo;
    this.layout = init.layout;
    this.clock = init.clock;
    this.ids = init.ids;
    this.fs = init.fs;
    this.personName = init.personName;
    this.personEmail = init.personEmail;
    this.lockOptions = init.lockOptions;
  }

  /** The actor string for the person at this vault: `human:<git user.name>`. */
  get person(): string {
    return `human:${this.personName}`;
  }

  /** `.lucid/` (local state, git-ignored), created on demand. */
  stateDir(): string {
    const dir = nodePath.join(this.root, '.lucid');
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    return dir;
  }

  /** Every file of the vault except git's, Lucid's state, dot-folders and temp files. */
  async listFiles(): Promise<VaultFile[]> {
    const out: VaultFile[] = [];
    const walk = async (dir: string, prefix: string) => {
      let entries;
      try {
        entries = await this.fs.readdir(dir);
      } catch (error) {
        if (prefix === '') throw ioError(error, 'read the vault folder');
        return;
      }
      const subdirs: Promise<void>[] = [];
      const stats: Promise<void>[] = [];
      for (const entry of entries) {
        const name = entry.name;
        if (name.startsWith('.')) continue;
        const rel = prefix ? `${prefix}/${name}` : name;
        const abs = nodePath.join(dir, name);
        if (entry.isDirectory()) {
          if (name !== 'node_modules') subdirs.push(walk(abs, rel));
        } else if (entry.isFile() || entry.isSymbolicLink()) {
          stats.push(
            (async () => {
              try {
                const stat = await this.fs.stat(abs);
                if (!stat.isFile()) return;
                if (entry.isSymbolicLink() && !isInside(this.root, await this.fs.realpath(abs))) return;
                out.push({ path: rel, size: stat.size, mtimeMs: stat.mtimeMs });
              } catch {
                // a dangling link or a file removed meanwhile
              }
            })(),
          );
        }
      }
      await Promise.all([...stats, ...subdirs]);
    };
    await walk(this.root, '');
    out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return out;
  }

  /** Removes Lucid temp files left behind by a crash (older than a minute). */
  async sweepTempFiles(): Promise<string[]> {
    const removed: string[] = [];
    const now = Date.now();
    const walk = async (dir: string, prefix: string) => {
      for (const entry of await this.fs.readdir(dir).catch(() => [])) {
        const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
        const abs = nodePath.join(dir, entry.name);
        if (entry.isDirectory() && !entry.name.startsWith('.')) await walk(abs, rel);
        else if (entry.isFile() && entry.name.startsWith(TEMP_PREFIX)) {
          const stat = await this.fs.lstat(abs).catch(() => null);
          if (stat && now - stat.mtimeMs > 60_000) {
            await this.fs.unlink(abs).catch(() => undefined);
            removed.push(rel);
          }
        }
      }
    };
    await walk(this.root, '');
    return removed;
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

  /** The absolute path of a vault path for writing: no component may be a symbolic link. */
  async resolveForWrite(path: string): Promise<string> {
    const segments = path.split('/');
    let current = this.root;
    for (let i = 0; i < segments.length; i += 1) {
      current = nodePath.join(current, segments[i]);
      let stat;
      try {
        stat = await this.fs.lstat(current);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT') break;
        if (code === 'ENOTDIR') throw new VaultError('invalid_path', `A part of ${path} is a file, not a folder.`);
        throw ioError(error, `check ${path}`);
      }
      if (stat.isSymbolicLink()) {
        throw new VaultError('forbidden', `${path} goes through a symbolic link; Lucid only writes real files inside the vault.`);
      }
      const last = i === segments.length - 1;
      if (!last && !stat.isDirectory()) throw new VaultError('invalid_path', `A part of ${path} is a file, not a folder.`);
      if (last && !stat.isFile()) throw new VaultError('invalid_path', `${path} is not a regular file.`);
    }
    return nodePath.join(this.root, path);
  }

  /** The raw bytes of a vault file (attachments included), confined to the vault. */
  async readFileBytes(path: string): Promise<Buffer> {
    const rel = normalizeVaultPath(path);
    const abs = await this.resolveForRead(rel);
    try {
      return await this.fs.readFile(abs);
    } catch (error) {
      throw ioError(error, `read ${rel}`);
    }
  }

  /**
   * Reads a note. Bad front matter, binary bytes and invalid UTF-8 are reported on the note
   * (`problem`), never thrown; a missing file is `not_found`.
   */
  async readNote(path: string): Promise<Note> {
    const rel = normalizeNotePath(path);
    const abs = await this.resolveForRead(rel);
    let stat;
    try {
      stat = await this.fs.stat(abs);
    } catch (error) {
      throw ioError(error, `read ${rel}`);
    }
    let bytes: Buffer;
    try {
      bytes = await this.fs.readFile(abs);
    } catch (error) {
      throw ioError(error, `read ${rel}`);
    }
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
    for (const [path, links] of linksByPath) {
      for (const link of links) {
        if (link.target === '' || isExternalTarget(link.target)) continue;
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

  /** Opens (and keeps open) the search index in `.lucid/`. */
  private index(): SearchIndex {
    if (!this.searchIndex) this.searchIndex = SearchIndex.open(nodePath.join(this.stateDir(), 'search.sqlite'));
    return this.searchIndex;
  }

  /** Brings the search index up to date with the files on disk (notices edits made outside Lucid). */
  async syncSearch(): Promise<{ added: number; updated: number; removed: number; unchanged: number }> {
    const all = await this.listFiles();
    const files = all.filter((f) => f.path.toLowerCase().endsWith('.md'));
    const resolver = await this.linkResolver(all);
    const index = this.index();
    // Read what changed first (async), then apply everything in the index's one transaction.
    const loaded = new Map<string, IndexableNote | null>();
    for (const stamp of index.staleStamps(files)) {
      const note = await this.readNote(stamp.path).catch(() => null);
      loaded.set(stamp.path, note ? toIndexable(note, resolver) : null);
    }
    const result = index.sync(files, (path) => loaded.get(path) ?? null);
    this.lastSync = Date.now();
    return result;
  }

  /**
   * Searches notes for a question written as people and agents write it (BM25, stemming, title,
   * aliases, headings and tags above body text). The changelog, inbox and evaluations are left out
   * unless `includeSystem`.
   */
  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    if (Date.now() - this.lastSync > 1000) await this.syncSearch();
    return this.index().search(query, { systemPrefixes: systemPrefixes(this.layout), ...options });
  }

  /** Closes the indexes (tests and short-lived CLI runs). */
  close(): void {
    this.searchIndex?.close();
    this.searchIndex = null;
    this.commitIndex?.close();
    this.commitIndex = null;
  }

  /** The commit index, brought up to date with HEAD. */
  async commits(): Promise<CommitIndex> {
    if (!this.commitIndex) this.commitIndex = CommitIndex.open(nodePath.join(this.stateDir(), 'commits.sqlite'), this.repo);
    await this.commitIndex.update();
    return this.commitIndex;
  }

  /** The vault's history, newest first, from the commit index. */
  async log(query: CommitQuery = {}): Promise<(CommitRecord & { seq: number })[]> {
    return (await this.commits()).list(query);
  }

  /** A file's history, newest first, following renames. */
  async history(path: string, limit = 200): Promise<(CommitRecord & { seq: number })[]> {
    return (await this.commits()).historyOf(normalizeVaultPath(path), limit);
  }

  /** The patch of one commit (renames detected), cut at `maxBytes`. */
  async commitDiff(sha: string, options: { path?: string; maxBytes?: number } = {}): Promise<{ sha: string; patch: string; truncated: boolean }> {
    const commit = await resolveCommit(this.repo, sha);
    // Pathspecs are relative to the vault folder, where git runs, even when it is inside a larger repository.
    const paths = options.path ? ['--', `:(literal)${normalizeVaultPath(options.path)}`] : ['--'];
    const patch = await runGit(this.repo, ['-c', 'core.quotePath=false', 'show', '--format=', '-M', '--patch', '--no-color', '--no-ext-diff', commit, ...paths]);
    const max = options.maxBytes ?? 1024 * 1024;
    return { sha: commit, patch: patch.length > max ? patch.slice(0, max) : patch, truncated: patch.length > max };
  }

  /**
   * The write path: one edit is one commit holding the changed notes and their changelog line,
   * and nothing else. Under the vault lock: the repository state is checked, each file's hash is
   * compared with `expectedHash` (a mismatch is a `conflict`), new text is validated against its
   * type's schema, a person's uncommitted version of any touched file is first committed as
   * theirs, the files are written atomically, and the commit is made through a temporary index.
   * If anything fails, every file is put back as it was.
   */
  async edit(request: EditRequest): Promise<EditResult> {
    if (!ACTOR.test(request.actor)) {
      throw new VaultError('invalid_input', 'The actor must be agent:<slug> (a-z, 0-9, -) or human:<name>.');
    }
    if (!(OPS as readonly string[]).includes(request.op)) throw new VaultError('invalid_input', `Unknown operation ${request.op}.`);
    if (request.session !== undefined && !isSessionId(request.session)) {
      throw new VaultError('invalid_input', 'The session id must look like 20261130-140112-claude-code-k3tq.');
    }
    if (request.changes.length === 0) throw new VaultError('invalid_input', 'An edit must change at least one file.');
    const reason = oneLine(request.reason ?? '');
    const subjectPath = normalizeVaultPath(request.path);
    const changes = request.changes.map((change) => ({ ...change, path: normalizeVaultPath(change.path, { forWrite: true }) }));
    for (const change of changes) {
      if (isChangelogPath(this.layout, change.path)) {
        throw new VaultError('forbidden', 'The changelog is written by Lucid itself, one line per edit.');
      }
      if (change.path === CONFIG_FILE && request.op !== 'init') throw new VaultError('forbidden', 'lucid.json is written by lucid init.');
    }
    const trailers = (request.trailers ?? []).map(([k, v]) => [k, oneLine(v)] as [string, string]);

    return withVaultLock(
      nodePath.join(this.stateDir(), 'vault'),
      async (assertHeld) => {
        await assertWritableRepo(this.repo);
        const prepared: { path: string; abs: string; bytes: Uint8Array | null; mode?: number }[] = [];
        for (const change of changes) {
          const abs = await this.resolveForWrite(change.path);
          const current = await this.readCurrent(abs);
          if (change.expectedHash !== undefined) {
            const currentHash = current ? hashBytes(current.bytes) : null;
            if (change.expectedHash === null && currentHash !== null) {
              throw new VaultError('conflict', `${change.path} already exists.`, { path: change.path, currentHash });
            }
            if (change.expectedHash !== null && currentHash !== change.expectedHash) {
              throw new VaultError(
                'conflict',
                currentHash === null
                  ? `${change.path} was deleted since you read it.`
                  : `${change.path} changed since you read it (expected hash ${change.expectedHash.slice(0, 12)}…, now ${currentHash.slice(0, 12)}…). Read it again and redo the change.`,
                { path: change.path, currentHash },
              );
            }
          }
          const isAgentNote = Boolean(current) && change.path.toLowerCase().endsWith('.md') && !request.actor.startsWith('human:');
          const existing = current && (isAgentNote || typeof change.content === 'function') ? buildNote(change.path, current.bytes, 0) : null;
          if (existing && isAgentNote) assertAgentWritable(existing);
          const content = typeof change.content === 'function' ? change.content(existing) : change.content;
          let bytes: Uint8Array | null = null;
          if (content !== null) {
            if (typeof content !== 'string') throw new VaultError('invalid_input', 'Content must be text.');
            bytes = Buffer.from(content, 'utf8');
            if (bytes.length > MAX_NOTE_BYTES) throw new VaultError('too_large', `${change.path} would be larger than ${MAX_NOTE_BYTES / 1024 / 1024} MiB.`);
            if (change.path.toLowerCase().endsWith('.md') && !request.skipValidation) this.validateText(change.path, content);
          } else if (!current) {
            throw new VaultError('not_found', `No file ${change.path} to delete.`);
          }
          prepared.push({ path: change.path, abs, bytes, mode: current?.mode });
        }

        const dirty = await this.uncommittedPaths([...prepared.map((p) => p.path), this.layout.changelog]);
        let savedPersonCommit: string | null = null;
        if (dirty.length > 0) {
          const main = dirty.find((p) => p !== this.layout.changelog) ?? dirty[0];
          const { commit } = await this.commitLocked({
            actor: this.person,
            op: 'update',
            path: main,
            reason: `saved ${this.personName}'s uncommitted edit before ${request.actor}'s ${request.op}`,
            writes: [],
            alsoCommit: dirty,
            trailers: [],
            assertHeld,
          });
          savedPersonCommit = commit;
        }
        const { editId, commit } = await this.commitLocked({
          actor: request.actor,
          op: request.op,
          path: subjectPath,
          reason,
          session: request.session,
          writes: prepared,
          alsoCommit: [],
          trailers,
          assertHeld,
        });
        const hashes: Record<string, string | null> = {};
        for (const p of prepared) hashes[p.path] = p.bytes ? hashBytes(p.bytes) : null;
        return { editId, commit, hashes, savedPersonCommit };
      },
      this.lockOptions,
    );
  }

  /** Those of `paths` whose bytes on disk differ from HEAD (a person's uncommitted work). */
  private async uncommittedPaths(paths: string[]): Promise<string[]> {
    const unique = [...new Set(paths)];
    const committed = await headBlobs(this.repo, unique);
    const present = unique.filter((path) => existsSync(nodePath.join(this.root, path)));
    // Hashed by git itself, so line-ending filters (autocrlf, text=auto) count as no change.
    const onDisk = await worktreeBlobs(this.repo, present);
    return unique.filter((path) => (onDisk.get(path) ?? null) !== (committed.get(path) ?? null));
  }

  /** Validates a note's new text: its front matter must parse and fit its type's rules. */
  validateText(path: string, text: string): void {
    const parsed = parseFrontmatter(text.replace(/^\uFEFF/, ''));
    if (!parsed.ok) throw new VaultError('invalid_frontmatter', `${path}: ${parsed.error}`, { path });
    const violations = validateFrontmatter(path, parsed.data);
    if (violations.length > 0) {
      throw new VaultError('schema_violation', `${path} breaks the ${String(parsed.data.type)} rules: ${violations.map((v) => v.message).join('; ')}.`, { violations });
    }
  }

  private async readCurrent(abs: string): Promise<{ bytes: Buffer; mode: number } | null> {
    try {
      const stat = await this.fs.lstat(abs);
      return { bytes: await this.fs.readFile(abs), mode: stat.mode & 0o777 };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw ioError(error, 'read the current file');
    }
  }

  /** Writes files and the changelog, commits them with the trailers; restores everything on failure. */
  private async commitLocked(input: {
    actor: string;
    op: Op;
    path: string;
    reason: string;
    session?: string;
    writes: { path: string; abs: string; bytes: Uint8Array | null; mode?: number }[];
    alsoCommit: string[];
    trailers: [string, string][];
    assertHeld: () => void;
  }): Promise<{ editId: string; commit: string }> {
    const editId = newEditId(this.ids);
    const now = this.clock();
    const month = formatDate(now).slice(0, 7);
    const changelogAbs = await this.resolveForWrite(this.layout.changelog);
    const currentChangelog = await this.readCurrent(changelogAbs);
    const line = formatChangelogLine({
      date: now,
      actor: input.actor,
      op: input.op,
      path: input.path,
      reason: input.reason,
      session: input.session,
      sessionsFolder: this.layout.sessions,
      editId,
    });
    const rotated = addChangelogLine(currentChangelog ? currentChangelog.bytes.toString('utf8') : null, line, month, (m) => {
      const path = `${this.layout.changelogArchive}/${m}.md`;
      const abs = nodePath.join(this.root, path);
      return existsSync(abs) ? readFileSync(abs, 'utf8') : null;
    });
    const writes = [...input.writes];
    writes.push({ path: this.layout.changelog, abs: changelogAbs, bytes: Buffer.from(rotated.changelog, 'utf8'), mode: currentChangelog?.mode });
    for (const [m, text] of rotated.archives) {
      const path = `${this.layout.changelogArchive}/${m}.md`;
      writes.push({ path, abs: await this.resolveForWrite(path), bytes: Buffer.from(text, 'utf8') });
    }

    const backups: { abs: string; before: { bytes: Buffer; mode: number } | null }[] = [];
    const message = this.commitMessage(input.op, input.path, input.reason, input.actor, editId, input.session, input.trailers);
    try {
      for (const write of writes) {
        backups.push({ abs: write.abs, before: await this.readCurrent(write.abs) });
        if (write.bytes === null) {
          try {
            await this.fs.unlink(write.abs);
            await this.fs.fsyncDir(nodePath.dirname(write.abs));
          } catch (error) {
            throw ioError(error, `delete ${write.path}`);
          }
        } else {
          const dir = nodePath.dirname(write.abs);
          await this.ensureDir(dir);
          await writeFileAtomic(this.fs, write.abs, write.bytes, { ids: this.ids, expectedDir: dir, mode: write.mode });
        }
      }
      input.assertHeld();
      const commit = await commitPaths(this.repo, {
        paths: [...new Set([...writes.map((w) => w.path), ...input.alsoCommit])],
        message,
        author: this.identityOf(input.actor),
        committer: { name: this.personName, email: this.personEmail },
        date: now,
        indexFile: nodePath.join(this.stateDir(), `index-${this.ids.base32(8)}`),
      }).finally(() => this.removeTempIndexes());
      for (const write of writes) this.afterWrite(write.path);
      return { editId, commit };
    } catch (error) {
      for (const backup of backups.reverse()) {
        try {
          if (backup.before) {
            await writeFileAtomic(this.fs, backup.abs, backup.before.bytes, { ids: this.ids, expectedDir: nodePath.dirname(backup.abs), mode: backup.before.mode });
          } else {
            await this.fs.unlink(backup.abs).catch(() => undefined);
          }
        } catch {
          // best effort: the original error is what the caller needs
        }
      }
      throw error;
    }
  }

  private async removeTempIndexes(): Promise<void> {
    const dir = this.stateDir();
    for (const entry of await this.fs.readdir(dir).catch(() => [])) {
      if (entry.name.startsWith('index-')) await this.fs.unlink(nodePath.join(dir, entry.name)).catch(() => undefined);
    }
  }

  private async ensureDir(dir: string): Promise<void> {
    const rel = nodePath.relative(this.root, dir);
    if (rel === '') return;
    try {
      await this.fs.mkdir(dir);
    } catch (error) {
      throw ioError(error, `create the folder ${rel}`);
    }
    const real = await this.fs.realpath(dir);
    if (real !== dir) throw new VaultError('forbidden', `The folder ${rel} is a link; Lucid only writes real files inside the vault.`);
  }

  private afterWrite(path: string): void {
    this.notes.delete(path);
    this.resolverCache = null;
    this.lastSync = 0;
  }

  private identityOf(actor: string): GitIdentity {
    if (actor === this.person) return { name: this.personName, email: this.personEmail };
    if (actor.startsWith('human:')) return { name: actor.slice(6), email: 'person@lucid.invalid' };
    return { name: actor, email: `${actor.slice(6)}@agents.lucid.invalid` };
  }

  private commitMessage(op: Op, path: string, reason: string, actor: string, editId: string, session: string | undefined, extra: [string, string][]): string {
    const trailers: [string, string][] = [
      ['Lucid-Actor', actor],
      ['Lucid-Op', op],
      ['Lucid-Edit', editId],
    ];
    if (session) trailers.push(['Lucid-Session', session]);
    trailers.push(...extra);
    return `${op} ${oneLine(path, 200)}\n\n${reason || `${op} by ${actor}`}\n\n${trailers.map(([k, v]) => `${k}: ${v}`).join('\n')}\n`;
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
/**
 * Opens a vault: canonicalizes the root, finds its git repository (`not_a_repo` with what to do
 * when there is none), reads `lucid.json`, and learns the person's name from git.
 */
export async function openVault(options: OpenVaultOptions): Promise<Vault> {
  const fs = options.fs ?? nodeFs;
  let root: string;
  try {
    root = await fs.realpath(nodePath.resolve(options.root));
    if (!(await fs.stat(root)).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new VaultError('not_found', `The vault folder ${options.root} does not exist. Create it with \`lucid init ${options.root}\`.`);
    throw new VaultError('invalid_path', `${options.root} is not a folder.`);
  }
  const repo = await openRepo(root, options.env);
  const layout = options.layout ?? readLayout(root);
  const name = (await gitConfig(repo, 'user.name')) ?? options.fallbackUser ?? 'unknown';
  const email = (await gitConfig(repo, 'user.email')) ?? `${name.replace(/[^A-Za-z0-9._-]+/g, '.')}@localhost`;
  excludeStateDir(repo);
  return new Vault({
    root,
    repo,
    layout,
    clock: options.clock ?? (() => new Date()),
    ids: options.ids ?? cryptoIds,
    fs,
    personName: oneLine(name, 100) || 'unknown',
    personEmail: email,
    lockOptions: options.lock ?? {},
  });
}
/** Keeps `.lucid/` out of git even in vaults whose .gitignore does not list it (local exclude). */
function excludeStateDir(repo: GitRepo): void {
  try {
    const exclude = nodePath.join(repo.gitDir, 'info', 'exclude');
    const line = `/${repo.prefix}.lucid/`;
    const current = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
    if (current.split('\n').some((l) => l.trim() === line)) return;
    mkdirSync(nodePath.dirname(exclude), { recursive: true });
    appendFileSync(exclude, `${current && !current.endsWith('\n') ? '\n' : ''}${line}\n/${repo.prefix}**/${TEMP_PREFIX}*\n`);
  } catch {
    // a read-only .git: nothing to do
  }
}
