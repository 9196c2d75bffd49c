import { oneLine } from '../git/changelog';
import { VaultError } from '../errors';
import { type FrontmatterData } from '../notes/frontmatter';
import { maskSecrets } from '../write/secrets';
import { observationTime, observeSession } from './sessions';
import { matchProject, notePathFromInput, projectNames } from './session-context';
import { type Vault } from '../vault';
import { requireText } from './common';

/** What `read_note` returns. */
export interface ReadNoteResult {
  path: string;
  title: string;
  type: string | null;
  frontmatter: FrontmatterData;
  body: string;
  /** sha256 of the file's bytes: pass it as expected_hash when writing. */
  hash: string;
  links: { raw: string; target: string; resolved: string | null }[];
  backlinks: { from: string; line: number }[];
  problem: string | null;
  violations: { field: string; message: string }[];
}

/** Reads a note for an agent, with its hash, outgoing links (resolved) and backlinks; records the read. Writes nothing. */
export async function readNoteForAgent(vault: Vault, path: string, observeIn: readonly string[] = []): Promise<ReadNoteResult> {
  const note = await vault.readNote(notePathFromInput(requireText(path, 'path', 1024)));
  const links = await vault.resolveLinks(note);
  const backlinks = await vault.backlinks(note.path);
  const at = observationTime(vault);
  const isSkill = note.lucidType === 'skill' || note.path.startsWith(`${vault.layout.skills}/`);
  for (const id of observeIn) observeSession(vault, id, { kind: isSkill ? 'skill' : 'read', path: note.path, at });
  return {
    path: note.path,
    title: note.title,
    type: note.type,
    frontmatter: note.frontmatter,
    body: note.problem && note.problem !== 'invalid_frontmatter' ? '' : note.body,
    hash: note.hash,
    links: links.map(({ link, resolved }) => ({ raw: link.raw, target: link.target, resolved })),
    backlinks: backlinks.map((b) => ({ from: b.from, line: b.line })),
    problem: note.problem ? `${note.problem}: ${note.problemMessage}` : null,
    violations: note.violations.map((v) => ({ field: v.field, message: v.message })),
  };
}

/** Input of {@link searchNotes}. */
export interface SearchNotesInput {
  query: string;
  type?: string;
  /** A project's name or path. */
  project?: string;
  /** Only notes under this folder. */
  folder?: string;
  /** Also search the changelog, the inbox and evaluations. */
  includeSystem?: boolean;
  limit?: number;
}

/** What `search_notes` returns. */
export interface SearchNotesResult {
  query: string;
  project: string | null;
  results: { path: string; title: string; type: string | null; score: number; snippet: string }[];
}

/** Ranked notes with snippets for a question; records the query. */
export async function searchNotes(vault: Vault, input: SearchNotesInput, observeIn: readonly string[] = []): Promise<SearchNotesResult> {
  const query = requireText(input.query, 'query', 500);
  let project: string | null = null;
  if (input.project) {
    const notes = await vault.listNotes();
    const match = matchProject(notes, { project: input.project });
    if (!match) {
      throw new VaultError('not_found', `No project note matches "${input.project}". Known projects: ${projectNames(notes).join(', ') || 'none'}.`, { field: 'project' });
    }
    project = match.note.path;
  }
  const hits = await vault.search(query, {
    type: input.type || undefined,
    project: project ?? undefined,
    folder: input.folder || undefined,
    includeSystem: input.includeSystem,
    limit: input.limit,
  });
  const at = observationTime(vault);
  const recorded = maskSecrets(oneLine(query, 200)).text;
  for (const id of observeIn) observeSession(vault, id, { kind: 'search', query: recorded, at });
  return { query, project, results: hits.map((h) => ({ path: h.path, title: h.title, type: h.type, score: Math.round(h.score * 1000) / 1000, snippet: h.snippet })) };
}
