import { expect, test } from '../support/e2e-test';
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { e2eServer, e2eVault } from '../support/e2e-vault';

// Catalog #8: the per-launch token is printed once, in the URL `lucid serve` prints, and never
// again: not when it is exchanged, not when a wrong one is refused, not on an error.

function get(port: number, urlPath: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: urlPath, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

test('the token appears in the output of lucid serve once, in the URL it prints, and in no log after', async () => {
  const vault = e2eVault();
  const port = e2eServer().port + 11;
  const child = spawn(path.resolve('bin/lucid'), ['serve', '--vault', vault.root, '--port', String(port), '--no-build'], {
    env: { ...process.env, LUCID_TOKEN: '' },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  try {
    await expect.poll(() => output, { timeout: 60_000 }).toMatch(/Open: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/);
    const token = /\?token=(\S+)/.exec(output)?.[1] ?? '';
    expect(token.length).toBeGreaterThanOrEqual(32);
    const host = `127.0.0.1:${port}`;
    const cookie = `lucid_${port}=${token}`;

    expect(await get(port, `/?token=${token}`, { Host: host })).toBe(303);
    expect(await get(port, `/?token=${token.slice(0, -2)}`, { Host: host })).toBe(401);
    expect(await get(port, '/notes/projects/atlas.md', { Host: host, Cookie: cookie })).toBe(200);
    expect(await get(port, '/notes/no-such-note.md', { Host: host, Cookie: cookie })).toBe(404);
    expect(await get(port, '/', { Host: `evil.example:${port}`, Cookie: cookie })).toBe(403);
    expect(await get(port, '/', { Host: host, Cookie: `lucid_${port}=${token}x`, Referer: `http://${host}/?token=${token}` })).toBe(401);
  } finally {
    child.kill('SIGINT');
    await new Promise((resolve) => child.on('exit', resolve));
  }
  const token = /\?token=(\S+)/.exec(output)?.[1] ?? '';
  expect(output.split(token.slice(0, 16)).length - 1).toBe(1);
});
