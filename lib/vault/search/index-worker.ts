/**
 * The search index's parsing thread (node:worker_threads): gets batches of files (their bytes in one
 * transferred buffer) and sends back what the index stores of each (see `index-pool.ts`). It has no
 * state and touches no file: reading and every SQLite write stay in the thread that owns the vault.
 */
import { parentPort } from 'node:worker_threads';
import { parseForIndex, type ParsedForIndex } from './index-parse';
import type { ParseBatch } from './index-pool';

parentPort?.on('message', (batch: ParseBatch) => {
  const results: (ParsedForIndex | null)[] = [];
  for (let i = 0; i < batch.paths.length; i += 1) {
    try {
      const bytes = Buffer.from(batch.buffer, batch.offsets[i], batch.offsets[i + 1] - batch.offsets[i]);
      results.push(parseForIndex(batch.paths[i], bytes, batch.mtimes[i]));
    } catch {
      results.push(null);
    }
  }
  parentPort?.postMessage({ id: batch.id, results });
});
