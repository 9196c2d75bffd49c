import { VaultError } from '../../errors';
import { hashBytes } from '../../notes/frontmatter';
import type { Vault } from '../../vault';
import type { EditResult } from '../../write/edit-types';
import { parseQuestionSet, questionSetPath, serializeQuestionSet } from '../questions';
import type { EvalQuestion } from '../types';

/**
 * Writes a question set to `evals/questions/<set>.jsonl` as `actor`: ONE edit (op `eval`) through
 * the write path, replacing a set of that name as a whole. The write names the hash of the file
 * as it was read (null when absent), so a set changed meanwhile is a `conflict` and nothing is
 * overwritten; a person's uncommitted version is committed as theirs first by the write path.
 * Questions that would not read back (`parseQuestionSet`) are refused before anything is written.
 * Returns null, and commits nothing, when the file already holds exactly this set.
 */
export async function writeQuestionSet(vault: Vault, set: string, questions: EvalQuestion[], actor: string): Promise<EditResult | null> {
  const path = questionSetPath(vault, set);
  if (questions.length === 0) {
    throw new VaultError('invalid_input', `No questions to write to ${path}: a set needs at least one question.`, { field: 'questions' });
  }
  const text = serializeQuestionSet(questions);
  // What is written must read back: a bad question (a duplicate id, an empty gold list) is refused here, not at run time.
  parseQuestionSet(text, path);
  let current: Buffer | null = null;
  try {
    current = await vault.readFileBytes(path);
  } catch (error) {
    if (!(error instanceof VaultError && error.code === 'not_found')) throw error;
  }
  if (current?.toString('utf8') === text) return null;
  const kinds = new Map<string, number>();
  for (const q of questions) kinds.set(q.template ?? q.kind, (kinds.get(q.template ?? q.kind) ?? 0) + 1);
  const detail = [...kinds].map(([k, n]) => `${n} ${k}`).join(', ');
  return vault.edit({
    actor,
    op: 'eval',
    path,
    reason: `${current ? 'regenerated' : 'generated'} question set ${set}: ${questions.length} questions (${detail})`,
    changes: [{ path, content: text, expectedHash: current ? hashBytes(current) : null }],
  });
}
