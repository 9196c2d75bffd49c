import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { parseForIndex, type ParsedForIndex } from './index-parse';

/**
 * Where the search index's parsing thread is and how to start it: the compiled `index-worker.js`, or
 * `lib/vault/search/index-worker.ts` with `execArgv: ['--import', 'tsx']` when running from sources.
 * lib/vault never guesses it (it does not know how it is run): the CLI and the MCP server pass it.
 */
export interface IndexWorkers {
  script: string;
  execArgv?: string[];
  /** Told once, when the workers cannot start or fail and the files are parsed in this thread instead (default: a process warning). */
  onFallback?: (reason: string) => void;
}

/** One batch sent to a worker: the files' bytes back to back in `buffer`, file i at offsets[i]..offsets[i + 1]. */
export interface ParseBatch {
  id: number;
  paths: string[];
  mtimes: number[];
  offsets: number[];
  buffer: ArrayBuffer;
}

/** Below this many files to parse, starting threads costs more than it saves. */
export const MIN_FILES_FOR_WORKERS = 400;
const BATCH_FILES = 48;
const BATCH_BYTES = 1 << 20;

const fellBack = new WeakSet<IndexWorkers>();

/**
 * Parses files as they are read, in worker threads when `workers` is given (one a core, at most four),
 * else in this thread. `add` takes one file's bytes; `finish` waits for every result. A worker that
 * cannot start or fails hands its files back to this thread (said once per `workers`): same results, slower.
 */
export function parser(workers: IndexWorkers | null | undefined, onParsed: (path: string, parsed: ParsedForIndex | null) => void) {
  const inProcess = (path: string, bytes: Buffer, mtimeMs: number) => {
    let parsed: ParsedForIndex | null = null;
    try {
      parsed = parseForIndex(path, bytes, mtimeMs);
    } catch {
      parsed = null;
    }
    onParsed(path, parsed);
  };
  if (!workers) return { add: inProcess, finish: async () => undefined };

  const fallBack = (reason: string) => {
    if (fellBack.has(workers)) return;
    fellBack.add(workers);
    const say = workers.onFallback ?? ((message: string) => process.emitWarning(message, 'LucidIndexWorkers'));
    say(`The search index is parsed in the main thread (slower, same result): its worker threads failed (${reason}).`);
  };
  const pending = new Map<number, { batch: ParseBatch; bytes: Buffer[]; worker: number }>();
  const threads: (Worker | null)[] = [];
  const count = Math.max(1, Math.min(4, os.availableParallelism()));
  let settle: (() => void) | null = null;
  const parseHere = (id: number) => {
    const job = pending.get(id);
    if (!job) return;
    pending.delete(id);
    for (let i = 0; i < job.batch.paths.length; i += 1) inProcess(job.batch.paths[i], job.bytes[i], job.batch.mtimes[i]);
  };
  const fail = (index: number, error: unknown) => {
    const thread = threads[index];
    if (!thread) return;
    threads[index] = null;
    thread.removeAllListeners();
    thread.terminate().catch(() => undefined);
    fallBack(error instanceof Error ? error.message : String(error));
    for (const [id, job] of [...pending]) if (job.worker === index) parseHere(id);
    if (pending.size === 0) settle?.();
  };
  for (let i = 0; i < count; i += 1) {
    try {
      const thread = new Worker(workers.script, { execArgv: workers.execArgv ?? [] });
      thread.on('message', (message: { id: number; results: (ParsedForIndex | null)[] }) => {
        const job = pending.get(message.id);
        if (!job) return;
        pending.delete(message.id);
        for (let k = 0; k < job.batch.paths.length; k += 1) onParsed(job.batch.paths[k], message.results[k] ?? null);
        if (pending.size === 0) settle?.();
      });
      thread.on('error', (error) => fail(i, error));
      thread.on('exit', (code) => fail(i, new Error(`the worker exited with code ${code}`)));
      threads.push(thread);
    } catch (error) {
      threads.push(null);
      fallBack(error instanceof Error ? error.message : String(error));
    }
  }

  let nextId = 0;
  let turn = 0;
  let files: { path: string; bytes: Buffer; mtimeMs: number }[] = [];
  let size = 0;
  const send = () => {
    if (files.length === 0) return;
    const batch: ParseBatch = { id: nextId++, paths: [], mtimes: [], offsets: [0], buffer: new ArrayBuffer(size) };
    const view = new Uint8Array(batch.buffer);
    for (const file of files) {
      const at = batch.offsets[batch.offsets.length - 1];
      view.set(file.bytes, at);
      batch.paths.push(file.path);
      batch.mtimes.push(file.mtimeMs);
      batch.offsets.push(at + file.bytes.length);
    }
    const bytes = files.map((f) => f.bytes);
    files = [];
    size = 0;
    const live = threads.map((t, i) => (t ? i : -1)).filter((i) => i >= 0);
    if (live.length === 0) {
      for (let i = 0; i < batch.paths.length; i += 1) inProcess(batch.paths[i], bytes[i], batch.mtimes[i]);
      return;
    }
    const index = live[turn++ % live.length];
    pending.set(batch.id, { batch, bytes, worker: index });
    // The buffer is posted as a copy: the batch keeps its files' bytes for this thread to parse should the worker fail.
    threads[index]?.postMessage(batch);
  };
  return {
    add(path: string, bytes: Buffer, mtimeMs: number) {
      files.push({ path, bytes, mtimeMs });
      size += bytes.length;
      if (files.length >= BATCH_FILES || size >= BATCH_BYTES) send();
    },
    async finish() {
      send();
      if (pending.size > 0) await new Promise<void>((resolve) => (settle = resolve));
      for (const thread of threads) {
        thread?.removeAllListeners();
        await thread?.terminate();
      }
    },
  };
}
