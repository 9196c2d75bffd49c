import { createHash } from 'node:crypto';
import { z } from 'zod';
import { isVaultError, VaultError } from '../errors';
import { normalizeVaultPath } from '../notes/paths';
import type { Vault } from '../vault';
import type { EvalQuestion } from './types';

const nonEmpty = z.string().trim().min(1, 'must not be empty');
/** A gold path, normalized (`./notes/a.md` is `notes/a.md`) so it compares with the corpus's paths. */
const goldPath = z.string().transform((value, ctx) => {
  try {
    return normalizeVaultPath(value);
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `is not a vault path (${isVaultError(error) ? error.message.replace(/\.$/, '') : 'unreadable'})` });
    return z.NEVER;
  }
});

/** One line of a question set, as VAULT-FORMAT's "Evaluation" section writes it. */
const questionSchema = z.object({
  id: nonEmpty,
  question: nonEmpty,
  gold: z.array(goldPath).min(1, 'needs at least one gold note path'),
  answers: z.array(z.string()).default([]),
  kind: nonEmpty,
  split: z.enum(['dev', 'test'], { error: 'must be "dev" or "test"' }),
  template: z.string().optional(),
  paraphrased_with: z.string().optional(),
});

/** A set name as a file name: letters, digits, `.`, `_` and `-`, not starting with a dot. */
const SET_NAME = /^[\p{L}\p{N}_-][\p{L}\p{N}._ -]*$/u;

/**
 * Parses a question set (`evals/questions/<set>.jsonl`: one JSON question a line, blank lines
 * ignored). A bad line is a VaultError (`invalid_input`) naming `source:line` and what is wrong with
 * it; so is an id used twice. `answers` may be left out (no answers). Unknown keys are dropped.
 */
export function parseQuestionSet(text: string, source: string): EvalQuestion[] {
  const questions: EvalQuestion[] = [];
  const lineOfId = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  lines.forEach((raw, index) => {
    const line = raw.trim();
    const at = `${source}:${index + 1}`;
    if (line === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      throw new VaultError(
        'invalid_input',
        `${at}: not a JSON object (${(error as Error).message}). Each line holds one question, e.g. {"id": "q1", "question": "…", "gold": ["notes/a.md"], "answers": [], "kind": "hand", "split": "test"}.`,
        { source, line: index + 1 },
      );
    }
    const parsed = questionSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue.path.length > 0 ? issue.path.join('.') : 'line';
      const what = issue.code === 'invalid_type' && issue.input === undefined ? 'is missing' : issue.message;
      throw new VaultError('invalid_input', `${at}: ${field} ${what}.`, { source, line: index + 1, field });
    }
    const q = parsed.data;
    const earlier = lineOfId.get(q.id);
    if (earlier !== undefined)
      throw new VaultError('invalid_input', `${at}: the id "${q.id}" is already used on line ${earlier}; every question needs its own id.`, {
        source,
        line: index + 1,
        field: 'id',
      });
    lineOfId.set(q.id, index + 1);
    questions.push(q);
  });
  return questions;
}

/**
 * A question set as a file: one JSON object a line, keys in VAULT-FORMAT's order (id, question,
 * gold, answers, kind, split, then Lucid's template and paraphrased_with when set), ending with a
 * line break.
 */
export function serializeQuestionSet(questions: EvalQuestion[]): string {
  return questions
    .map((q) =>
      JSON.stringify({
        id: q.id,
        question: q.question,
        gold: q.gold,
        answers: q.answers,
        kind: q.kind,
        split: q.split,
        template: q.template,
        paraphrased_with: q.paraphrased_with,
      }),
    )
    .map((line) => `${line}\n`)
    .join('');
}

/** The vault path of a question set, after checking its name. */
export function questionSetPath(vault: Pick<Vault, 'layout'>, set: string): string {
  if (!SET_NAME.test(set)) throw new VaultError('invalid_input', `"${set}" is not a question set name: use letters, digits, ".", "_" and "-".`);
  return `${vault.layout.evalQuestions}/${set}.jsonl`;
}

/** The names of the vault's question sets (`<evalQuestions>/<set>.jsonl`, without `.jsonl`), sorted. */
export async function listQuestionSets(vault: Vault): Promise<string[]> {
  const folder = `${vault.layout.evalQuestions}/`;
  return (await vault.listFiles())
    .map((f) => f.path)
    .filter((p) => p.startsWith(folder) && p.endsWith('.jsonl') && !p.slice(folder.length).includes('/'))
    .map((p) => p.slice(folder.length, -'.jsonl'.length))
    .filter((name) => SET_NAME.test(name))
    .sort();
}

/** Reads and parses one question set; a missing set is `not_found`, saying how to make one. */
export async function readQuestionSet(vault: Vault, set: string): Promise<EvalQuestion[]> {
  const path = questionSetPath(vault, set);
  let bytes: Buffer;
  try {
    bytes = await vault.readFileBytes(path);
  } catch (error) {
    if (!isVaultError(error, 'not_found')) throw error;
    const sets = await listQuestionSets(vault);
    throw new VaultError(
      'not_found',
      `There is no question set "${set}" (${path})${sets.length ? `; the sets are ${sets.join(', ')}` : ''}. Make one with \`lucid eval generate --set ${set}\`, or write ${path} by hand, one JSON question a line.`,
    );
  }
  return parseQuestionSet(bytes.toString('utf8'), path);
}

/** The split a question belongs to: half and half by a hash of `seed` and its id, the same every time. */
export function splitFor(id: string, seed = ''): 'dev' | 'test' {
  const byte = createHash('sha256').update(`${seed}\u0000${id}`).digest()[0];
  return byte % 2 === 0 ? 'dev' : 'test';
}
