/**
 * An agent's writer in another process, for the sync's lock test. Usage:
 *   node --import tsx tests/support/sync-edit-worker.ts <root> <note> <expected-hash> <go-file>
 * Opens the vault, writes <go-file>.ready, waits for <go-file> (the start barrier), writes
 * <go-file>.trying and then makes two edits of <note>: one with <expected-hash> (the hash it read
 * before the sync), one appending a line to whatever the note is then. Prints a JSON summary.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { isVaultError } from '../../lib/vault/errors';
import { seededIds } from '../../lib/vault/ids';
import { openVault } from '../../lib/vault/vault';

const [root, note, expectedHash, goFile] = process.argv.slice(2);

async function main(): Promise<void> {
  const vault = await openVault({ root, env: process.env, ids: seededIds(991) });
  writeFileSync(`${goFile}.ready`, '');
  while (!existsSync(goFile)) await new Promise((resolve) => setTimeout(resolve, 5));
  writeFileSync(`${goFile}.trying`, '');
  let stale: string;
  try {
    await vault.edit({ actor: 'agent:worker', op: 'update', path: note, reason: 'stale', changes: [{ path: note, content: '# Overwritten\n', expectedHash }] });
    stale = 'written';
  } catch (error) {
    stale = isVaultError(error) ? error.code : String(error);
  }
  const appended = await vault.edit({
    actor: 'agent:worker',
    op: 'append',
    path: note,
    reason: 'append',
    changes: [{ path: note, content: (current) => `${current?.text ?? ''}appended by the worker\n` }],
  });
  await vault.close();
  process.stdout.write(JSON.stringify({ stale, commit: appended.commit }));
}

main().catch((error) => {
  process.stderr.write(String(error?.stack ?? error));
  process.exit(1);
});
