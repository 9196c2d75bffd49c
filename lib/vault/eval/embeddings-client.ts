import { createHash } from 'node:crypto';
import fs from 'node:fs';
import nodePath from 'node:path';
import Database from 'better-sqlite3';
import { VaultError } from '../errors';
import { trimEndOf } from '../text';

/** An OpenAI-compatible embeddings endpoint the person runs (Ollama, llama.cpp's server, LM Studio). */
export interface EmbeddingsEndpoint {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:11434/v1`; `/embeddings` is added. */
  url: string;
  /** The model to ask for, e.g. `nomic-embed-text`. */
  model: string;
  /** How long one request may take, in milliseconds (default 120 000: a batch on a CPU is slow). */
  timeoutMs?: number;
}

/** Texts sent in one request. */
const EMBEDDING_BATCH = 32;
const DEFAULT_TIMEOUT_MS = 120_000;
const HOW_TO_START = 'start one, e.g. `ollama serve` and `ollama pull nomic-embed-text`, or pass --embeddings-url';

/** The endpoint's URL without a trailing slash; VaultError `invalid_input` unless it is http(s). */
function baseUrl(endpoint: EmbeddingsEndpoint): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(endpoint.url);
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new VaultError('invalid_input', `The embeddings URL "${endpoint.url}" is not an http(s) URL: pass one such as http://127.0.0.1:11434/v1.`);
  }
  if (typeof endpoint.model !== 'string' || endpoint.model.trim() === '') {
    throw new VaultError('invalid_input', 'The embeddings strategy needs a model name, e.g. nomic-embed-text.');
  }
  return trimEndOf(endpoint.url, '/');
}

/** One request: `POST <url>/embeddings` with `{model, input}`, vectors back in input order. */
async function requestEmbeddings(endpoint: EmbeddingsEndpoint, input: string[]): Promise<Float32Array[]> {
  const url = `${baseUrl(endpoint)}/embeddings`;
  const timeoutMs = endpoint.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let response: Response;
  let body: unknown;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: endpoint.model, input }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) {
      const text = (await response.text()).replace(/\s+/g, ' ').slice(0, 300);
      throw new VaultError(
        'io_error',
        `The embeddings endpoint ${url} answered ${response.status}${text ? ` (${text})` : ''}: check the model name (e.g. \`ollama pull ${endpoint.model}\`) and that the URL ends with /v1.`,
      );
    }
    body = await response.json();
  } catch (error) {
    if (error instanceof VaultError) throw error;
    const name = (error as { name?: string } | null)?.name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new VaultError(
        'io_error',
        `The embeddings endpoint ${url} did not answer within ${Math.round(timeoutMs / 1000)} s: check that it is running and not overloaded, or ${HOW_TO_START}.`,
      );
    }
    if (error instanceof SyntaxError) {
      throw new VaultError(
        'io_error',
        `The embeddings endpoint ${url} did not answer with JSON: check that the URL points at an OpenAI-compatible API (ending with /v1).`,
      );
    }
    const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
    const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
    throw new VaultError('io_error', `No embeddings endpoint answered at ${url} (${reason}): ${HOW_TO_START}.`);
  }
  return vectorsOf(body, input.length, url);
}

/** The vectors of an OpenAI-format answer (`{data: [{embedding, index}]}`), in input order. */
function vectorsOf(body: unknown, count: number, url: string): Float32Array[] {
  const data = (body as { data?: unknown } | null)?.data;
  const malformed = () =>
    new VaultError('io_error', `The embeddings endpoint ${url} did not answer in the OpenAI format ({data: [{embedding, index}]}) with ${count} vectors.`);
  if (!Array.isArray(data) || data.length !== count) throw malformed();
  const vectors: (Float32Array | undefined)[] = new Array(count);
  data.forEach((item: { embedding?: unknown; index?: unknown }, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    const embedding = item?.embedding;
    if (!Number.isInteger(index) || index < 0 || index >= count || vectors[index] || !Array.isArray(embedding) || embedding.length === 0) throw malformed();
    if (!embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) throw malformed();
    vectors[index] = Float32Array.from(embedding as number[]);
  });
  const dimensions = vectors[0]?.length;
  if (vectors.some((vector) => !vector || vector.length !== dimensions)) throw malformed();
  return vectors as Float32Array[];
}

/** sha256 hex of a text: the cache key of its vector (with the model). */
function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Vectors by model and content hash in a SQLite file (`.lucid/embeddings.sqlite`): a cache, so a
 * file that is not a database is replaced. Open it for one piece of work and close it after.
 */
export class EmbeddingCache {
  private constructor(private readonly db: Database.Database) {}

  /** Opens or creates the cache at `dbPath`; VaultError `io_error` when it cannot. */
  static open(dbPath: string): EmbeddingCache {
    try {
      return new EmbeddingCache(openCache(dbPath));
    } catch (error) {
      const code = (error as { code?: string } | null)?.code;
      if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') throw cacheError(dbPath, error);
    }
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(dbPath + suffix, { force: true });
    try {
      return new EmbeddingCache(openCache(dbPath));
    } catch (error) {
      throw cacheError(dbPath, error);
    }
  }

  /** The cached vectors of these hashes for `model` (hashes not cached are absent). */
  get(model: string, hashes: string[]): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    const select = this.db.prepare('SELECT vector FROM vectors WHERE model = ? AND hash = ?');
    for (const hash of new Set(hashes)) {
      const row = select.get(model, hash) as { vector: Buffer } | undefined;
      if (row) found.set(hash, new Float32Array(row.vector.buffer.slice(row.vector.byteOffset, row.vector.byteOffset + row.vector.byteLength)));
    }
    return found;
  }

  /** Stores vectors for `model` by hash, in one transaction. */
  put(model: string, entries: [hash: string, vector: Float32Array][]): void {
    const insert = this.db.prepare('INSERT OR REPLACE INTO vectors (model, hash, vector) VALUES (?, ?, ?)');
    this.db.transaction(() => {
      for (const [hash, vector] of entries) insert.run(model, hash, Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
    })();
  }

  /** Closes the file; closing twice is harmless. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}

function openCache(dbPath: string): Database.Database {
  fs.mkdirSync(nodePath.dirname(dbPath), { recursive: true });
  const db = new Database(dbPath);
  try {
    db.pragma('busy_timeout = 10000');
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, hash TEXT NOT NULL, vector BLOB NOT NULL, PRIMARY KEY (model, hash)) WITHOUT ROWID');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

function cacheError(dbPath: string, error: unknown): VaultError {
  const reason = error instanceof Error ? error.message : String(error);
  return new VaultError('io_error', `Could not open the embeddings cache at ${dbPath} (${reason}): delete the file to rebuild it.`);
}

/**
 * Vectors of `texts` in order: cached ones read from `cache`, the others asked of the endpoint in
 * batches of {@link EMBEDDING_BATCH} and cached batch by batch (an interrupted run keeps what it
 * embedded). Equal texts are embedded once. Throws VaultError `io_error` saying how to start an
 * endpoint when none answers, and `invalid_input` for a URL that is not http(s).
 */
export async function embedTexts(endpoint: EmbeddingsEndpoint, texts: string[], cache: EmbeddingCache): Promise<Float32Array[]> {
  baseUrl(endpoint);
  const hashes = texts.map(contentHash);
  const known = cache.get(endpoint.model, hashes);
  const missing = new Map<string, string>();
  hashes.forEach((hash, i) => {
    if (!known.has(hash)) missing.set(hash, texts[i]);
  });
  const pending = [...missing.entries()];
  for (let start = 0; start < pending.length; start += EMBEDDING_BATCH) {
    const batch = pending.slice(start, start + EMBEDDING_BATCH);
    const vectors = await requestEmbeddings(
      endpoint,
      batch.map(([, text]) => text),
    );
    const entries = batch.map(([hash], i) => [hash, vectors[i]] as [string, Float32Array]);
    cache.put(endpoint.model, entries);
    for (const [hash, vector] of entries) known.set(hash, vector);
  }
  return hashes.map((hash) => known.get(hash)!);
}
