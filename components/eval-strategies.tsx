'use client';

import { useEffect, useState } from 'react';
import { EvalMissed } from '@/components/eval-missed';
import { EvalStrategyChart } from '@/components/eval-strategy-chart';
import type { EvalStrategyBar } from '@/lib/queries/eval';

/** The strategy chart and, for the strategy picked there (kept in the URL), the questions it missed. */
export function EvalStrategies({
  bars,
  metricName,
  metricNames,
  initialStrategy,
}: {
  bars: EvalStrategyBar[];
  metricName: string;
  metricNames: Record<string, string>;
  initialStrategy: string | null;
}) {
  const [strategy, setStrategy] = useState<string | null>(initialStrategy);
  const bar = bars.find((b) => b.strategy === strategy) ?? null;

  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    if (bar) params.set('strategy', bar.strategy);
    else params.delete('strategy');
    const url = `${window.location.pathname}${params.size > 0 ? `?${params}` : ''}`;
    if (url !== `${window.location.pathname}${window.location.search}`) window.history.replaceState(window.history.state, '', url);
  }, [bar]);

  return (
    <>
      <EvalStrategyChart bars={bars} metricName={metricName} metricNames={metricNames} selected={bar?.strategy ?? null} onSelect={setStrategy} />
      {bar ? <EvalMissed key={`${bar.run}:${bar.strategy}`} run={bar.run} strategy={bar.strategy} label={bar.label} perQuestion={bar.perQuestion} /> : null}
    </>
  );
}
