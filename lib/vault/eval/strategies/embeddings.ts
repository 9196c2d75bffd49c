import nodePath from 'node:path';
import type { Vault } from '../../vault';
import { EmbeddingCache, type EmbeddingsEndpoint, embedTexts } from '../embeddings-client';
import type { EvalCorpus, Strategy, StrategyContext } from '../types';

/**
 * Characters of a note embedded as one passage (about 400 tokens): short enough for servers whose
 * batch is 512 tokens (llama.cpp's default), so no endpoint refuses or silently cuts a note.
 */
const PASSAGE_CHARS = 1600;
/** Passages embedded per note at most: a long note is judged on its first pages. */
const MAX_PASSAGES = 8;
/** Notes returned, best first (the runner cuts to k). */
const RANKED = 50;

/** The cache file in the vault's `.lucid/` folder (local state, never committed). */
function cachePath(vault: Vault): string {
  return nodePath.join(vault.stateDir(), 'embeddings.sqlite');
}

/**
 * A note as passages to embed: its text cut at paragraph breaks into pieces of at most
 * PASSAGE_CHARS, each led by the title so a passage keeps what it is about.
 */
function passagesOf(title: string, text: string): string[] {
  const passages: string[] = [];
  let current = '';
  const flush = () => {
    if (current.trim() !== '') passages.push(`${title}\n${current.trim()}`);
    current = '';
  };
  for (const paragraph of text.split(/\n\s*\n/)) {
    for (let start = 0; start < paragraph.length; start += PASSAGE_CHARS) {
      const piece = paragraph.slice(start, start + PASSAGE_CHARS);
      if (current.length + piece.length + 2 > PASSAGE_CHARS) flush();
      current += `${piece}\n\n`;
      if (passages.length === MAX_PASSAGES) return passages;
    }
  }
  flush();
  return passages.length > 0 ? passages.slice(0, MAX_PASSAGES) : [title];
}

function normalize(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

interface NoteVectors {
  path: string;
  vectors: Float32Array[];
}

/**
 * `embeddings`: notes ranked by the cosine similarity of the question's embedding to their best
 * passage's, from an OpenAI-compatible endpoint the person runs (`POST <url>/embeddings`: Ollama,
 * llama.cpp's server, LM Studio). Off by default: the registry offers it only when an endpoint is
 * given. Vectors are cached by model and content hash in `.lucid/embeddings.sqlite`, so a second run
 * embeds only notes that changed. Throws VaultError `io_error` saying how to start an endpoint when
 * none answers.
 */
export function embeddingsStrategy(endpoint: EmbeddingsEndpoint): Strategy {
  const prepared = new WeakMap<EvalCorpus, Promise<NoteVectors[]>>();

  const withCache = async <T>(vault: Vault, work: (cache: EmbeddingCache) => Promise<T>): Promise<T> => {
    const cache = EmbeddingCache.open(cachePath(vault));
    try {
      return await work(cache);
    } finally {
      cache.close();
    }
  };

  const embedCorpus = (context: StrategyContext): Promise<NoteVectors[]> =>
    withCache(context.vault, async (cache) => {
      const notes = context.corpus.notes.map((note) => ({ path: note.path, passages: passagesOf(note.title, note.text) }));
      const vectors = await embedTexts(
        endpoint,
        notes.flatMap((note) => note.passages),
        cache,
      );
      let next = 0;
      return notes.map((note) => ({ path: note.path, vectors: note.passages.map(() => normalize(vectors[next++])) }));
    });

  const notesFor = (context: StrategyContext): Promise<NoteVectors[]> => {
    let notes = prepared.get(context.corpus);
    if (!notes) {
      notes = embedCorpus(context);
      // A failure is not kept: the next question tries again (the person may have started the server).
      notes.catch(() => prepared.delete(context.corpus));
      prepared.set(context.corpus, notes);
    }
    return notes;
  };

  return {
    name: 'embeddings',
    description: `Cosine similarity of embeddings from ${endpoint.model} (a local OpenAI-compatible endpoint), each note by its best passage.`,
    async prepare(context) {
      await notesFor(context);
    },
    async rank(question, context) {
      const notes = await notesFor(context);
      if (question.trim() === '' || notes.length === 0) return [];
      const [asked] = await withCache(context.vault, (cache) => embedTexts(endpoint, [question], cache));
      const query = normalize(asked);
      return notes
        .map((note) => ({ path: note.path, score: Math.max(...note.vectors.map((vector) => dot(query, vector))) }))
        .sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
        .slice(0, RANKED)
        .map((note) => note.path);
    },
  };
}
