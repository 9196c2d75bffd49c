import { slugify } from '../ids';
import { trimEndOf } from '../text';
import type { LinkResolver } from '../notes/links';
import { basenameOf, normalizeVaultPath } from '../notes/paths';
import { tokenizeQuery } from '../search/query';
import type { Vault } from '../vault';
import type { Note } from '../notes/note';
import type { ReadFirstItem } from './contract';

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
  const repo = input.repo?.trim();
  if (repo) {
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

function timeOf(value: unknown): number {
  if (typeof value !== 'string') return Number.NaN;
  return Date.parse(value);
}

/** A light stem so that "tests", "testing" and "tested" meet "test". */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('es')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

function termsOf(text: string): Set<string> {
  return new Set(
    tokenizeQuery(text)
      .filter((t) => t.length > 1)
      .map(stem),
  );
}

/**
 * What an agent should read before working on `task`: the project note, its current decisions
 * (newest first), the last sessions on the same work (the project's, then similar tasks), and the
 * skills whose trigger shares words with the task, each with why.
 */
export async function readFirst(
  vault: Vault,
  input: { task: string; project: ProjectMatch | null; excludeSession?: string; notes?: Note[]; resolver?: LinkResolver },
): Promise<ReadFirstItem[]> {
  const notes = input.notes ?? (await vault.listNotes());
  const resolver = input.resolver ?? (await vault.linkResolver());
  const items: ReadFirstItem[] = [];
  const item = (note: Note, why: string): ReadFirstItem => ({ path: note.path, title: displayTitle(note), type: note.type, why });
  const project = input.project?.note ?? null;
  const projectName = project ? String(project.frontmatter.name ?? project.title) : null;
  if (project && input.project) items.push(item(project, input.project.why));

  if (project) {
    const decisions = notes
      .filter((n) => n.lucidType === 'decision' && resolveLinkValue(resolver, n.frontmatter.project, n.path) === project.path)
      .filter((n) => n.frontmatter.status !== 'superseded')
      .sort((a, b) => String(b.frontmatter.date ?? '').localeCompare(String(a.frontmatter.date ?? '')) || a.path.localeCompare(b.path));
    for (const d of decisions.slice(0, 10)) {
      items.push(item(d, `a current decision of ${projectName} (${String(d.frontmatter.status)}, ${String(d.frontmatter.date)})`));
    }
  }

  const sessions = notes.filter((n) => n.lucidType === 'session' && basenameOf(n.path) !== input.excludeSession);
  const byEnd = (a: Note, b: Note) => (timeOf(b.frontmatter.ended) || 0) - (timeOf(a.frontmatter.ended) || 0);
  const chosen = new Set<string>();
  if (project) {
    for (const s of sessions
      .filter((n) => resolveLinkValue(resolver, n.frontmatter.project, n.path) === project.path)
      .sort(byEnd)
      .slice(0, 3)) {
      chosen.add(s.path);
      items.push(item(s, `the last work on ${projectName}: ${sessionLine(s)}`));
    }
  }
  if (chosen.size < 4) {
    const hits = await vault.search(input.task, { type: 'session', limit: 8 });
    const taskTerms = termsOf(input.task);
    for (const hit of hits) {
      if (chosen.size >= 4 || chosen.has(hit.path)) continue;
      const s = sessions.find((n) => n.path === hit.path);
      if (!s) continue;
      const shared = [...termsOf(String(s.frontmatter.task ?? ''))].filter((t) => taskTerms.has(t));
      if (shared.length === 0) continue;
      chosen.add(s.path);
      items.push(item(s, `earlier work on a similar task ("${String(s.frontmatter.task)}"): ${sessionLine(s)}`));
    }
  }

  const taskTerms = termsOf(input.task);
  const skills = notes
    .filter(
      (n) =>
        n.lucidType === 'skill' &&
        n.frontmatter.status !== 'archived' &&
        n.path.startsWith(`${vault.layout.skills}/`) &&
        !n.path.startsWith(`${vault.layout.skillsArchive}/`),
    )
    .map((n) => {
      const trigger = String(n.frontmatter.trigger ?? '');
      const shared = [...termsOf(`${trigger} ${String(n.frontmatter.name ?? '').replace(/-/g, ' ')}`)].filter((t) => taskTerms.has(t));
      return { n, trigger, shared, score: shared.length / Math.max(1, termsOf(trigger).size) };
    })
    .filter((s) => s.shared.length > 0)
    .sort((a, b) => b.shared.length - a.shared.length || b.score - a.score || a.n.path.localeCompare(b.n.path));
  for (const s of skills.slice(0, 5)) {
    items.push(item(s.n, `a skill whose trigger fits the task ("${s.trigger}"; shared: ${s.shared.join(', ')}), version ${String(s.n.frontmatter.version)}`));
  }
  return items;
}

/** A note's title for people: its `title`, its `name`, its first heading, a session's task, else its file name. */
function displayTitle(note: Note): string {
  if (note.title !== basenameOf(note.path)) return note.title;
  if (typeof note.frontmatter.name === 'string' && note.frontmatter.name.trim()) return note.frontmatter.name.trim();
  const heading = firstHeading(note.body ?? '');
  if (heading) return heading;
  if (typeof note.frontmatter.task === 'string' && note.frontmatter.task.trim()) return note.frontmatter.task.trim();
  return note.title;
}

function sessionLine(s: Note): string {
  const ended = typeof s.frontmatter.ended === 'string' ? s.frontmatter.ended.slice(0, 10) : 'not ended';
  return `agent ${String(s.frontmatter.agent)}, ended ${ended}, outcome ${String(s.frontmatter.outcome)}`;
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
