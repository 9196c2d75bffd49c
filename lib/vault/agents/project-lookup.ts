import type { VaultFile } from '../notes/note';
import { basenameOf } from '../notes/paths';
import type { SearchHit } from '../search/search-index';
import { trimEndOf } from '../text';
import type { NoteLookup } from './note-lookup';
import { findProject, projectLikeNames, type ProjectFinding } from './session-context';
import { wordsOf } from './task-terms';

/** Candidates each search for a project asks for. */
const SEARCHED = 20;

const PROJECT_FOLDER = /^projects?$/i;
const PROJECT_ANYWHERE = /(^|\/)projects?\//i;

/**
 * {@link findProject} over the notes the indexes point at, never every note: the notes in the
 * projects folder and in folders named Projects (read once, then kept while unchanged); of the
 * notes search ranks best for the task (`taskHits`), Lucid's projects and those whose title or file
 * name the task writes; with the project argument, what search finds for it and the notes at the
 * path it gives (a note or a folder's note); with `repo`, the projects search finds for it. They
 * are read in the listing's order, so ties fall as they did over the whole vault.
 */
export async function lookUpProject(
  lookup: NoteLookup,
  input: { project?: string | null; repo?: string | null; task: string },
  taskHits: readonly SearchHit[],
): Promise<ProjectFinding> {
  const { layout } = lookup.vault;
  const paths = new Set<string>();
  const add = (hits: readonly SearchHit[]) => {
    for (const hit of hits) paths.add(hit.path);
  };
  const words = new Set(wordsOf(input.task).map((w) => w.lower));
  const written = (name: string) => {
    const nameWords = wordsOf(name);
    return nameWords.length > 0 && nameWords.every((w) => words.has(w.lower));
  };
  for (const hit of taskHits) if (hit.type === 'project' || written(hit.title) || written(basenameOf(hit.path))) paths.add(hit.path);
  const given = input.project?.trim();
  if (given) {
    add(await lookup.search(given, { type: 'project', limit: SEARCHED }));
    add(await lookup.search(given, { limit: SEARCHED }));
    for (const path of pathsNamedBy(lookup.files, given)) paths.add(path);
  }
  const repo = input.repo?.trim();
  if (repo) add(await lookup.search(repo, { type: 'project', limit: SEARCHED }));
  for (const file of lookup.files) if (inProjectsFolder(file.path, layout.projects)) paths.add(file.path);
  const notes = await lookup.notes([...paths].sort(byCodeUnit));
  return findProject(notes, { project: input.project, repo: input.repo, task: input.task }, layout);
}

/** The names of the vault's projects for a message when none matched: those in the projects folders (read for the match already). */
export async function knownProjectNames(lookup: NoteLookup): Promise<string[]> {
  const inFolders = lookup.files.filter((f) => inProjectsFolder(f.path, lookup.vault.layout.projects)).map((f) => f.path);
  const notes = await lookup.notes(inFolders);
  return projectLikeNames(notes, lookup.vault.layout);
}

/**
 * Whether a note sits where a person keeps projects: directly in the projects folder or a folder
 * named Projects, or as a folder's note one level below (`Projects/Heron/Heron.md`, `README.md`).
 */
function inProjectsFolder(path: string, projectsFolder: string): boolean {
  // Most paths fail this at once: the listing is looked through on every start_session.
  if (!(PROJECT_ANYWHERE.test(path) || path.startsWith(`${projectsFolder}/`)) || !path.toLowerCase().endsWith('.md')) return false;
  const parts = path.split('/');
  const isProjects = (i: number) => i >= 0 && (PROJECT_FOLDER.test(parts[i]) || parts.slice(0, i + 1).join('/') === projectsFolder);
  if (parts.length >= 2 && isProjects(parts.length - 2)) return true;
  const base = basenameOf(path).toLowerCase();
  const folder = parts[parts.length - 2]?.toLowerCase();
  return parts.length >= 3 && isProjects(parts.length - 3) && (base === folder || base === 'index' || base === 'readme');
}

/** The files the project argument names by path: the note itself, or the notes directly inside the folder it names. */
function pathsNamedBy(files: readonly VaultFile[], given: string): string[] {
  const asPath = trimEndOf(given.replace(/^\[\[|\]\]$/g, '').replace(/\\/g, '/'), '/').toLowerCase();
  const withMd = asPath.endsWith('.md') ? asPath : `${asPath}.md`;
  const depth = asPath.split('/').length + 1;
  return files
    .filter((f) => {
      const lower = f.path.toLowerCase();
      return lower === withMd || (lower.endsWith('.md') && lower.startsWith(`${asPath}/`) && f.path.split('/').length === depth);
    })
    .map((f) => f.path);
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
