import type { VaultErrorCode } from '@/lib/vault';

/** What every server action returns: data, or a typed code and a sentence for the person. */
export type ActionResult<T> =
  | { ok: true; data: T }
  | { ok: false; code: VaultErrorCode | 'forbidden'; message: string; fieldErrors?: Record<string, string[] | undefined> };
