import type { ReactNode } from 'react';

/**
 * "The numbers behind the chart": the table under a chart that says in text what the chart draws,
 * folded when it would be long. `children` are the table's sections (thead, tbody, tfoot).
 */
export function ChartNumbers({ open, testId, caption, children }: { open: boolean; testId: string; caption: ReactNode; children: ReactNode }) {
  return (
    <details className="mt-3 text-sm" open={open}>
      <summary className="cursor-pointer text-stone-600">The numbers behind the chart</summary>
      <div className="mt-2 overflow-x-auto">
        <table className="w-full text-sm" data-testid={testId}>
          <caption className="sr-only">{caption}</caption>
          {children}
        </table>
      </div>
    </details>
  );
}
