import { isChangelogPath, type VaultLayout } from '../notes/layout';
import { oneLine } from '../text';
import { slugify } from '../ids';
import { trimEndOf } from '../text';
import type { LinkResolver } from '../notes/links';
import { basenameOf, normalizeVaultPath } from '../notes/paths';
import type { Note } from '../notes/note';
import { isWeakName, wordsOf, type TextWord } from './task-terms';

/** A project note an agent's `project` or `repo` matched. */
export interface ProjectMatch {
  note: Note;
  why: string;
}

/** The `[[link]]` in a property value, resolved like Obsidian resolves it from `fromPath`. */
export function resolveLinkValue(resolver: LinkResolver, value: unknown, fromPath: string): string | null {
  if (typeof value !== 'string') return null;
  const match = /^\s*\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]\s*$/.exec(value);
  if (!match) return null;
  return resolver.resolve(match[1].trim(), fromPath, 'frontmatter');
}

/** A repository named by URL or path, reduced for comparison: host/owner/name, lowercase, no `.git`. */
function normalizeRepo(value: string): string {
  let repo = value.trim().toLowerCase();
  repo = repo.replace(/^git\+/, '').replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  repo = repo.replace(/^[^@/]+@([^:/]+):/, '$1/');
  repo = repo.replace(/^[^@/]+@/, '');
  return trimEndOf(trimEndOf(withoutQuery(repo), '/').replace(/\.git$/, ''), '/');
}

/** `repo` without its `?query` or `#fragment`: what `/[?#].*$/` removes, from the first `?` or `#` after the last line break. */
function withoutQuery(repo: string): string {
  const lineStart = Math.max(repo.lastIndexOf('\n'), repo.lastIndexOf('\r'), repo.lastIndexOf('\u2028'), repo.lastIndexOf('\u2029')) + 1;
  const query = repo.indexOf('?', lineStart);
  const fragment = repo.indexOf('#', lineStart);
  const cut = query === -1 ? fragment : fragment === -1 ? query : Math.min(query, fragment);
  return cut === -1 ? repo : repo.slice(0, cut);
}

function segments(repo: string): string[] {
  return repo.split(/[/\\:]+/).filter(Boolean);
}

/**
 * The project note that `project` (a name, alias or path) or `repo` (compared with projects' `repo`
 * field: the same URL or path, else the same owner/name, else the same repository name) names.
 */
export function matchProject(notes: readonly Note[], input: { project?: string | null; repo?: string | null }): ProjectMatch | null {
  const projects = notes.filter((n) => n.lucidType === 'project');
  const given = input.project?.trim();
  if (given) {
    const asPath = given.replace(/^\[\[|\]\]$/g, '').replace(/\\/g, '/');
    const withMd = asPath.toLowerCase().endsWith('.md') ? asPath : `${asPath}.md`;
    const byPath = projects.find((p) => p.path === withMd || p.path.toLowerCase() === withMd.toLowerCase());
    if (byPath) return { note: byPath, why: `the project note, matched by its path "${given}"` };
    const lower = given.toLowerCase();
    const slug = slugify(given);
    const byName =
      projects.find(
        (p) =>
          String(p.frontmatter.name ?? '')
            .trim()
            .toLowerCase() === lower,
      ) ??
      projects.find((p) => basenameOf(p.path).toLowerCase() === lower) ??
      projects.find((p) => aliasesOf(p).some((a) => a.toLowerCase() === lower)) ??
      (slug ? projects.find((p) => slugify(String(p.frontmatter.name ?? '')) === slug || slugify(basenameOf(p.path)) === slug) : undefined);
    if (byName) return { note: byName, why: `the project note, matched by the name "${given}"` };
  }
  return matchRepo(projects, input.repo);
}

/**
 * The project whose `repo` field names `repo`: the same URL or path, else the same owner/name, else
 * the only project with the same repository name. `projects` in order of preference.
 */
function matchRepo(projects: readonly Note[], given: string | null | undefined): ProjectMatch | null {
  const repo = given?.trim();
  if (!repo) return null;
  const wanted = normalizeRepo(repo);
  const withRepo = projects.filter((p) => typeof p.frontmatter.repo === 'string' && p.frontmatter.repo.trim() !== '');
  const repoOf = (p: Note) => normalizeRepo(String(p.frontmatter.repo));
  const exact = withRepo.find((p) => repoOf(p) === wanted);
  if (exact) return { note: exact, why: `the project note: its repo field is ${String(exact.frontmatter.repo)}` };
  const tail = (r: string, n: number) => segments(r).slice(-n).join('/');
  if (segments(wanted).length >= 2) {
    const owner = withRepo.find((p) => segments(repoOf(p)).length >= 2 && tail(repoOf(p), 2) === tail(wanted, 2));
    if (owner) return { note: owner, why: `the project note: its repo field (${String(owner.frontmatter.repo)}) names the same repository` };
  }
  const name = tail(wanted, 1);
  const sameName = name ? withRepo.filter((p) => tail(repoOf(p), 1) === name) : [];
  if (sameName.length === 1) {
    return { note: sameName[0], why: `the project note: its repo field (${String(sameName[0].frontmatter.repo)}) has the same repository name "${name}"` };
  }
  return null;
}

function aliasesOf(note: Note): string[] {
  const value = note.frontmatter.aliases;
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** The project names an agent may pass, for a message when none matched. */
export function projectNames(notes: readonly Note[]): string[] {
  return notes.filter((n) => n.lucidType === 'project').map((n) => String(n.frontmatter.name ?? basenameOf(n.path)));
}

/** What {@link findProject} found: the project, and other projects the task names. */
export interface ProjectFinding {
  match: ProjectMatch | null;
  /** What matched: the `project` argument, the `repo`, a name in the task, or nothing. */
  by: 'project' | 'repo' | 'task' | null;
  /** Other projects the task names, most specific name first. */
  alsoNamed: ProjectMatch[];
}

/**
 * The project a session is about, looked for as a colleague would: the `project` argument against
 * the names, aliases, titles and paths of notes (Lucid's project notes first, then notes that look
 * like projects without the type, such as `Projects/Heron/Heron.md`, then any note); else `repo`
 * against projects' `repo` field; else a project's name, alias or title written in the task as
 * whole words. A name that is a common word ("Go") counts only with more evidence: written with its
 * capitals inside a sentence, or next to "project" or "repo".
 */
export function findProject(
  notes: readonly Note[],
  input: { project?: string | null; repo?: string | null; task?: string | null },
  layout: VaultLayout,
): ProjectFinding {
  const eligible = notes.filter((n) => !isSystemNote(n, layout) && (n.lucidType === null || n.lucidType === 'project'));
  const candidates = [...eligible.filter((n) => n.lucidType === 'project'), ...eligible.filter((n) => n.lucidType === null && looksLikeProject(n, layout))];
  const named = input.task ? projectsNamedIn(input.task, candidates) : [];
  const given = input.project?.trim();
  const byProject = given ? (matchProject(notes, { project: given }) ?? byArgument(given, candidates, eligible)) : null;
  const byRepo = byProject ? null : matchRepo(candidates, input.repo);
  const match = byProject ?? byRepo ?? named[0] ?? null;
  const by = byProject ? 'project' : byRepo ? 'repo' : match ? 'task' : null;
  return { match, by, alsoNamed: named.filter((m) => m.note.path !== match?.note.path) };
}

/** The names of the projects {@link findProject} knows, for a message when none matched. */
export function projectLikeNames(notes: readonly Note[], layout: VaultLayout): string[] {
  const names = notes
    .filter((n) => !isSystemNote(n, layout) && (n.lucidType === 'project' || (n.lucidType === null && looksLikeProject(n, layout))))
    .map((n) => String(n.frontmatter.name ?? '').trim() || folderNoteName(n) || n.title);
  return [...new Set(names)];
}

function isSystemNote(note: Note, layout: VaultLayout): boolean {
  const p = note.path;
  return p === layout.agents || p.startsWith(`${layout.inbox}/`) || isChangelogPath(layout, p);
}

const PROJECT_WORD = /^projects?$/i;

/**
 * A note without Lucid's type that a person keeps as a project: directly in a folder named
 * "Projects" (or the vault's projects folder), a folder note in one (`Projects/Heron/Heron.md`,
 * `Projects/Heron/README.md`), or one whose `type`, `category`/`categories` or `tags` say project.
 */
function looksLikeProject(note: Note, layout: VaultLayout): boolean {
  const parts = note.path.split('/');
  const isProjectsFolder = (i: number) => i >= 0 && (PROJECT_WORD.test(parts[i]) || parts.slice(0, i + 1).join('/') === layout.projects);
  if (parts.length >= 2 && isProjectsFolder(parts.length - 2)) return true;
  if (parts.length >= 3 && isProjectsFolder(parts.length - 3) && folderNoteName(note)) return true;
  const fm = note.frontmatter;
  const says = (value: unknown): boolean =>
    Array.isArray(value) ? value.some(says) : typeof value === 'string' && /(^|[^\p{L}])projects?($|[^\p{L}])/iu.test(value.slice(0, 200));
  const tags = Array.isArray(fm.tags) ? fm.tags : typeof fm.tags === 'string' ? fm.tags.split(/[\s,]+/) : [];
  return says(fm.type) || says(fm.category) || says(fm.categories) || tags.some((t) => typeof t === 'string' && /^#?projects?(\/|$)/i.test(t.trim()));
}

/** The folder's name when the note is its folder note (`Heron/Heron.md`, `Heron/index.md`, `Heron/README.md`), else null. */
function folderNoteName(note: Note): string | null {
  const parts = note.path.split('/');
  if (parts.length < 2) return null;
  const folder = parts[parts.length - 2];
  const base = basenameOf(note.path).toLowerCase();
  return base === folder.toLowerCase() || base === 'index' || base === 'readme' ? folder : null;
}

/** Every name a note goes by: its `name`, `title`, first heading, file name, folder (for a folder note) and aliases. */
function namesOf(note: Note): string[] {
  const names = [
    String(note.frontmatter.name ?? ''),
    note.title,
    firstHeading(note.body ?? '') ?? '',
    basenameOf(note.path),
    folderNoteName(note) ?? '',
    ...aliasesOf(note),
  ];
  return [...new Set(names.map((n) => n.trim()).filter((n) => n !== '' && n.length <= 200))];
}

/** A note `given` names by path (a note or a folder's note), else by name among projects, then among all notes. */
function byArgument(given: string, candidates: readonly Note[], eligible: readonly Note[]): ProjectMatch | null {
  const asPath = trimEndOf(given.replace(/^\[\[|\]\]$/g, '').replace(/\\/g, '/'), '/').toLowerCase();
  const withMd = asPath.endsWith('.md') ? asPath : `${asPath}.md`;
  const byPath =
    eligible.find((n) => n.path.toLowerCase() === withMd) ??
    best(
      eligible.filter(
        (n) => folderNoteName(n) !== null && n.path.toLowerCase().startsWith(`${asPath}/`) && n.path.split('/').length === asPath.split('/').length + 1,
      ),
    );
  if (byPath) return { note: byPath, why: `the note at "${given}"${byPath.lucidType === 'project' ? '' : ' (without type: project)'}` };
  const lower = given.toLowerCase();
  const slug = slugify(given);
  const tests: ((name: string) => boolean)[] = [(name) => name.toLowerCase() === lower, ...(slug ? [(name: string) => slugify(name) === slug] : [])];
  for (const test of tests) {
    for (const pool of [candidates, eligible]) {
      const found = best(pool.filter((n) => namesOf(n).some(test)));
      if (found) return { note: found, why: `the note named "${given}"${found.lucidType === 'project' ? '' : ' (without type: project)'}` };
    }
  }
  return null;
}

/** Of several notes, the one Obsidian would pick for a name: a folder note first, then the shortest path. */
function best(notes: readonly Note[]): Note | undefined {
  return [...notes].sort(
    (a, b) => Number(folderNoteName(b) !== null) - Number(folderNoteName(a) !== null) || a.path.length - b.path.length || a.path.localeCompare(b.path),
  )[0];
}

const PROJECT_NOUNS = new Set(['project', 'repo', 'repository', 'codebase']);

/** The projects whose name, alias or title the task writes as whole words, most specific (longest) name first. */
function projectsNamedIn(task: string, candidates: readonly Note[]): ProjectMatch[] {
  const words = wordsOf(task);
  const found: { note: Note; name: string; length: number; at: number }[] = [];
  for (const note of candidates) {
    let hit: { name: string; length: number; at: number } | null = null;
    for (const name of namesOf(note)) {
      const nameWords = wordsOf(name);
      const length = nameWords.reduce((sum, w) => sum + w.lower.length, 0);
      if (length < 2 || (hit && hit.length >= length)) continue;
      const weak = isWeakName(name);
      for (let i = 0; i + nameWords.length <= words.length; i += 1) {
        if (!nameWords.every((w, j) => words[i + j].lower === w.lower)) continue;
        if (weak && !strongEvidence(words, i, nameWords)) continue;
        hit = { name, length, at: i };
        break;
      }
    }
    if (hit) found.push({ note, ...hit });
  }
  found.sort((a, b) => b.length - a.length || a.at - b.at || Number(b.note.lucidType === 'project') - Number(a.note.lucidType === 'project'));
  return found.map((f) => ({ note: f.note, why: `the task names this project ("${oneLine(f.name, 60)}")` }));
}

/** Whether a common-word name is meant as the project: its capitals inside a sentence ("fix the Go build"), or "project"/"repo" beside it. */
function strongEvidence(words: readonly TextWord[], at: number, name: readonly TextWord[]): boolean {
  const written = words.slice(at, at + name.length);
  const capitalized = name.some((w) => w.text !== w.lower) && written.every((w, j) => w.text === name[j].text) && !written[0].sentenceStart;
  const beside = [words[at - 1], words[at + name.length]].some((w) => w !== undefined && PROJECT_NOUNS.has(w.lower));
  return capitalized || beside;
}

/** Normalizes a note path an agent gave, adding `.md` when it names a note without it. */
export function notePathFromInput(value: string): string {
  const path = normalizeVaultPath(value.replace(/^\[\[|\]\]$/g, ''));
  return path.toLowerCase().endsWith('.md') ? path : `${path}.md`;
}

const isLineBreak = (c: string) => c === '\n' || c === '\r' || c === '\u2028' || c === '\u2029';
const isSpace = (c: string) => /\s/.test(c);

/**
 * The first `# heading` of a body, in one pass: what `/^#\s+(.+?)\s*#*\s*$/m.exec(body)?.[1]` returns
 * (that regex backtracks in cubic time on a line of `#` and spaces), including its quirks: the space
 * after `#` may run over line breaks, and trailing ` #` marks are dropped.
 */
export function firstHeading(body: string): string | undefined {
  for (let p = 0; p < body.length; p += 1) {
    if (body[p] !== '#' || (p > 0 && !isLineBreak(body[p - 1]))) continue;
    let start = p + 1;
    while (start < body.length && isSpace(body[start])) start += 1;
    if (start === p + 1) continue;
    if (start === body.length) {
      // Only white space follows: the regex gives back spaces to `\s+`'s end and captures the last one that is not a line break.
      for (let s = body.length - 1; s >= p + 2; s -= 1) if (!isLineBreak(body[s])) return body[s];
      continue;
    }
    let lineEnd = start;
    while (lineEnd < body.length && !isLineBreak(body[lineEnd])) lineEnd += 1;
    // The end of the captured text: before the trailing white space, `#` marks and white space of the line.
    let end = lineEnd;
    while (end > start && isSpace(body[end - 1])) end -= 1;
    while (end > start && body[end - 1] === '#') end -= 1;
    while (end > start && isSpace(body[end - 1])) end -= 1;
    return body.slice(start, Math.max(start + 1, end));
  }
  return undefined;
}
