import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { buildCorpus, initVault, isVaultError, type StrategyContext, type Vault } from '../../lib/vault';
import { embeddingsStrategy } from '../../lib/vault/eval/strategies/embeddings';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/**
 * The optional `embeddings` strategy against a stand-in OpenAI-compatible server on 127.0.0.1:
 * deterministic bag-of-words vectors (one dimension per word of a fixed list), so the test knows the
 * ranking; every request body is recorded.
 */

const WORDS = ['postgres', 'database', 'ledger', 'billing', 'invoice', 'garden', 'tomato', 'water', 'soup', 'lunch', 'kubernetes', 'cluster'];

function bagOfWords(text: string): number[] {
  const words = text.toLowerCase().match(/[a-z]+/g) ?? [];
  // One extra dimension that every text has, so no vector is all zeros.
  return [...WORDS.map((word) => words.filter((w) => w === word || w === `${word}s`).length), 0.1];
}

interface StandIn {
  url: string;
  requests: { model: string; input: string[] }[];
  close(): Promise<void>;
}

async function startStandIn(handler?: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => boolean): Promise<StandIn> {
  const requests: StandIn['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      if (handler?.(req, res, body)) return;
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404).end('not found');
        return;
      }
      const parsed = JSON.parse(body) as { model: string; input: string[] };
      requests.push(parsed);
      // Answered out of order, as the format allows: `index` says which input each vector is.
      const data = parsed.input.map((text, index) => ({ object: 'embedding', index, embedding: bagOfWords(text) })).reverse();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: parsed.model }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const NOTES: Record<string, string> = {
  'decisions/database.md': '# Database\n\nThe ledger lives in Postgres, the billing database.\n',
  'notes/garden.md': '# Garden\n\nTomato plants need water every evening.\n',
  'notes/lunch.md': '# Lunch\n\nSoup for lunch on Fridays.\n',
  'notes/cluster.md': '# Cluster\n\nThe kubernetes cluster runs the invoice jobs.\n',
};

let tv: TempVault;
let vault: Vault;
let server: StandIn;

const sentText = () => server.requests.flatMap((request) => request.input);

async function contextNow(): Promise<StrategyContext> {
  await vault.syncSearch();
  return { corpus: await buildCorpus(vault), vault, k: 5 };
}

beforeAll(async () => {
  tv = makeTempVault(NOTES);
  await initVault({ dir: tv.root, env: tv.env });
  vault = await tv.open();
  server = await startStandIn();
});

afterAll(async () => {
  vault?.close();
  await server?.close();
  tv?.cleanup();
});

beforeEach(() => {
  fs.rmSync(path.join(tv.root, '.lucid', 'embeddings.sqlite'), { force: true });
  server.requests.length = 0;
});

describe('embeddings strategy', () => {
  it('ranks notes by cosine similarity of the question to their text', async () => {
    const strategy = embeddingsStrategy({ url: server.url, model: 'stand-in' });
    const context = await contextNow();
    await strategy.prepare?.(context);
    const ranked = await strategy.rank('Where do tomato plants get water?', context);
    expect(ranked[0]).toBe('notes/garden.md');
    expect((await strategy.rank('Which database holds the ledger?', context))[0]).toBe('decisions/database.md');
    expect((await strategy.rank('kubernetes cluster', context))[0]).toBe('notes/cluster.md');
    expect(strategy.name).toBe('embeddings');
    expect(server.requests.every((request) => request.model === 'stand-in')).toBe(true);
  });

  it('caches note vectors in .lucid/embeddings.sqlite: a second run sends no note text, an edited note is sent again', async () => {
    const first = embeddingsStrategy({ url: server.url, model: 'stand-in' });
    const context = await contextNow();
    await first.prepare?.(context);
    await first.rank('soup', context);
    expect(sentText().some((text) => text.includes('Soup for lunch'))).toBe(true);
    expect(fs.existsSync(path.join(tv.root, '.lucid', 'embeddings.sqlite'))).toBe(true);
    // The cache is local state: git does not see it.
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: tv.root, env: tv.env as NodeJS.ProcessEnv, encoding: 'utf8' })).not.toContain('embeddings');

    server.requests.length = 0;
    const second = embeddingsStrategy({ url: server.url, model: 'stand-in' });
    const again = await contextNow();
    await second.prepare?.(again);
    expect((await second.rank('soup', again))[0]).toBe('notes/lunch.md');
    expect(server.requests).toEqual([]);

    tv.write('notes/lunch.md', '# Lunch\n\nSoup and bread for lunch on Mondays.\n');
    const third = embeddingsStrategy({ url: server.url, model: 'stand-in' });
    await third.prepare?.(await contextNow());
    expect(sentText()).toHaveLength(1);
    expect(sentText()[0]).toContain('Soup and bread');

    // Another model is another cache entry.
    server.requests.length = 0;
    await embeddingsStrategy({ url: server.url, model: 'other-model' }).prepare?.(await contextNow());
    expect(sentText()).toHaveLength(Object.keys(NOTES).length);
  });

  it('sends at most 32 texts a request', async () => {
    for (let i = 0; i < 40; i++) tv.write(`bulk/note-${String(i).padStart(2, '0')}.md`, `# Bulk ${i}\n\nFiller number ${i} about soup.\n`);
    try {
      const strategy = embeddingsStrategy({ url: server.url, model: 'stand-in' });
      await strategy.prepare?.(await contextNow());
      expect(server.requests.map((request) => request.input.length)).toEqual([32, 12]);
    } finally {
      fs.rmSync(path.join(tv.root, 'bulk'), { recursive: true, force: true });
    }
  });
});

describe('embeddings strategy errors', () => {
  it('says how to start an endpoint when none answers', async () => {
    const down = await startStandIn();
    const url = down.url;
    await down.close();
    const strategy = embeddingsStrategy({ url, model: 'stand-in' });
    const error = await strategy.prepare!(await contextNow()).catch((caught: unknown) => caught);
    expect(isVaultError(error, 'io_error')).toBe(true);
    expect((error as Error).message).toContain(url);
    expect((error as Error).message).toContain('ollama serve');
    expect((error as Error).message).toContain('--embeddings-url');
  });

  it('gives up after the timeout when the endpoint never answers', async () => {
    const silent = await startStandIn(() => true);
    try {
      const strategy = embeddingsStrategy({ url: silent.url, model: 'stand-in', timeoutMs: 300 });
      const error = await strategy.rank('soup', await contextNow()).catch((caught: unknown) => caught);
      expect(isVaultError(error, 'io_error')).toBe(true);
      expect((error as Error).message).toMatch(/did not answer within/);
    } finally {
      await silent.close();
    }
  });

  it('reports an error answer with the status and what to check', async () => {
    const refusing = await startStandIn((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"model \\"nope\\" not found, try pulling it first"}');
      return true;
    });
    try {
      const error = await embeddingsStrategy({ url: refusing.url, model: 'nope' }).prepare!(await contextNow()).catch((caught: unknown) => caught);
      expect(isVaultError(error, 'io_error')).toBe(true);
      expect((error as Error).message).toMatch(/answered 404 .*not found.*ollama pull nope/);
    } finally {
      await refusing.close();
    }
  });

  it('refuses an answer that is not in the OpenAI format', async () => {
    const odd = await startStandIn((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"embeddings":[[1,2]]}');
      return true;
    });
    try {
      const error = await embeddingsStrategy({ url: odd.url, model: 'stand-in' }).prepare!(await contextNow()).catch((caught: unknown) => caught);
      expect(isVaultError(error, 'io_error')).toBe(true);
      expect((error as Error).message).toMatch(/OpenAI format/);
    } finally {
      await odd.close();
    }
  });

  it('refuses a URL that is not http(s) before any request', async () => {
    const error = await embeddingsStrategy({ url: 'file:///etc/passwd', model: 'stand-in' }).prepare!(await contextNow()).catch((caught: unknown) => caught);
    expect(isVaultError(error, 'invalid_input')).toBe(true);
  });
});
