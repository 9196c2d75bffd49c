import type { ActionResult } from '@/lib/actions/result';

/** An action's expected failure as a page shows it: a code to branch on and a sentence to read. */
export class ActionError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ActionError';
  }
}

/** An action's data, or its failure thrown as an {@link ActionError} (so a query or mutation shows it). */
export function unwrapAction<T>(result: ActionResult<T>): T {
  if (result.ok) return result.data;
  // A refused field says why in its own words ("too large to save"); the generic line says less.
  const details = Object.values(result.fieldErrors ?? {})
    .flat()
    .filter((m): m is string => typeof m === 'string');
  throw new ActionError(result.code, details.length > 0 ? details.join(' ') : result.message);
}
