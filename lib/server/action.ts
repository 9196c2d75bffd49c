import 'server-only';
import { z } from 'zod';
import type { ActionResult } from '@/lib/actions/result';
import { isVaultError } from '@/lib/vault';
import { checkCurrentRequest } from './gate';

/**
 * The one way to make a server action: the request gate (Host, Origin, token cookie) runs first,
 * then the input is validated with `schema`; expected failures come back as `ok: false` with a
 * code, bugs are thrown. No action can skip the gate.
 */
export function gatedAction<S extends z.ZodType, T>(schema: S, run: (input: z.output<S>) => Promise<T>): (input: z.input<S>) => Promise<ActionResult<T>> {
  return async (input: z.input<S>): Promise<ActionResult<T>> => {
    const verdict = await checkCurrentRequest('POST');
    if (!verdict.ok) return { ok: false, code: 'forbidden', message: verdict.reason };
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      const flat = z.flattenError(parsed.error);
      return {
        ok: false,
        code: 'invalid_input',
        message: 'Check the highlighted fields.',
        fieldErrors: flat.fieldErrors as Record<string, string[] | undefined>,
      };
    }
    try {
      return { ok: true, data: await run(parsed.data) };
    } catch (error) {
      if (isVaultError(error)) return { ok: false, code: error.code, message: error.message };
      throw error;
    }
  };
}
