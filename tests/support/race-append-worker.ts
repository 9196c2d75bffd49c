/**
 * A writer process for catalog #38 (tests/integration/race-appends.spec.ts). Usage:
 *   node --import tsx tests/support/race-append-worker.ts <root> <worker> <count> <seed> <go-file> <shared-note> <other-note>...
 * Opens the vault, writes <go-file>.ready-<worker>, waits until <go-file> exists (the start
 * barrier), then, <count> times, appends one uniquely tagged line to <shared-note> and one to the
 * next of the other notes, each as its own edit computed under the vault lock (as an MCP append
 * without expected_hash is). An error is counted by its code, never retried, and the worker goes
 * on. Prints a JSON summary on stdout: appended, commits, and errors by code.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { isVaultError } from '../../lib/vault/errors';
import { seededIds } from '../../lib/vault/ids';
import { openVault } from '../../lib/vault/vault';

const [root, worker, countText, seedText, goFile, shared, ...others] = process.argv.slice(2);
const count = Number(countText);

/** The line a worker appends to `target` the i-th time (the test expects exactly this shape). */
function tagOf(workerId: string, i: number, target: 'shared' | 'other'): string {
  return `tag-${workerId}-${target}-${String(i).padStart(5, '0')}`;
}

async function main(): Promise<void> {
  const vault = await openVault({ root, env: process.env, ids: seededIds(Number(seedText)) });
  writeFileSync(`${goFile}.ready-${worker}`, '');
  while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 5));
  let appended = 0;
  const commits: string[] = [];
  const errors: Record<string, number> = {};
  const append = async (note: string, line: string) => {
    try {
      const result = await vault.edit({
        actor: `agent:worker-${worker}`,
        op: 'append',
        path: note,
        reason: `append ${line}`,
        changes: [{ path: note, content: (now) => `${now?.text ?? ''}${line}\n` }],
      });
      commits.push(result.commit);
      appended += 1;
    } catch (error) {
      const code = isVaultError(error) ? error.code : ((error as NodeJS.ErrnoException).code ?? 'thrown');
      errors[code] = (errors[code] ?? 0) + 1;
      process.stderr.write(`${worker}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  };
  for (let i = 0; i < count; i += 1) {
    await append(shared, tagOf(worker, i, 'shared'));
    await append(others[i % others.length], tagOf(worker, i, 'other'));
  }
  vault.close();
  process.stdout.write(`${JSON.stringify({ worker, appended, commits, errors })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
  process.exit(1);
});
