import { oneLine } from '../text';
import { VaultError } from '../errors';
import { maskSecrets } from '../write/secrets';
import { observationTime, observeSession } from './sessions';
import { matchProject, projectNames } from './session-context';
import type { Vault } from '../vault';
import { parseInput } from './contract';
import { searchNotesOptionsSchema, type SearchNotesResult } from './contract-read';
import type { z } from 'zod';

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
