import Link from 'next/link';
import { EvalEmpty } from '@/components/eval-empty';
import { EvalKindChart } from '@/components/eval-kind-chart';
import { EvalRunButton } from '@/components/eval-run-button';
import { EvalRunPicker } from '@/components/eval-run-picker';
import { EvalRunsChart } from '@/components/eval-runs-chart';
import { EvalStrategies } from '@/components/eval-strategies';
import { PageHeader } from '@/components/page-header';
import { noteHref } from '@/lib/markdown/hrefs';
import { fetchEvaluation } from '@/lib/server/data-eval';

export default async function EvaluationPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const view = await fetchEvaluation(await searchParams);
  const metricNames = Object.fromEntries(view.metricChoices.map((m) => [m.metric, m.label]));
  const metricName = metricNames[view.metric];
  const { selected } = view;
  return (
    <div>
      <PageHeader
        title="Evaluation"
        description="Does memory help agents find what they need? Each run asks your question sets with no memory at all and with each retrieval strategy, and scores whether the notes that answer each question come back. No LLM is involved."
      >
        {view.sets.length > 0 ? <EvalRunButton /> : null}
      </PageHeader>
      {view.problem ? (
        <p role="alert" className="mb-4 rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
          {view.problem}
        </p>
      ) : null}
      {view.sets.length === 0 || view.runs.length === 0 ? (
        <div className="mb-6">
          <EvalEmpty hasSets={view.sets.length > 0} questionsFolder={view.questionsFolder} vaultRoot={view.vaultRoot} />
        </div>
      ) : null}
      {selected ? (
        <>
          <EvalRunPicker runs={view.runs} selected={selected.path} metric={view.metric} metricChoices={view.metricChoices} />
          <p className="mb-4 text-sm text-stone-600" data-testid="eval-run-summary">
            Set <strong>{selected.set}</strong>, {selected.questions} questions, k = {selected.k}, run {selected.when}
            {selected.harness === 'other' ? ' by another harness' : ''}.{' '}
            <Link href={noteHref(selected.path)} className="text-blue-800 underline">
              Its run note
            </Link>
          </p>
          <EvalStrategies
            key={`${selected.path}:${view.metric}`}
            bars={view.bars}
            metricName={metricName}
            metricNames={metricNames}
            initialStrategy={view.strategy}
          />
          <div className="mt-6 grid gap-4 xl:grid-cols-2">
            <EvalRunsChart set={selected.set} metricName={metricName} series={view.lines.series} points={view.lines.points} />
            <EvalKindChart metricName={metricName} series={view.kinds.series} rows={view.kinds.rows} />
          </div>
        </>
      ) : null}
    </div>
  );
}
