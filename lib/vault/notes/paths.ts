import nodePath from 'node:path';
import { VaultError } from '../errors';

/** Folders no Lucid tool ever reads or writes through a note path. */
const NEVER = ['.git'];
/** Folders Lucid may read but never writes. */
const READ_ONLY = ['.obsidian', '.lucid', '.trash'];
/** The prefix of Lucid's own temporary files; such names are never notes. */
export const TEMP_PREFIX = '.lucid-tmp-';
const MAX_PATH_BYTES = 1024;
const MAX_SEGMENT_BYTES = 255;

/**
 * Checks a vault-relative path as a user, an agent or a URL gave it and returns it in canonical
 * form ('/' separators, no './'). Refuses, with `invalid_path`, anything that could name a file
 * outside the vault: absolute paths, `..` segments (also URL-encoded, once or twice), backslashes,
 * NUL and control characters, and `.git/`. With `forWrite`, also `.obsidian/`, `.lucid/` and
 * Lucid's temporary names. It does not touch the disk: see {@link resolveInVault} for symlinks.
 */
export function normalizeVaultPath(input: unknown, options: { forWrite?: boolean } = {}): string {
  if (typeof input !== 'string' || input.trim() === '') {
    throw new VaultError('invalid_path', 'A path is required.');
  }
  if (/[\u0000-\u001f\u007f]/.test(input)) {
    throw new VaultError('invalid_path', 'Paths cannot contain control characters (such as NUL or line breaks).');
  }
  if (input.includes('\\')) {
    throw new VaultError('invalid_path', `Use "/" between folders, not "\\": ${JSON.stringify(input)}.`);
  }
  if (Buffer.byteLength(input) > MAX_PATH_BYTES) {
    throw new VaultError('invalid_path', `The path is longer than ${MAX_PATH_BYTES} bytes.`);
  }
  for (const form of decodedForms(input)) {
    if (form.startsWith('/') || /^[a-zA-Z]:/.test(form) || form.includes('\\')) {
      throw new VaultError('invalid_path', `Paths are relative to the vault; ${JSON.stringify(input)} is not.`);
    }
    if (form.split('/').some((segment) => segment === '..')) {
      throw new VaultError('invalid_path', `The path ${JSON.stringify(input)} leads outside the vault.`);
    }
  }
  const segments = input.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.length === 0) throw new VaultError('invalid_path', 'A path is required.');
  for (const segment of segments) {
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) {
      throw new VaultError('invalid_path', `A file or folder name is longer than ${MAX_SEGMENT_BYTES} bytes.`);
    }
  }
  const first = reservedForm(segments[0]);
  if (segments.some((segment) => NEVER.includes(reservedForm(segment)))) {
    throw new VaultError('forbidden', 'Files under .git/ are never read or written through Lucid.');
  }
  if (options.forWrite) {
    if (READ_ONLY.includes(first)) {
      throw new VaultError('forbidden', `Lucid does not write under ${first}/.`);
    }
    if (segments.some((segment) => reservedForm(segment).startsWith(TEMP_PREFIX))) {
      throw new VaultError('forbidden', "That name is reserved for Lucid's temporary files.");
    }
  } else if (first === '.lucid') {
    throw new VaultError('forbidden', "Lucid's local state under .lucid/ is not readable as a note.");
  }
  return segments.join('/');
}

/**
 * A name as a case-insensitive file system (macOS, Windows) sees it when matching reserved
 * names: `.GIT`, `.Git.` and `.git ` all open `.git` there.
 */
function reservedForm(segment: string): string {
  const lower = segment.toLowerCase();
  const trimmed = lower.replace(/[. ]+$/, '');
  return trimmed === '' ? lower : trimmed;
}

/** The input and its URL-decoded forms (decoded up to three times), to catch `..%2F` and `%252e`. */
function decodedForms(input: string): string[] {
  const forms = [input];
  let current = input;
  for (let i = 0; i < 3; i += 1) {
    let next: string;
    try {
      next = decodeURIComponent(current);
    } catch {
      break;
    }
    if (next === current) break;
    forms.push(next);
    current = next;
  }
  return forms;
}

/** Like {@link normalizeVaultPath} for a path that must name a markdown note. */
export function normalizeNotePath(input: unknown, options: { forWrite?: boolean } = {}): string {
  const path = normalizeVaultPath(input, options);
  if (!path.toLowerCase().endsWith('.md')) {
    throw new VaultError('invalid_path', `Notes are markdown files ending in .md; ${JSON.stringify(path)} is not.`);
  }
  return path;
}

/** The file name without folders and without `.md`. */
export function basenameOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return name.toLowerCase().endsWith('.md') ? name.slice(0, -3) : name;
}

/** True when `child` is `parent` itself or inside it (both absolute and canonical). */
export function isInside(parent: string, child: string): boolean {
  const relative = nodePath.relative(parent, child);
  // `..notes.md` is a name inside the folder; only a `..` segment climbs out.
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${nodePath.sep}`) && !nodePath.isAbsolute(relative));
}
