import { test as base } from '@playwright/test';
import { type ChildProcess, spawn } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { e2eServer, e2eTemplate, e2eVaultRoot, rawRequest } from './e2e-vault';

export { expect } from '@playwright/test';

interface WorkerServer {
  url: string;
  /** The login cookie the token exchange set (its name carries the port). */
  cookie: { name: string; value: string };
}

/**
 * The browser tests' `test`: every worker serves its own copy of the demo vault (`lucid serve
 * --no-build` on the worker's port, e2e-vault.ts), so a spec that writes never meets another
 * worker's spec. Its pages start logged in (the cookie of the token exchange, done once per worker);
 * `test.use({ loggedIn: false })` starts without it.
 */
export const test = base.extend<{ loggedIn: boolean }, { server: WorkerServer }>({
  loggedIn: [true, { option: true }],
  server: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads the fixtures a fixture needs from this pattern.
    async ({}, use) => {
      const { port, token } = e2eServer();
      const root = e2eVaultRoot();
      rmSync(root, { recursive: true, force: true });
      cpSync(e2eTemplate(), root, { recursive: true });
      const child = spawn(process.execPath, ['bin/lucid', 'serve', '--vault', root, '--port', String(port), '--no-build'], {
        env: { ...process.env, LUCID_TOKEN: token, NEXT_TELEMETRY_DISABLED: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout?.on('data', (chunk) => (output += chunk));
      child.stderr?.on('data', (chunk) => {
        output += chunk;
        process.stderr.write(chunk);
      });
      try {
        await untilPrinted(child, () => output, /^Open: /m);
        const login = await rawRequest({ path: `/?token=${token}` });
        const cookie = /^([^=]+)=([^;]*)/.exec(String(login.headers['set-cookie']?.[0] ?? ''));
        if (login.status !== 303 || !cookie) throw new Error(`The token exchange answered ${login.status} without a cookie.`);
        await use({ url: `http://127.0.0.1:${port}`, cookie: { name: cookie[1], value: cookie[2] } });
      } finally {
        await stop(child);
        rmSync(root, { recursive: true, force: true });
      }
    },
    { scope: 'worker', auto: true, timeout: 120_000 },
  ],
  baseURL: async ({ server }, use) => use(server.url),
  storageState: async ({ server, loggedIn }, use) =>
    use({
      cookies: loggedIn ? [{ ...server.cookie, domain: '127.0.0.1', path: '/', expires: -1, httpOnly: true, secure: false, sameSite: 'Strict' }] : [],
      origins: [],
    }),
});

/** Resolves when the server printed `line`; rejects when it stopped first. */
function untilPrinted(child: ChildProcess, output: () => string, line: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (line.test(output())) {
        child.stdout?.off('data', check);
        child.off('exit', stopped);
        resolve();
      }
    };
    const stopped = () => reject(new Error(`lucid serve stopped while starting:\n${output()}`));
    child.stdout?.on('data', check);
    child.once('exit', stopped);
    check();
  });
}

/** Ctrl-C, as a person stops it; resolves when it has exited. */
function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}
