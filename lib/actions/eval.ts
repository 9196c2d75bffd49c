'use server';

import { z } from 'zod';
import { gatedAction } from '@/lib/server/action';
import { fetchMissedQuestions } from '@/lib/server/data-eval';
import { evalJobStatus, startEvalJob } from '@/lib/server/eval-jobs';
import { getVault } from '@/lib/server/vault';

// A run is named by its note's vault path, only ever compared with the run notes there are.
const runSchema = z
  .string()
  .min(1, { error: 'Which run? The path of its note is missing.' })
  .max(1000, { error: 'That is not the path of a run note.' })
  .regex(/\.md$/, { error: 'A run is named by the path of its note (…/YYYY-MM-DD-HHMM-<set>.md).' });
const strategySchema = z.string().regex(/^[a-z0-9-]{1,64}$/, { error: 'A strategy is a slug of a-z, 0-9 and -.' });

/** Starts an evaluation of every question set as the person (one commit when it ends); while one runs, returns that one. */
export const startEvalRunAction = gatedAction(z.strictObject({}), async () => {
  const vault = await getVault();
  return startEvalJob(vault, vault.person);
});

/** The running evaluation's progress, or how the last one ended; null when none was started. */
export const evalJobStatusAction = gatedAction(z.strictObject({}), async () => evalJobStatus(await getVault()));

/** The questions a strategy missed in a run, with gold and what it retrieved instead. */
export const evalMissedAction = gatedAction(z.strictObject({ run: runSchema, strategy: strategySchema }), ({ run, strategy }) =>
  fetchMissedQuestions(run, strategy),
);
