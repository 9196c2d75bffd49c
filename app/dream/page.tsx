import { ComingSoon } from '@/components/coming-soon';

export default function DreamPage() {
  return (
    <ComingSoon
      title="Dream"
      will={[
        'Skills that duplicate each other, skills unused for a long time, inconsistent fields',
        'Each proposed change of a dream pass as a reviewable commit on its own branch',
        'Merging the pass whole or change by change',
      ]}
    />
  );
}
