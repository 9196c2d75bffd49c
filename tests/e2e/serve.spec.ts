import { expect, test } from '../support/e2e-test';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { e2eServer, e2eVault } from '../support/e2e-vault';

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

test('lucid serve refuses a port in use, prints a token URL, and leaves no server behind on Ctrl-C', async ({ browser }) => {
  const vault = e2eVault();
  const busy = e2eServer().port;
  const taken = spawn(path.resolve('bin/lucid'), ['serve', '--vault', vault.root, '--port', String(busy), '--no-build'], {
    env: { ...process.env, LUCID_TOKEN: '' },
  });
  let takenErr = '';
  taken.stderr.on('data', (d) => (takenErr += d));
  const takenCode = await new Promise<number | null>((resolve) => taken.on('exit', resolve));
  expect(takenCode).toBe(1);
  expect(takenErr).toContain(`Port ${busy} is in use`);

  const port = busy + 7;
  const child = spawn(path.resolve('bin/lucid'), ['serve', '--vault', vault.root, '--port', String(port), '--no-build'], {
    env: { ...process.env, LUCID_TOKEN: '' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await expect.poll(() => out, { timeout: 60_000 }).toMatch(/Open: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/);
  const url = /Open: (\S+)/.exec(out)![1];
  expect(url).toContain(`127.0.0.1:${port}`);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  expect(page.url()).not.toContain('token');
  await context.close();

  child.kill('SIGINT');
  await new Promise((resolve) => child.on('exit', resolve));
  await expect.poll(() => portOpen(port), { timeout: 15_000 }).toBe(false);
});
