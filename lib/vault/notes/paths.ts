import nodePath from 'node:path';
import { VaultError } from '../errors';
import { trimEndOf } from '../text';

/** Folders no Lucid tool ever reads or writes through a note path, at any depth. */
const NEVER = ['.git'];
/** Folders Lucid may read but never writes, at any depth (a nested vault has its own `.obsidian/`). */
const READ_ONLY_ANYWHERE = ['.obsidian'];
/** Folders at the vault's top that Lucid may read but never writes (Obsidian's trash, Lucid's state). */
const READ_ONLY = ['.obsidian', '.lucid', '.trash'];
/** The prefix of Lucid's own temporary files; such names are never notes. */
export const TEMP_PREFIX = '.lucid-tmp-';
const MAX_PATH_BYTES = 1024;
const MAX_SEGMENT_BYTES = 255;

/**
 * Checks a vault-relative path as a user, an agent or a URL gave it and returns it in canonical
 * form ('/' separators, no './'). Refuses, with `invalid_path`, anything that could name a file
 * outside the vault: absolute paths, `..` segments (also URL-encoded, once or twice), backslashes,
 * NUL and control characters, and `.git/` at any depth. With `forWrite`, also `.obsidian/` at any
 * depth, a top-level `.lucid/` and `.trash/`, and Lucid's temporary names. Reserved names are matched
 * as macOS and Windows match them (any case, any Unicode form, trailing dots and spaces, `::$DATA`
 * streams). It does not touch the disk: see {@link resolveInVault} for symlinks, and
 * {@link checkNewName} for the stricter rules a new file's name must meet.
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
    const nested = segments.map(reservedForm).find((segment) => READ_ONLY_ANYWHERE.includes(segment));
    if (nested) throw new VaultError('forbidden', `Lucid does not write under ${nested}/, at any depth (it holds Obsidian's settings and plugins).`);
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
  const lower = foldName(segment);
  // NTFS opens `.git::$INDEX_ALLOCATION` and `.git:stream` as `.git`.
  const base = lower.startsWith(':') ? lower : lower.split(':')[0];
  const trimmed = trimEndOf(base, '. ');
  return trimmed === '' ? lower : trimmed;
}

/**
 * A name as case-insensitive, normalizing file systems (APFS, HFS+, NTFS) compare names: Unicode
 * NFC, lower case. Two names with the same folded form are one file on a Mac or a Windows PC.
 */
export function foldName(name: string): string {
  // Each character through its upper case, as Windows' and APFS's tables do: `ſ` and `ı` are
  // lower case already but fold to `s` and `i` there (a one-to-many upper case such as ß → SS is kept).
  let folded = '';
  for (const char of name.normalize('NFC')) {
    const upper = char.toUpperCase();
    folded += (upper.length === char.length ? upper : char).toLowerCase();
  }
  return folded.normalize('NFC');
}

/** Windows device names: `CON.md`, `aux.txt.md`, `COM1` open a device there, whatever follows the first dot. */
const DEVICE_NAME = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/;
/** Characters Windows does not allow in a file name (`:` also starts git's pathspec magic). */
const WINDOWS_FORBIDDEN = /[<>:"|?*]/;

/**
 * Refuses, with `invalid_path`, a name a new file or folder must not have, though an existing note
 * with that name is still read, edited, diffed and deleted: a segment starting with `-` (read as an
 * option by command-line tools), one holding `:` (git's `:(glob)` pathspec magic, NTFS streams,
 * `aux:`, `C:foo`) or another character Windows refuses (`< > " | ? *`), a Windows device name
 * (`CON`, `AUX`, `NUL`, `COM1`, `LPT1`, with any extension), and a segment ending in a dot or a
 * space (Windows drops them, so the name would mean another file). `path` is canonical (from
 * {@link normalizeVaultPath}); `from` is the index of the first segment that does not exist yet.
 */
export function checkNewName(path: string, from = 0): void {
  const segments = path.split('/');
  for (const segment of segments.slice(from)) {
    const quoted = JSON.stringify(segment);
    if (segment.startsWith('-')) {
      throw new VaultError(
        'invalid_path',
        `New names cannot start with "-" (command-line tools read ${quoted} as an option); rename it, e.g. without the dash.`,
      );
    }
    const bad = WINDOWS_FORBIDDEN.exec(segment);
    if (bad) {
      throw new VaultError(
        'invalid_path',
        `New names cannot contain the character ${bad[0] === '"' ? `'"'` : `"${bad[0]}"`} (${quoted}): Windows refuses it${bad[0] === ':' ? ', and git reads a leading ":" as pathspec magic' : ''}. Choose a name without < > : " | ? *.`,
      );
    }
    if (DEVICE_NAME.test(foldName(segment).split('.')[0].trim())) {
      throw new VaultError(
        'invalid_path',
        `${quoted} is a Windows device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9); no file of that name can exist there. Choose another name.`,
      );
    }
    if (/[. ]$/.test(segment)) {
      throw new VaultError('invalid_path', `New names cannot end in a dot or a space (${quoted}): Windows drops them, so it would name another file.`);
    }
  }
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

/**
 * Whether a vault-relative path is a note as the vault lists them: a `.md` file with no folder or
 * name starting with a dot (`.obsidian/`, `.trash/`, `.lucid/`) and not under `node_modules/`.
 */
export function isNoteFile(path: string): boolean {
  if (!path.toLowerCase().endsWith('.md')) return false;
  return path.split('/').every((segment) => segment !== '' && !segment.startsWith('.') && segment !== 'node_modules');
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
