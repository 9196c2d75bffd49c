import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

/**
 * Each Playwright worker serves its own copy of the demo vault on its own port (tests/support/e2e-test.ts):
 * the base port for the first worker, 20 more for each next one (the specs start servers of their own at
 * the worker's port plus 7, 9 and 11). The slot is Playwright's parallel index, which a worker started
 * again after a failure keeps.
 */
function slot(): number {
  return Number(process.env.TEST_PARALLEL_INDEX ?? 0);
}

function basePort(): number {
  const port = Number(process.env.E2E_PORT);
  if (!Number.isInteger(port) || port <= 0) throw new Error('E2E_PORT is not set: run the browser tests through `npm test` or `npx playwright test`.');
  return port;
}

/** The demo vault globalSetup makes once per run (tests/support/e2e-setup.ts); each worker copies it. */
export function e2eTemplate(): string {
  return path.join(os.tmpdir(), `lucid-e2e-template-${basePort()}`);
}

/** This worker's vault folder. */
export function e2eVaultRoot(): string {
  return path.join(os.tmpdir(), `lucid-e2e-vault-${e2eServer().port}`);
}

/**
 * This worker's demo vault, read with raw git and files (never through Lucid). It is made when the
 * worker's first test starts, so a spec may call this at its top and use the vault in its tests.
 */
export function e2eVault() {
  const root = e2eVaultRoot();
  const git = (args: string[]) => {
    if (!existsSync(root)) throw new Error(`${root} is missing: import test from tests/support/e2e-test.ts, whose worker fixture makes it.`);
    return execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  };
  const files = (dir = ''): string[] => {
    const out: string[] = [];
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) out.push(...files(rel));
      else out.push(rel);
    }
    return out;
  };
  return {
    root,
    git,
    files,
    read: (rel: string) => readFileSync(path.join(root, rel), 'utf8'),
    write: (rel: string, text: string) => {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), text);
    },
    /** sha256 of every file, HEAD and `git status`: "vault unchanged" means all three are equal. */
    snapshot: () => {
      const hashes = files()
        .sort()
        .map(
          (f) =>
            `${f}:${createHash('sha256')
              .update(readFileSync(path.join(root, f)))
              .digest('hex')}`,
        )
        .join('\n');
      return { hashes, head: git(['rev-parse', 'HEAD']).trim(), status: git(['status', '--porcelain']) };
    },
  };
}

/** The port and token this worker's server is started with. */
export function e2eServer() {
  return { port: basePort() + 20 * slot(), token: process.env.E2E_TOKEN ?? '' };
}

/** A raw HTTP request to the test server with any headers (a browser cannot forge Host or Origin). */
export function rawRequest(options: {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  const { port } = e2eServer();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/',
        headers: options.headers,
        setHost: !(options.headers && 'Host' in options.headers),
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    if (options.body) req.write(options.body);
    req.end();
  });
}

/** Every server action id of the production build (the server-reference manifest). */
export function serverActionIds(): string[] {
  const manifest = JSON.parse(readFileSync(path.join('.next', 'server', 'server-reference-manifest.json'), 'utf8')) as { node?: Record<string, unknown> };
  return Object.keys(manifest.node ?? {});
}
