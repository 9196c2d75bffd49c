import { BUDGET_TOKENS, composeNote, DEFAULT_K, formatDate, generateQuestions, readQuestionSet, runEvaluation, writeQuestionSet } from '../vault';
import { ADA, GRACE } from './people';
import { P } from './paths';
import type { DemoRun } from './run';

/** The set the demo generates beside its hand-written one. */
const GENERATED_SET = 'generated';
/** Generated questions at most: enough for intervals per kind, few enough to keep `lucid demo` quick. */
const GENERATED_MAX = 40;

/**
 * A person generates a question set from the vault's typed notes (as `lucid eval generate` does),
 * one commit, then runs the evaluation of every set (as `lucid eval run` does), one commit.
 */
export async function generateAndEvaluate(run: DemoRun, day: number, hour: number, minute: number): Promise<void> {
  run.at(day, hour, minute);
  const generated = await generateQuestions(run.vault, { set: GENERATED_SET, max: GENERATED_MAX });
  if (generated.questions.length === 0) throw new Error('demo script: the generator made no question');
  await writeQuestionSet(run.vault, GENERATED_SET, generated.questions, GRACE);
  run.committed({ actor: GRACE, op: 'eval', path: `${run.vault.layout.evalQuestions}/${GENERATED_SET}.jsonl`, reason: 'generated recall questions' });
  await evaluate(run, GRACE);
}

/**
 * The evaluation run again later, on the vault as it is then, and beside it an example run note of
 * another harness (an LLM answering the hand-written set with and without memory) in the same
 * format, labelled as an example: its figures are not measured.
 */
export async function evaluateAgainWithHarnessExample(run: DemoRun, day: number, hour: number, minute: number): Promise<void> {
  run.at(day, hour, minute);
  const commit = await evaluate(run, ADA);
  const set = setOf(P.questions);
  const path = `${run.vault.layout.evalRuns}/${formatDate(run.time())}-llm-harness-${set}.md`;
  const text = composeNote(
    {
      type: 'eval-run',
      date: formatDate(run.time()),
      question_set: set,
      questions: (await readQuestionSet(run.vault, set)).length,
      vault_commit: commit,
      k: DEFAULT_K,
      budget_tokens: BUDGET_TOKENS,
      'llm-no-memory_answer_containment': 0.0833,
      'llm-with-memory_answer_containment': 0.5833,
      'llm-with-memory_recall_at_5': 0.6667,
    },
    `# Example: another harness's run (figures not measured)

This note shows what a run written by another evaluation harness looks like: an LLM answering the
questions of \`${P.questions}\` with no memory (\`llm-no-memory\`) and with the vault's search as a
tool (\`llm-with-memory\`), in the format of Lucid's run notes. The Evaluation page charts it beside
Lucid's own runs. **Its figures are made up for the demo: no LLM was run.** A real harness writes
its own strategy names and metrics as \`<strategy>_<metric>\` fields; it needs no results file.
`,
  );
  await run.vault.edit({
    actor: ADA,
    op: 'eval',
    path,
    reason: 'example run note of an LLM harness (figures not measured)',
    changes: [{ path, content: text, expectedHash: null }],
  });
  run.committed({ actor: ADA, op: 'eval', path, reason: 'example run note of an LLM harness' });
}

async function evaluate(run: DemoRun, actor: string): Promise<string> {
  // The demo clock stands still during the run: latencies are 0 ms, and the same anchor gives the same bytes.
  const result = await runEvaluation(run.vault, { actor, now: run.time(), timer: () => run.clock().getTime() });
  if (!result.commit || result.runs.length === 0) throw new Error('demo script: the evaluation wrote no run');
  run.committed({ actor, op: 'eval', path: result.runs[0].notePath, reason: `evaluation of ${result.runs.map((r) => r.set).join(', ')}` });
  return result.commit;
}

const setOf = (questionsPath: string) => questionsPath.replace(/^.*\//, '').replace(/\.jsonl$/, '');
