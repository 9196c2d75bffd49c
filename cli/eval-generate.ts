import { DEFAULT_GENERATED_SET, DEFAULT_MAX_QUESTIONS, generateQuestions, questionSetPath, writeQuestionSet } from '../lib/vault/index';
import { openCliVault, printJson, UsageError, type Io } from './shared';

/** `lucid eval generate`'s help text. */
export const evalGenerateUsage =
  'lucid eval generate [--vault DIR] [--set NAME] [--max N] [--json]\n\n' +
  '  Derives recall questions from the vault, with no LLM, each with its gold notes and answers:\n' +
  '  from typed notes (what replaced a decision, what a project decided about a topic, who owns a\n' +
  '  project, which session last worked on something, which skill applies when, person → project\n' +
  '  → decision), and from the headings and link contexts of other notes. A question that holds\n' +
  "  its gold note's title, an alias or its answer is reworded (WordNet) or refused. Writes\n" +
  '  evals/questions/<set>.jsonl, half dev and half test, as one commit (op eval), replacing a set of\n' +
  '  that name. Hand-written sets in other files are left alone.\n\n' +
  `  --set NAME  the set's name (default ${DEFAULT_GENERATED_SET})\n` +
  `  --max N     questions at most (default ${DEFAULT_MAX_QUESTIONS}), shared out between templates\n` +
  '  --json      print the counts, the questions and every refused question with why';

type Values = Record<string, string | boolean | undefined>;

/** The options `eval generate` adds to the `eval` verb's (main.ts parses them; --vault, --set and --json are shared). */
export const evalGenerateOptions = { max: { type: 'string' as const } };

const OWN_OPTIONS = new Set(['vault', 'set', 'json', 'help', ...Object.keys(evalGenerateOptions)]);

/**
 * `lucid eval generate`: derives a question set and commits it; `values` are the `eval` verb's
 * parsed flags, `args` what follows the sub-verb (nothing).
 */
export async function evalGenerate(io: Io, values: Values, args: string[] = []): Promise<number> {
  const foreign = Object.keys(values).find((key) => values[key] !== undefined && !OWN_OPTIONS.has(key));
  if (foreign) throw new UsageError(`eval generate does not take --${foreign}`, 'its options are --vault, --set, --max and --json');
  if (args.length > 0) throw new UsageError(`eval generate takes no arguments, not "${args[0]}"`, 'name the set with --set');
  if (typeof values.set === 'string' && values.set.includes(',')) throw new UsageError('eval generate writes one set: give one name to --set');
  let max: number | undefined;
  if (values.max !== undefined) {
    max = typeof values.max === 'string' && /^\d+$/.test(values.max) ? Number(values.max) : Number.NaN;
    if (!Number.isInteger(max) || max < 1) throw new UsageError(`--max must be a whole number of questions, 1 or more, not "${String(values.max)}"`);
  }
  const set = typeof values.set === 'string' ? values.set : DEFAULT_GENERATED_SET;
  const vault = await openCliVault(io, values.vault as string | undefined);
  try {
    const path = questionSetPath(vault, set);
    const generated = await generateQuestions(vault, { set, max });
    const written = generated.questions.length > 0 ? await writeQuestionSet(vault, set, generated.questions, vault.person) : null;
    const refusedWhy = new Map<string, number>();
    for (const r of generated.refused) {
      const key = r.why.replace(/"[^"]*"/, '"…"');
      refusedWhy.set(key, (refusedWhy.get(key) ?? 0) + 1);
    }
    if (values.json) {
      printJson(io, {
        set,
        path,
        questions: generated.questions.length,
        byTemplate: generated.byTemplate,
        dev: generated.questions.filter((q) => q.split === 'dev').length,
        test: generated.questions.filter((q) => q.split === 'test').length,
        capped: generated.capped,
        skipped: generated.skipped,
        unparsed: generated.unparsed,
        refused: generated.refused,
        commit: written?.commit ?? null,
        editId: written?.editId ?? null,
        unchanged: generated.questions.length > 0 && written === null,
        list: generated.questions,
      });
      return generated.questions.length > 0 ? 0 : 1;
    }
    if (generated.questions.length === 0) {
      io.err(
        `lucid: no questions could be made from this vault (${generated.refused.length} refused as giving their answer away). ` +
          `Add headings or links between notes, or write a set by hand in ${path} (one JSON question a line).`,
      );
      return 1;
    }
    const counts = Object.entries(generated.byTemplate).filter(([, n]) => n > 0);
    io.out(`${generated.questions.length} questions: ${counts.map(([t, n]) => `${n} ${t}`).join(', ')}.`);
    const dev = generated.questions.filter((q) => q.split === 'dev').length;
    io.out(`Split: ${dev} dev, ${generated.questions.length - dev} test.`);
    const paraphrased = generated.questions.filter((q) => q.paraphrased_with).length;
    if (paraphrased > 0) io.out(`${paraphrased} reworded with the thesaurus so they do not give their answer away.`);
    if (generated.refused.length > 0) {
      io.out(`${generated.refused.length} refused: ${[...refusedWhy].map(([why, n]) => `${n} ${why}`).join('; ')} (--json lists them).`);
    }
    if (generated.capped > 0) io.out(`${generated.capped} more left out so that no kind of question swamps the set (raise --max for more).`);
    const skipped = generated.skipped.length;
    if (skipped > 0) io.out(`${skipped} ${skipped === 1 ? 'note' : 'notes'} skipped: not text, or too large to read.`);
    const unparsed = generated.unparsed.length;
    if (unparsed > 0) {
      io.out(
        `${unparsed} ${unparsed === 1 ? 'note' : 'notes'} with front matter that does not parse: asked about from headings and links only (lucid lint shows why).`,
      );
    }
    if (written) io.out(`Wrote ${path} (commit ${written.commit.slice(0, 7)}, edit ${written.editId}).`);
    else io.out(`${path} already holds this set; nothing changed, no commit.`);
    io.out(`Next: lucid eval run --vault ${vault.root} --set ${set}`);
    return 0;
  } finally {
    vault.close();
  }
}
