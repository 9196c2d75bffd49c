import { ComingSoon } from '@/components/coming-soon';

export default function EvaluationPage() {
  return (
    <ComingSoon
      title="Evaluation"
      will={[
        'Recall with no memory against recall with memory, per strategy',
        'Every evaluation run, with its questions and results',
        'Which questions each strategy got wrong',
      ]}
    />
  );
}
