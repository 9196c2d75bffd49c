import { appendFileSync } from 'node:fs';

/**
 * Race and crash tests run at two scales: a CI scale in `npm test`, and the catalog's scale in
 * `npm run test:stress` (which sets LUCID_STRESS=1). Each test reports its figures with
 * {@link reportFigure}; the stress runner prints them and they go into SECURITY.md.
 */
export const STRESS = process.env.LUCID_STRESS === '1';

/** `ci` in `npm test`, `full` under `npm run test:stress`. */
export function scale(ci: number, full: number): number {
  return STRESS ? full : ci;
}

/** How long a test at this scale may take (ms): generous under stress, where runs take minutes. */
export function stressTimeout(ciMs: number): number {
  return STRESS ? ciMs * 20 : ciMs;
}

/**
 * Records one figure of a race or crash test (e.g. `{ test: '#16 symlink flips', name: 'files outside', value: 0 }`):
 * printed now, and appended as a JSON line to LUCID_STRESS_REPORT when the stress runner set it.
 */
export function reportFigure(test: string, name: string, value: number | string): void {
  const line = JSON.stringify({ test, name, value, scale: STRESS ? 'stress' : 'ci' });
  console.log(`[figure] ${test}: ${name} = ${value}`);
  const file = process.env.LUCID_STRESS_REPORT;
  if (file) appendFileSync(file, `${line}\n`);
}
