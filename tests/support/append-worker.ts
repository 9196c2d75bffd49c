/**
 * A writer process for the multi-process stress test. Usage:
 *   node --import tsx tests/support/append-worker.ts <root> <note> <worker> <count> <seed> <go-file>
 * Opens the vault, writes <go-file>.ready-<worker>, waits until <go-file> exists (the start
 * barrier), then appends <count> unique tokens to <note>, one edit each: read, append, edit with
 * the hash it read, and read again on a conflict.
 * Prints a JSON summary on stdout; exits non-zero on any other error.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { isVaultError } from '../../lib/vault/errors';
import { seededIds } from '../../lib/vault/ids';
import { openVault } from '../../lib/vault/vault';

const [root, note, worker, countText, seedText, goFile] = process.argv.slice(2);
const count = Number(countText);
const MAX_ATTEMPTS = 1000;

/** The token a worker appends as its i-th line (the stress test expects exactly this shape). */
function tokenOf(workerId: string, i: number): string {
  return `token-${workerId}-${String(i).padStart(4, '0')}`;
}

async function main(): Promise<void> {
  const vault = await openVault({ root, env: process.env, ids: seededIds(Number(seedText)) });
  writeFileSync(`${goFile}.ready-${worker}`, '');
  while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 5));
  let conflicts = 0;
  const commits: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const token = tokenOf(worker, i);
    for (let attempt = 1; ; attempt += 1) {
      const current = await vault.readNote(note);
      try {
        const result = await vault.edit({
          actor: `agent:worker-${worker}`,
          op: 'append',
          path: note,
          reason: `append ${token}`,
          changes: [{ path: note, content: `${current.text ?? ''}${token}\n`, expectedHash: current.hash }],
        });
        commits.push(result.commit);
        break;
      } catch (error) {
        if (isVaultError(error, 'conflict') && attempt < MAX_ATTEMPTS) {
          conflicts += 1;
          continue;
        }
        throw error;
      }
    }
  }
  vault.close();
  process.stdout.write(`${JSON.stringify({ worker, appended: count, conflicts, commits })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
  process.exit(1);
});
