import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isVaultError, VaultError } from '../../lib/vault';
import { errorReply } from './reply';

/**
 * The calls a server runs: each tool's handler wrapped so that an expected failure is an error reply,
 * a bug is logged and told as one, and a server that closes refuses new calls and waits for running ones.
 */
export function toolCalls(log: (message: string) => void) {
  const running = new Set<Promise<unknown>>();
  let closing = false;

  function tool<A>(name: string, handler: (args: A) => Promise<CallToolResult>): (args: A) => Promise<CallToolResult> {
    return (args: A) => {
      if (closing) return Promise.resolve(errorReply(new VaultError('locked', 'The Lucid server is shutting down; nothing was done.')));
      const call = (async () => {
        try {
          return await handler(args);
        } catch (error) {
          if (isVaultError(error)) return errorReply(error);
          log(`${name} failed: ${(error as Error)?.stack ?? String(error)}`);
          return errorReply(
            new VaultError(
              'io_error',
              `Lucid could not finish ${name}: ${(error as Error)?.message ?? String(error)}. Nothing was committed by this call; try again.`,
            ),
          );
        }
      })();
      running.add(call);
      void call.finally(() => running.delete(call));
      return call;
    };
  }

  /** Refuses every later call, then waits for the running ones. */
  const close = async (): Promise<void> => {
    closing = true;
    await Promise.allSettled([...running]);
  };
  return { tool, close };
}
