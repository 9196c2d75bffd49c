import type { VaultErrorCode } from '@/lib/vault';

/** What every server action returns: data, or a typed code and a sentence for the person. */
export type ActionResult<T> =
  | { ok: true; data: T }
  | { ok: false; code: VaultErrorCode | 'forbidden'; message: string; fieldErrors?: Record<string, string[] | undefined> };

/** An action's data, or its expected failure thrown so a query shows it (isError); the message is the person's sentence. */
export function unwrap<T>(result: ActionResult<T>): T {
  if (!result.ok) throw new Error(result.message);
  return result.data;
}
