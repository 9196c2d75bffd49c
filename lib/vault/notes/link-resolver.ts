import { isExternalTarget, type LinkKind, type LinkResolver, type ParsedLink } from './links';

/**
 * A resolver over every file in the vault (`allPaths`: vault-relative, `/`-separated, notes `*.md` and
 * attachments alike; `.obsidian/` should be left out). Lookup maps are built once here, so each resolve()
 * is a few map reads, whatever the vault's size.
 *
 * Obsidian's rules, in order:
 * 1. wikilinks and front-matter links: the exact vault path, exact case (`[[folder/name]]` → `folder/name.md`);
 *    markdown links: the path relative to the linking note's folder (`./`, `../` understood);
 * 2. wikilinks: a file of that name in the linking note's own folder (an ancestor folder does not count);
 *    markdown links: the vault path (a leading `/` is the vault root);
 * 3. the file of that name with the shortest path string anywhere in the vault (ties: exact case, then
 *    alphabetical); a target with folders (`folder/name`) only matches that path or paths ending in
 *    `/folder/name.md`.
 * Names match case-insensitively, as in Obsidian; within steps 2 and 3 (and both markdown path steps) an
 * exact-case spelling wins over another spelling of the same path. So a case-mismatched exact path
 * (`[[PEOPLE/ana]]` for `people/ana.md`) is found in step 3, after a same-folder match.
 *
 * A target with no extension gets `.md` (`[[note]]` → `note.md`). A target whose name has an extension
 * (`x.png`, `Books.base`, `Release 1.2`) is looked up as written first, then with `.md`. A wikilink starting
 * with `./` or `../` is resolved relative to the linking note, like a markdown link. An empty target resolves
 * to `fromPath`; an external URL (isExternalTarget) in a markdown link resolves to null.
 */
export function createLinkResolver(allPaths: readonly string[]): LinkResolver {
  const exact = new Set<string>();
  const byLowerPath = new Map<string, string[]>();
  const byLowerName = new Map<string, string[]>();

  for (const raw of allPaths) {
    const path = toSlashPath(raw);
    if (path === '' || exact.has(path)) continue;
    exact.add(path);
    pushTo(byLowerPath, path.toLowerCase(), path);
    pushTo(byLowerName, baseName(path).toLowerCase(), path);
  }
  for (const list of byLowerPath.values()) list.sort(compareStrings);
  for (const list of byLowerName.values()) list.sort((a, b) => a.length - b.length || compareStrings(a, b));

  const lookupPath = (path: string | null): string | null => {
    if (path === null || path === '') return null;
    if (exact.has(path)) return path;
    return byLowerPath.get(path.toLowerCase())?.[0] ?? null;
  };

  const lookupByName = (name: string): string | null => {
    const clean = stripDotSegments(name);
    if (clean === '') return null;
    const candidates = byLowerName.get(baseName(clean).toLowerCase());
    if (!candidates) return null;
    const lower = clean.toLowerCase();
    const suffix = `/${clean}`;
    const lowerSuffix = suffix.toLowerCase();
    const hasFolder = clean.includes('/');
    let best: string | null = null;
    for (const path of candidates) {
      if (best !== null && path.length > best.length) break;
      const lowerPath = path.toLowerCase();
      if (hasFolder && lowerPath !== lower && !lowerPath.endsWith(lowerSuffix)) continue;
      if (path === clean || path.endsWith(suffix)) return path;
      best ??= path;
    }
    return best;
  };

  const resolveName = (name: string, fromDir: string, kind: LinkKind): string | null => {
    const relativeSyntax = name.startsWith('./') || name.startsWith('../');
    const absolute = name.startsWith('/');
    if (kind === 'markdown' || relativeSyntax) {
      const relative = absolute ? null : lookupPath(joinPath(fromDir, name));
      return relative ?? lookupPath(normalizeSegments(name.replace(/^\/+/, ''))) ?? lookupByName(name);
    }
    const vaultPath = normalizeSegments(name.replace(/^\/+/, ''));
    if (vaultPath !== null && exact.has(vaultPath)) return vaultPath;
    const sameFolder = absolute || fromDir === '' ? null : lookupPath(joinPath(fromDir, name));
    return sameFolder ?? lookupByName(name);
  };

  return {
    resolve(target, fromPath, kind = 'wikilink') {
      const from = toSlashPath(fromPath);
      const name = target.trim();
      if (name === '') return lookupPath(from) ?? (from === '' ? null : from);
      if (kind === 'markdown' && isExternalTarget(name)) return null;
      const fromDir = dirName(from);
      for (const candidate of candidateFileNames(name)) {
        const hit = resolveName(candidate, fromDir, kind);
        if (hit !== null) return hit;
      }
      return null;
    },
  };
}

/**
 * Backlinks for every linked note: target path → the notes linking to it, with the line of each link
 * (0 for a front-matter link), sorted by source path then line. A note's links to itself (`[[#Heading]]`)
 * are left out, and so are unresolved links and external URLs.
 */
export function computeBacklinks(
  linksByPath: ReadonlyMap<string, readonly ParsedLink[]>,
  resolver: LinkResolver,
): Map<string, { from: string; line: number }[]> {
  const backlinks = new Map<string, { from: string; line: number }[]>();
  for (const [from, links] of linksByPath) {
    for (const link of links) {
      if (link.kind === 'markdown' && isExternalTarget(link.target)) continue;
      const to = resolver.resolve(link.target, from, link.kind);
      if (to === null || to === from) continue;
      pushTo(backlinks, to, { from, line: link.line });
    }
  }
  for (const list of backlinks.values()) {
    list.sort((a, b) => compareStrings(a.from, b.from) || a.line - b.line);
  }
  return backlinks;
}

/**
 * The file names (lowercased, without folders) a link to `target` can resolve to, whatever the vault
 * holds: a resolved path's file name, lowercased, is always one of them. So when a file comes or
 * goes, only links with its lowercased file name among their keys can resolve differently.
 */
export function resolutionKeys(target: string): string[] {
  const name = target.trim();
  if (name === '') return [];
  return [...new Set(candidateFileNames(name).map((candidate) => baseName(candidate).toLowerCase()))];
}

function candidateFileNames(name: string): string[] {
  if (name.toLowerCase().endsWith('.md')) return [name];
  return /\.[^.\s/]+$/.test(baseName(name)) ? [name, `${name}.md`] : [`${name}.md`];
}

/** `\\` → `/`, leading `./` and `/` dropped, `//` collapsed: a listing's or a link's path in one spelling. */
function toSlashPath(path: string): string {
  return path
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '')
    .replace(/\/{2,}/g, '/');
}

/** Resolves `.` and `..`; null when the path climbs above the vault root. */
function normalizeSegments(path: string): string | null {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else {
      out.push(segment);
    }
  }
  return out.join('/');
}

/** `dir` joined with a relative path, `.` and `..` resolved; null when it climbs above the vault root. */
export function joinPath(dir: string, relative: string): string | null {
  return normalizeSegments(dir === '' ? relative : `${dir}/${relative}`);
}

/** `../../a/b.md` → `a/b.md`: the part of a relative path a by-name lookup can use. */
function stripDotSegments(path: string): string {
  return path
    .split('/')
    .filter((segment) => segment !== '' && segment !== '.' && segment !== '..')
    .join('/');
}

/** A vault path's folder (`a/b` for `a/b/c.md`; empty at the root). */
export function dirName(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** A vault path's file name (`c.md` for `a/b/c.md`). */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
