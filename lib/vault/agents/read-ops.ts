import { oneLine } from '../git/changelog';
import { VaultError } from '../errors';
import { maskSecrets } from '../write/secrets';
import { observationTime, observeSession } from './sessions';
import { matchProject, notePathFromInput, projectNames } from './session-context';
import type { Vault } from '../vault';
import { parseInput, readNoteInputSchema, searchNotesOptionsSchema, type ReadNoteResult, type SearchNotesResult } from './contract';
import type { z } from 'zod';

/** Reads a note for an agent, with its hash, outgoing links (resolved) and backlinks; records the read. Writes nothing. */
export async function readNoteForAgent(vault: Vault, path: string, observeIn: readonly string[] = []): Promise<ReadNoteResult> {
  const input = parseInput(readNoteInputSchema, { path });
  const note = await vault.readNote(notePathFromInput(input.path));
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

/** Input of {@link searchNotes}: the tool's input, and the folder and system-note options of the CLI and the dashboard. */
export type SearchNotesInput = z.input<typeof searchNotesOptionsSchema>;

/** Ranked notes with snippets for a question, best first, whole words only; records the query. */
export async function searchNotes(vault: Vault, given: SearchNotesInput, observeIn: readonly string[] = []): Promise<SearchNotesResult> {
  const input = parseInput(searchNotesOptionsSchema, given);
  const query = input.query;
  let project: string | null = null;
  if (input.project) {
    const notes = await vault.listNotes();
    const match = matchProject(notes, { project: input.project });
    if (!match) {
      throw new VaultError('not_found', `No project note matches "${input.project}". Known projects: ${projectNames(notes).join(', ') || 'none'}.`, {
        field: 'project',
      });
    }
    project = match.note.path;
  }
  const hits = await vault.search(query, {
    type: input.type || undefined,
    project: project ?? undefined,
    folder: input.folder || undefined,
    includeSystem: input.includeSystem,
    limit: input.limit,
    // Agents and the CLI ask in whole words: "reps" must not find "repo".
    prefix: false,
  });
  const at = observationTime(vault);
  const recorded = maskSecrets(oneLine(query, 200)).text;
  for (const id of observeIn) observeSession(vault, id, { kind: 'search', query: recorded, at });
  return {
    query,
    project,
    results: hits.map((h) => ({ path: h.path, title: h.title, type: h.type, score: Math.round(h.score * 1000) / 1000, snippet: h.snippet })),
  };
}
