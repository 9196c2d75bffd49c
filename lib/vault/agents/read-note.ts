import { observationTime, observeSession } from './sessions';
import { notePathFromInput } from './session-context';
import type { Vault } from '../vault';
import { parseInput, readNoteInputSchema, type ReadNoteResult } from './contract';

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
