import { queryOptions } from '@tanstack/react-query';
import { evalJobStatusAction, evalMissedAction, startEvalRunAction } from '@/lib/actions/eval';
import { unwrapAction } from '@/lib/queries/action-error';

/** How often a running evaluation's progress is asked for. */
const EVAL_POLL_MS = 1_000;

/** A run started from the page, as its status comes back. */
export type EvalJobData = NonNullable<Extract<Awaited<ReturnType<typeof evalJobStatusAction>>, { ok: true }>['data']>;

/** The keys of the evaluation page's queries. */
export const evalKeys = {
  all: ['eval'] as const,
  job: ['eval', 'job'] as const,
  missed: (run: string, strategy: string) => ['eval', 'missed', run, strategy] as const,
};

/** The evaluation job's status; polled while `polling` (a run is going), else read once. */
export function evalJobOptions(polling: boolean) {
  return queryOptions({
    queryKey: evalKeys.job,
    queryFn: async () => unwrapAction(await evalJobStatusAction({})),
    refetchInterval: polling ? EVAL_POLL_MS : false,
    refetchOnWindowFocus: false,
  });
}

/** A strategy's missed questions; a run's results never change, so they are fetched once. */
export function evalMissedOptions(run: string, strategy: string) {
  return queryOptions({
    queryKey: evalKeys.missed(run, strategy),
    queryFn: async () => unwrapAction(await evalMissedAction({ run, strategy })),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Starts an evaluation (or returns the running one); throws an ActionError on an expected failure. */
export async function startEvalRun(): Promise<{ job: EvalJobData; started: boolean }> {
  return unwrapAction(await startEvalRunAction({}));
}

export type { EvalFigure, EvalKindRow, EvalLinePoint, EvalRunChoice, EvalSeries, EvalStrategyBar } from '@/lib/server/data-eval';
