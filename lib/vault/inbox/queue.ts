import type { Dirent } from 'node:fs';
import { VaultError, isVaultError } from '../errors';
import { decodeNoteBytes, hashBytes } from '../notes/frontmatter';
import { MAX_NOTE_BYTES } from '../notes/note';
import { normalizeVaultPath } from '../notes/paths';
import type { Vault } from '../vault';
import { inboxIdOf, parseInboxNote } from './parse';
import type { InboxFilter, InboxItem } from './types';

/*
 * The queue reads only the inbox folder (one readdir, one stat per item) and parses an item again
 * only when its size or mtime changed since the last listing of the same Vault, so that a page
 * that lists thousands of items on every refresh reads each file once.
 */

interface CachedItem {
  size: number;
  mtimeMs: number;
  item: InboxItem;
}

const caches = new WeakMap<Vault, Map<string, CachedItem>>();
/** Stats run at most this many at once (a folder of thousands of items must not open thousands of files at once). */
const STAT_BATCH = 64;

/** The inbox folder's canonical path, confirmed inside the vault, or null when there is none. */
async function inboxFolder(vault: Vault): Promise<string | null> {
  try {
    return await vault.resolveForRead(vault.layout.inbox);
  } catch (error) {
    if (isVaultError(error, 'not_found')) return null;
    throw error;
  }
}

/** The entries of `dir` that can be items (`*.md` files, not dot-files such as Lucid's temp files); [] when it is gone. */
async function itemEntries(vault: Vault, dir: string): Promise<Dirent[]> {
  let entries: Dirent[];
  try {
    entries = await vault.fs.readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new VaultError('io_error', `Could not read the inbox folder ${vault.layout.inbox}: ${(error as Error).message}`);
  }
  return entries.filter((e) => e.isFile() && !e.name.startsWith('.') && e.name.toLowerCase().endsWith('.md'));
}

/**
 * The inbox folder held open as a descriptor whose path is still `dir` (Linux, through
 * /proc/self/fd): its files are then opened through that descriptor, each without following a link,
 * so they are the vault's own however the folders around them change, at one open per file instead
 * of one per path component. Null where that is not available (each file is then read confined).
 */
async function openFolder(vault: Vault, dir: string): Promise<number | null> {
  if (!(await vault.fs.fdPaths().catch(() => false))) return null;
  let fd: number;
  try {
    fd = await vault.fs.openDir(dir);
  } catch {
    return null;
  }
  const same = await vault.fs.readlink(`/proc/self/fd/${fd}`).then(
    (real) => real === dir,
    () => false,
  );
  if (same) return fd;
  await vault.fs.close(fd).catch(() => undefined);
  return null;
}

/** One file of the inbox folder (named through its descriptor), read without following a link; null when it is gone or not a plain file. */
async function readEntry(vault: Vault, entry: string, path: string): Promise<InboxItem | null> {
  let fd: number;
  try {
    fd = await vault.fs.openRead(entry);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') return null;
    throw new VaultError('io_error', `Could not read ${path}: ${(error as Error).message}`);
  }
  try {
    const stat = await vault.fs.fstat(fd);
    if (!stat.isFile()) return null;
    if (stat.size > MAX_NOTE_BYTES) return unreadable(path, `it is larger than ${MAX_NOTE_BYTES / 1024 / 1024} MiB`);
    return itemOf(vault, path, await vault.fs.readFd(fd, stat.size));
  } finally {
    await vault.fs.close(fd).catch(() => undefined);
  }
}

/** The vault path of the inbox item `id`, or an `invalid_input` error when `id` is not a plain file name. */
export function inboxItemPath(vault: Vault, id: string): string {
  if (typeof id !== 'string' || id === '' || /[/\\\u0000]/.test(id) || id.startsWith('.')) {
    throw new VaultError('invalid_input', `"${String(id)}" is not an inbox item id: give the item's file name without .md (lucid inbox list shows them).`);
  }
  return normalizeVaultPath(`${vault.layout.inbox}/${id}.md`);
}

/**
 * Reads one inbox item fresh from disk (no cache), with the sha256 of its bytes (accept and reject
 * pass it back to the write path). `not_found` when the file is gone.
 */
export async function readInboxItem(vault: Vault, path: string): Promise<{ item: InboxItem; hash: string }> {
  const bytes = await vault.readFileBytes(path);
  return { item: itemOf(vault, path, bytes), hash: hashBytes(bytes) };
}

function itemOf(vault: Vault, path: string, bytes: Buffer): InboxItem {
  if (bytes.length > MAX_NOTE_BYTES) return unreadable(path, `it is larger than ${MAX_NOTE_BYTES / 1024 / 1024} MiB`);
  const decoded = decodeNoteBytes(bytes);
  if (!decoded.ok) return unreadable(path, decoded.message);
  return parseInboxNote(path, decoded.text, vault.layout);
}

/** An item whose file cannot be read as text: listed, so that a person can reject it. */
function unreadable(path: string, why: string): InboxItem {
  return {
    id: inboxIdOf(path),
    path,
    proposedBy: '',
    session: null,
    action: 'update',
    target: '',
    reason: '',
    confidence: null,
    flag: null,
    created: '',
    baseBlob: null,
    explanation: '',
    proposal: null,
    problem: `This item cannot be accepted: ${why}. Reject it, or fix the note in ${path}.`,
  };
}

function matches(item: InboxItem, filter: InboxFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.agent && item.proposedBy !== filter.agent && item.proposedBy !== `agent:${filter.agent}`) return false;
  if (filter.flag && item.flag !== filter.flag) return false;
  if (filter.action && item.action !== filter.action) return false;
  return true;
}

/**
 * Oldest first: by the `created` time (items without one last), then, as `created` is kept to the
 * second, by when the file was written (proposals made within one second stay in the order they
 * were made), then by id.
 */
function compareItems(a: InboxItem, b: InboxItem, writtenAt: ReadonlyMap<InboxItem, number>): number {
  const ta = Date.parse(a.created);
  const tb = Date.parse(b.created);
  const na = Number.isNaN(ta);
  const nb = Number.isNaN(tb);
  if (na !== nb) return na ? 1 : -1;
  if (!na && ta !== tb) return ta - tb;
  const wa = writtenAt.get(a) ?? 0;
  const wb = writtenAt.get(b) ?? 0;
  if (wa !== wb) return wa - wb;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The inbox queue, oldest first (by `created`, then when written, then id). Items whose note cannot be applied are
 * listed with their `problem`. Reads only the inbox folder, and each item again only when its file
 * changed since the last listing.
 */
export async function listInbox(vault: Vault, filter?: InboxFilter): Promise<InboxItem[]> {
  const dir = await inboxFolder(vault);
  if (dir === null) return [];
  let cache = caches.get(vault);
  if (!cache) {
    cache = new Map();
    caches.set(vault, cache);
  }
  const known = cache;
  const seen = new Set<string>();
  const items: InboxItem[] = [];
  const writtenAt = new Map<InboxItem, number>();
  const fd = await openFolder(vault, dir);
  const folder = fd === null ? dir : `/proc/self/fd/${fd}`;
  try {
    const entries = await itemEntries(vault, folder);
    for (let i = 0; i < entries.length; i += STAT_BATCH) {
      const batch = entries.slice(i, i + STAT_BATCH);
      const read = await Promise.all(
        batch.map(async (entry): Promise<InboxItem | null> => {
          const path = `${vault.layout.inbox}/${entry.name}`;
          const entryPath = `${folder}/${entry.name}`;
          seen.add(path);
          try {
            const stat = await vault.fs.lstat(entryPath);
            if (!stat.isFile()) return null;
            const cached = known.get(path);
            if (cached && cached.size === stat.size && cached.mtimeMs === stat.mtimeMs) {
              writtenAt.set(cached.item, stat.mtimeMs);
              return cached.item;
            }
            const item = fd === null ? (await readInboxItem(vault, path)).item : await readEntry(vault, entryPath, path);
            if (item) {
              known.set(path, { size: stat.size, mtimeMs: stat.mtimeMs, item });
              writtenAt.set(item, stat.mtimeMs);
            }
            return item;
          } catch (error) {
            // removed meanwhile (accepted or rejected while the folder was read)
            if (isVaultError(error, 'not_found') || (error as NodeJS.ErrnoException).code === 'ENOENT') return null;
            // a name Lucid cannot take as a vault path, a link that leads outside: listed, never read
            if (isVaultError(error) && error.code !== 'io_error') return unreadable(path, error.message.replace(/\.$/, ''));
            throw error;
          }
        }),
      );
      for (const item of read) if (item) items.push(item);
    }
  } finally {
    if (fd !== null) await vault.fs.close(fd).catch(() => undefined);
  }
  for (const path of known.keys()) if (!seen.has(path)) known.delete(path);
  return items.filter((item) => matches(item, filter)).sort((a, b) => compareItems(a, b, writtenAt));
}

/** How many items wait in the inbox: one readdir, no file read (the navigation shows it on every page). */
export async function countInbox(vault: Vault): Promise<number> {
  const dir = await inboxFolder(vault);
  return dir === null ? 0 : (await itemEntries(vault, dir)).length;
}
