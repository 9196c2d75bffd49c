import { CLOBBER_PREFIX, anchorId } from './slug';

/** Each segment of a vault path percent-encoded (`a b/#1 100%.md` → `a%20b/%231%20100%25.md`). */
function encodeVaultPath(path: string): string {
  return path
    .replace(/^\/+/, '')
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/** `#user-content-<id>`: the in-page fragment for a heading or block subpath. */
export function fragmentHref(subpath: string): string {
  return `#${CLOBBER_PREFIX}${encodeURIComponent(anchorId(subpath))}`;
}

/** The dashboard page of a note: `/notes/<encoded vault path>`, plus the heading or block fragment. */
export function noteHref(path: string, subpath?: string): string {
  return `/notes/${encodeVaultPath(path)}${subpath ? fragmentHref(subpath) : ''}`;
}

/** The confined file route that serves a vault attachment: `/files/<encoded vault path>`. */
export function fileHref(path: string): string {
  return `/files/${encodeVaultPath(path)}`;
}

/** A note page for `*.md` vault paths, the file route for anything else (PDFs, canvases, images). */
export function vaultHref(path: string, subpath?: string): string {
  return isNotePath(path) ? noteHref(path, subpath) : fileHref(path);
}

export function isNotePath(path: string): boolean {
  return /\.md$/i.test(path);
}

const IMAGE_EXTENSIONS = new Set(['apng', 'avif', 'bmp', 'gif', 'jpeg', 'jpg', 'png', 'svg', 'webp']);

/** True when the file name ends in an image extension Obsidian embeds as an image. */
export function isImagePath(path: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 && IMAGE_EXTENSIONS.has(name.slice(dot + 1).toLowerCase());
}

/** Links opened in a new tab: `http:`, `https:`, `mailto:` and protocol-relative `//host`. */
export function isWebUrl(url: string): boolean {
  return /^(?:https?:|mailto:|\/\/)/i.test(url.trim());
}

/**
 * A URL a browser would fetch from another host if used as an image source. `https:host` without slashes counts:
 * the URL parser treats it as `https://host`.
 */
export function isRemoteUrl(url: string): boolean {
  return /^(?:https?:|\/\/)/i.test(url.trim());
}

/** `decodeURIComponent`, or the input unchanged when it is not valid percent-encoding (`100%.md`). */
export function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Obsidian's URL to open a note in the desktop app. */
export function obsidianHref(vaultName: string, path: string): string {
  return `obsidian://open?vault=${encodeURIComponent(vaultName)}&file=${encodeURIComponent(path.replace(/\.md$/i, ''))}`;
}
