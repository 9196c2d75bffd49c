import 'server-only';
import path from 'node:path';
import {
  type CommitRecord,
  countInbox,
  type InboxFilter,
  type InboxItem,
  type InboxItemDetail,
  isVaultError,
  listInbox,
  parseFrontmatter,
  parseLinks,
  showInboxItem,
  type LinkKind,
  type LintReport,
  type Note,
  normalizeNotePath,
  normalizeVaultPath,
  summarizeVault,
  type VaultSummary,
} from '@/lib/vault';
import { getVault } from './vault';

// Every read a page makes, in one place (as next-learn's app/lib/data.ts): pages call these,
// components receive what they return as props, and nothing else in app/ or components/ touches the vault.

/** Longest note body the note page renders as Markdown; longer ones are shown as plain text, cut. */
export const RENDER_LIMIT = 400_000;

/** The overview page's figures. */
export async function fetchOverview(): Promise<VaultSummary> {
  return summarizeVault(await getVault(), new Date());
}

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

function safeDecode(segment: string): string {
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
