import 'server-only';
import path from 'node:path';
import {
  type CommitRecord,
  dayRange,
  foldersOfType,
  countInbox,
  type InboxFilter,
  type InboxItem,
  type InboxItemDetail,
  isChangelogPath,
  isVaultError,
  listInbox,
  parseFrontmatter,
  parseLinks,
  showInboxItem,
  type LinkKind,
  type LintReport,
  listUncommitted,
  type Note,
  type NoteType,
  normalizeNotePath,
  normalizeVaultPath,
  NOTE_TYPES,
  type Op,
  OPS,
  planRevert,
  type RevertPlan,
  type UncommittedFile,
  type VaultLayout,
} from '@/lib/vault';
import { getVault } from './vault';

// Every read a page makes, in one place (as next-learn's app/lib/data.ts): pages call these,
// components receive what they return as props, and nothing else in app/ or components/ touches the vault.

/** Longest note body the note page renders as Markdown; longer ones are shown as plain text, cut. */
export const RENDER_LIMIT = 400_000;

/** The search page's folder filter: every note folder one and two levels deep, sorted. */
export async function fetchSearchFolders(): Promise<string[]> {
  const folders = new Set<string>();
  for (const file of await (await getVault()).listFiles()) {
    if (!file.path.toLowerCase().endsWith('.md')) continue;
    const parts = file.path.split('/').slice(0, -1);
    for (let i = 1; i <= Math.min(parts.length, 2); i += 1) folders.add(parts.slice(0, i).join('/'));
  }
  return [...folders].sort();
}

/** The health page: the same report as `lucid lint`. */
export async function fetchHealthReport(): Promise<LintReport> {
  return (await getVault()).lint();
}

/** What the note page shows: the note, its link resolver and the bodies of the notes it embeds. */
export interface NoteView {
  note: Note;
  /** The vault folder's name, for the "Open in Obsidian" link. */
  vaultName: string;
  resolve: (target: string, fromPath: string, kind?: LinkKind) => string | null;
  /** Body (cut at RENDER_LIMIT) of each note embedded with `![[…]]`, by vault path. */
  embeds: Map<string, string>;
}

/** The note at the URL's path segments, or null when there is none to show (missing, outside the vault, refused). */
export async function fetchNote(segments: string[]): Promise<NoteView | null> {
  const vault = await getVault();
  let note: Note;
  try {
    note = await vault.readNote(normalizeNotePath(segments.map(safeDecode).join('/')));
  } catch (error) {
    if (isVaultError(error, 'not_found') || isVaultError(error, 'invalid_path') || isVaultError(error, 'forbidden')) return null;
    throw error;
  }
  const resolver = await vault.linkResolver();
  const resolve = (target: string, fromPath: string, kind?: LinkKind) => resolver.resolve(target, fromPath, kind);
  const embeds = new Map<string, string>();
  for (const link of note.links) {
    if (!link.embed) continue;
    const target = link.target === '' ? note.path : resolve(link.target, note.path, link.kind);
    if (target?.toLowerCase().endsWith('.md') && target !== note.path && !embeds.has(target)) {
      const embedded = await vault.readNote(target).catch(() => null);
      if (embedded && embedded.text !== null) embeds.set(target, embedded.body.slice(0, RENDER_LIMIT));
    }
  }
  return { note, vaultName: path.basename(vault.root), resolve, embeds };
}

/** One note that links to another, with how many links it has there. */
export interface Backlink {
  from: string;
  count: number;
}

/** The notes that link to `notePath` (computed, never stored), one entry per linking note. */
export async function fetchBacklinks(notePath: string): Promise<Backlink[]> {
  const byNote = new Map<string, number>();
  for (const b of await (await getVault()).backlinks(notePath)) byNote.set(b.from, (byNote.get(b.from) ?? 0) + 1);
  return [...byNote].map(([from, count]) => ({ from, count }));
}

/** A note's last 50 commits, newest first (from the commit index, following renames). */
export async function fetchNoteHistory(notePath: string): Promise<CommitRecord[]> {
  return (await getVault()).history(notePath, 50);
}

const FILE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  bmp: 'image/bmp',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

/** A vault file for the attachments route: its bytes, name and content type (undefined: not shown inline), or why not. */
export type VaultFileResult = { ok: true; bytes: Buffer; name: string; type: string | undefined } | { ok: false; status: number; message: string };

/** The vault file at the URL's path segments, confined to the vault. */
export async function fetchVaultFile(segments: string[]): Promise<VaultFileResult> {
  try {
    const rel = normalizeVaultPath(segments.join('/'));
    const bytes = await (await getVault()).readFileBytes(rel);
    return { ok: true, bytes, name: rel.slice(rel.lastIndexOf('/') + 1), type: FILE_TYPES[rel.slice(rel.lastIndexOf('.') + 1).toLowerCase()] };
  } catch (error) {
    if (!isVaultError(error)) throw error;
    const status = error.code === 'not_found' ? 404 : error.code === 'forbidden' || error.code === 'invalid_path' ? 403 : 500;
    return { ok: false, status, message: error.message };
  }
}

export function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

// ---------------------------------------------------------------------------------------------
// Inbox

/** One queued item as the queue shows it: no proposal or explanation, since the queue is polled. */
export type InboxRowView = Pick<
  InboxItem,
  'id' | 'path' | 'proposedBy' | 'session' | 'action' | 'target' | 'reason' | 'confidence' | 'flag' | 'created' | 'problem'
>;

/** The inbox page's queue, filtered, with the total and the choices its filters offer. */
export interface InboxListView {
  items: InboxRowView[];
  total: number;
  agents: string[];
  flags: string[];
}

/** The queue, oldest first; the filters' choices come from the whole inbox, not only the filtered part. */
export async function fetchInboxList(filter: InboxFilter): Promise<InboxListView> {
  const vault = await getVault();
  const all = await listInbox(vault);
  const filtered = filter.agent || filter.flag || filter.action ? await listInbox(vault, filter) : all;
  const items = filtered.map(
    (i): InboxRowView => ({
      id: i.id,
      path: i.path,
      proposedBy: i.proposedBy,
      session: i.session,
      action: i.action,
      target: i.target,
      reason: i.reason,
      confidence: i.confidence,
      flag: i.flag,
      created: i.created,
      problem: i.problem,
    }),
  );
  const distinct = (values: (string | null)[]) => [...new Set(values.filter((v): v is string => Boolean(v)))].sort();
  return { items, total: all.length, agents: distinct(all.map((i) => i.proposedBy)), flags: distinct(all.map((i) => i.flag)) };
}

/** How many items wait in the inbox, for the navigation; null when the vault cannot say (the page still renders). */
export async function fetchInboxCount(): Promise<number | null> {
  try {
    return await countInbox(await getVault());
  } catch (error) {
    if (isVaultError(error)) return null;
    throw error;
  }
}

/** A vault link as the inbox page resolved it on the server: from which note, of what kind, to where. */
export type ResolvedLink = [from: string, kind: LinkKind, target: string, path: string];

/** An inbox item with what accepting it would change, the new note's parts for a preview, and its links resolved. */
export interface InboxItemView extends InboxItemDetail {
  /** For a create: the proposed note's front matter (null when it does not parse) and body (cut at RENDER_LIMIT). */
  preview: { frontmatter: Record<string, unknown> | null; body: string } | null;
  /** The links of the explanation and the preview that resolve to a vault file. */
  links: ResolvedLink[];
}

/** One inbox item for the page; VaultError not_found when it is gone. */
export async function fetchInboxItem(id: string): Promise<InboxItemView> {
  const vault = await getVault();
  const item = await showInboxItem(vault, id);
  const resolver = await vault.linkResolver();
  const links: ResolvedLink[] = [];
  const collect = (from: string, body: string, frontmatter?: Record<string, unknown>) => {
    for (const link of parseLinks(body, frontmatter)) {
      if (link.target === '') continue;
      const to = resolver.resolve(link.target, from, link.kind);
      if (to) links.push([from, link.kind, link.target, to]);
    }
  };
  collect(item.path, item.explanation);
  let preview: InboxItemView['preview'] = null;
  const proposed = item.result ?? item.proposal;
  if (item.action === 'create' && proposed !== null) {
    const parsed = parseFrontmatter(proposed);
    const body = parsed.parts.body.slice(0, RENDER_LIMIT);
    preview = { frontmatter: parsed.ok ? parsed.data : null, body };
    collect(item.target, body, parsed.ok ? parsed.data : undefined);
  }
  return { ...item, preview, links };
}

// ---- The changelog page and uncommitted work ----

/** How many edits one changelog page shows. */
const CHANGELOG_PAGE_SIZE = 30;
/** Longest patch the changelog sends to the browser; a longer one shows "too big" (catalog #45 a). */
export const CHANGELOG_MAX_PATCH = 512 * 1024;

/** The changelog page's filters, as the URL carries them (validated by the caller). */
export interface ChangelogFilters {
  /** An actor (`agent:…`, `human:…`), or `foreign` for the commits Lucid did not make. */
  actor?: string;
  op?: Op;
  type?: NoteType;
  /** YYYY-MM-DD (the server's time zone), both ends inclusive. */
  since?: string;
  until?: string;
  /** Show the edits older than this sequence number (the Older link's cursor). */
  before?: number;
  /** Only the commits made on this machine (`Lucid-Machine`) / at this person's vault (the committer). */
  machine?: string;
  person?: string;
}

/** One edit (or a commit Lucid did not make) as the changelog page shows it. */
export interface ChangelogEntry {
  seq: number;
  sha: string;
  /** Seconds since the epoch (author time). */
  time: number;
  /** `Lucid-Actor`; null for a commit Lucid did not make. */
  actor: string | null;
  /** The git author, shown for a commit Lucid did not make. */
  author: string;
  /** Where it was made (`Lucid-Machine`, null when the commit does not say) and at whose vault (the committer); absent on entries built elsewhere (a skill's versions). */
  machine?: string | null;
  person?: string;
  op: string | null;
  editId: string | null;
  session: string | null;
  subject: string;
  reason: string;
  /** The notes and files it changed, the changelog left out. */
  paths: string[];
  foreign: boolean;
  /** Why this commit can never be reverted (a merge, Lucid's install, the changelog only), or null. */
  refused: string | null;
}

/** One page of the changelog: newest first, with the cursors of the pages beside it. */
export interface ChangelogPage {
  entries: ChangelogEntry[];
  /** The `before` of the next older page, or null when this is the oldest. */
  older: number | null;
  /** The newer page: `{ before: null }` is the first page; null when this is the first page. */
  newer: { before: number | null } | null;
  /** Every actor that has made an edit, for the filter. */
  actors: string[];
  /** The machines and people the history names (bounded), for the filters. */
  machines: string[];
  persons: string[];
}

/** One page of the vault's history through the commit index (never a walk of the whole history). */
export async function fetchChangelogPage(filters: ChangelogFilters): Promise<ChangelogPage> {
  const vault = await getVault();
  // One index, brought up to date once: each `vault.log` and `vault.commits()` asks git for HEAD again.
  const index = await vault.commits();
  const query = {
    ...(filters.actor === 'foreign' ? { foreign: true } : filters.actor ? { actor: filters.actor } : {}),
    op: filters.op,
    ...(filters.type ? { folders: foldersOfType(vault.layout, filters.type) } : {}),
    since: filters.since ? dayBounds(filters.since).since : undefined,
    until: filters.until ? dayBounds(filters.until).until - 1 : undefined,
    machine: filters.machine,
    person: filters.person,
  };
  const rows = index.list({ ...query, beforeSeq: filters.before, limit: CHANGELOG_PAGE_SIZE + 1 });
  const page = rows.slice(0, CHANGELOG_PAGE_SIZE);
  let newer: ChangelogPage['newer'] = null;
  if (filters.before !== undefined) {
    const ahead = index.list({ ...query, afterSeq: filters.before - 1, oldestFirst: true, limit: CHANGELOG_PAGE_SIZE + 1 });
    if (ahead.length > 0) newer = { before: ahead.length > CHANGELOG_PAGE_SIZE ? ahead[CHANGELOG_PAGE_SIZE].seq : null };
  }
  return {
    entries: page.map((c) => changelogEntry(vault.layout, c)),
    older: rows.length > CHANGELOG_PAGE_SIZE ? page[page.length - 1].seq : null,
    newer,
    actors: index.actors(),
    ...index.origins(),
  };
}

/** A commit as the changelog (and a session's page) shows it. */
export function changelogEntry(layout: VaultLayout, c: CommitRecord & { seq: number }): ChangelogEntry {
  const paths = c.paths.map((p) => p.path).filter((p) => !isChangelogPath(layout, p));
  // The refusals a commit's record already shows, in the words planRevert uses; the rest come with the plan.
  let refused: string | null = null;
  if (c.parents > 1) refused = 'It is a merge commit: revert the commits it brought in one by one instead.';
  else if (c.op === 'init') refused = "It is Lucid's init commit, which installed Lucid in this vault; it cannot be reverted.";
  else if (paths.length === 0 && c.paths.length > 0) refused = 'It only touched the changelog, which is never reverted (each edit keeps its line).';
  else if (paths.length === 0) refused = 'It changed no files.';
  return {
    seq: c.seq,
    sha: c.sha,
    time: c.time,
    actor: c.actor,
    author: c.author,
    machine: c.machine,
    person: c.person,
    op: c.op,
    editId: c.editId,
    session: c.session,
    subject: c.subject,
    reason: c.reason,
    paths,
    foreign: c.actor === null,
    refused,
  };
}

/** A YYYY-MM-DD day in the server's time zone (the overview's days), as seconds: its start and the next day's start. */
export function dayBounds(day: string): { since: number; until: number } {
  const range = dayRange(day, day);
  return { since: Math.floor(range.since / 1000), until: Math.floor(range.until / 1000) };
}

/** One commit's patch, or `tooBig` past {@link CHANGELOG_MAX_PATCH} (the page then says so instead of hanging). */
export async function fetchCommitDiff(sha: string): Promise<{ sha: string; patch: string; tooBig: boolean }> {
  const diff = await (await getVault()).commitDiff(sha, { maxBytes: CHANGELOG_MAX_PATCH });
  return { sha: diff.sha, patch: diff.truncated ? '' : diff.patch, tooBig: diff.truncated };
}

/** The dry run of a revert, its patch left out when too big to draw. */
export async function fetchRevertPlan(ref: string): Promise<RevertPlan & { tooBig: boolean }> {
  const plan = await planRevert(await getVault(), ref);
  const tooBig = plan.patch.length > CHANGELOG_MAX_PATCH;
  return { ...plan, patch: tooBig ? '' : plan.patch, tooBig };
}

/** A file nobody committed, its diff left out when too big to draw. */
export type UncommittedView = UncommittedFile & { tooBig: boolean };

/** The vault's uncommitted files and the person a commit of them is made as. */
export async function fetchUncommitted(): Promise<{ person: string; files: UncommittedView[] }> {
  const vault = await getVault();
  const files = await listUncommitted(vault);
  return {
    person: vault.person,
    // listUncommitted cuts a diff at about this size: a cut diff is shown as too big, never half drawn.
    files: files.map((f) => (f.diff.length >= CHANGELOG_MAX_PATCH - 1024 ? { ...f, diff: '', tooBig: true } : { ...f, tooBig: false })),
  };
}

/** The values the changelog's op and type filters offer. */
export function changelogChoices(): { ops: string[]; types: string[] } {
  return { ops: [...OPS], types: [...NOTE_TYPES] };
}

/** Readers of a page's URL filters: one non-empty value of `key`, and a well-formed YYYY-MM-DD. */
export function urlFilterReaders(params: Record<string, string | string[] | undefined>) {
  return {
    one(key: string): string | undefined {
      const value = params[key];
      return typeof value === 'string' && value !== '' ? value : undefined;
    },
    day(value: string | undefined): string | undefined {
      return value && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value)) ? value : undefined;
    },
  };
}

/** The changelog's filters from the URL; a value that is not one of the choices is left out, never passed on. */
export function parseChangelogFilters(params: Record<string, string | string[] | undefined>): ChangelogFilters {
  const { one, day } = urlFilterReaders(params);
  const actor = one('actor');
  const op = one('op');
  const type = one('type');
  const before = Number(one('before'));
  const since = day(one('since'));
  const until = day(one('until'));
  // Only the filters that are set: the query key and the URL then agree however the page was reached.
  return {
    ...(actor && actor.length <= 200 ? { actor } : {}),
    ...((OPS as readonly string[]).includes(op ?? '') ? { op: op as Op } : {}),
    ...((NOTE_TYPES as readonly string[]).includes(type ?? '') ? { type: type as NoteType } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
    ...(Number.isSafeInteger(before) && before > 0 ? { before } : {}),
    ...originFilters(params),
  };
}

/** The `machine` and `person` URL filters of the changelog, sessions and overview pages; an over-long value is left out. */
export function originFilters(params: Record<string, string | string[] | undefined>): { machine?: string; person?: string } {
  const { one } = urlFilterReaders(params);
  const machine = one('machine');
  const person = one('person');
  return { ...(machine && machine.length <= 64 ? { machine } : {}), ...(person && person.length <= 200 ? { person } : {}) };
}
