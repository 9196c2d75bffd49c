/** The dashboard URL of a vault note: each path segment percent-encoded (spaces, #, %, emoji). */
export function noteHref(path: string, heading?: string): string {
  const base = `/notes/${path.split('/').map(encodeURIComponent).join('/')}`;
  return heading ? `${base}#${encodeURIComponent(heading)}` : base;
}

/** The confined file route for a vault attachment. */
export function fileHref(path: string): string {
  return `/files/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** Obsidian's URL to open a note in the desktop app. */
export function obsidianHref(vaultName: string, path: string): string {
  return `obsidian://open?vault=${encodeURIComponent(vaultName)}&file=${encodeURIComponent(path.replace(/\.md$/i, ''))}`;
}
