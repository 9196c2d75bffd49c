import { expect, test } from '../support/e2e-test';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { e2eServer, e2eVault, rawRequest } from '../support/e2e-vault';
import { RemotePanel } from '../support/pages/remote-panel';

// The demo vault has no remote. These tests give it one (a bare repository in a temp folder), and
// take it away again at the end: the other specs share the vault.
test.describe.configure({ mode: 'serial' });

const vault = e2eVault();
const { port, token } = e2eServer();
const temp = mkdtempSync(path.join(os.tmpdir(), 'lucid-e2e-sync-'));
const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const branch = () => vault.git(['rev-parse', '--abbrev-ref', 'HEAD']).trim();

function removeRemote() {
  if (vault.git(['remote']).split('\n').includes('origin')) vault.git(['remote', 'remove', 'origin']);
}

test.afterAll(() => {
  removeRemote();
  rmSync(temp, { recursive: true, force: true });
});

test('without a remote, the overview says how to add one and the navigation shows no badge', async ({ page }) => {
  removeRemote();
  const remote = new RemotePanel(page);
  await remote.open();
  await expect(remote.empty).toContainText('git remote add origin <url>');
  await expect(remote.empty).toContainText('then press Sync');
  await expect(remote.empty).toContainText('Share a vault with a team');
  await expect(remote.syncButton).toBeEnabled();
  await expect(remote.badge).toHaveCount(0);
});

test('Sync pushes the vault to a new bare remote, then brings in a note another clone pushed', async ({ page }) => {
  const bare = path.join(temp, 'team.git');
  git(temp, ['init', '-q', '--bare', bare]);
  vault.git(['remote', 'add', 'origin', bare]);

  const remote = new RemotePanel(page);
  await remote.open();
  await expect(remote.remoteName).toHaveText('origin');
  await expect(remote.panel).toContainText(bare);
  await expect(remote.lastSync).toHaveText('never');

  await remote.sync();
  await expect(remote.result).toHaveAttribute('data-outcome', 'pushed');
  await expect(remote.result.getByTestId('sync-result-outcome')).toHaveText(`Pushed to origin/${branch()}`);
  await expect(remote.result.getByTestId('sync-result-pushed')).toHaveText('pushed');
  expect(git(bare, ['rev-parse', `refs/heads/${branch()}`])).toBe(vault.git(['rev-parse', 'HEAD']).trim());
  await expect(remote.ahead).toHaveText('0');
  await expect(remote.behind).toHaveText('0');
  await expect(remote.lastSync).toContainText('UTC');
  await expect(remote.badge).toHaveText('↑0↓0');

  // A teammate's clone commits a note and pushes it.
  const other = path.join(temp, 'other');
  git(temp, ['clone', '-q', '-b', branch(), bare, other]);
  git(other, ['config', 'user.name', 'Other Person']);
  git(other, ['config', 'user.email', 'other.person@example.invalid']);
  const note = `from-another-clone-${Date.now()}.md`;
  writeFileSync(path.join(other, note), '# From another clone\n\nWritten on a teammate’s machine.\n');
  git(other, ['add', '--', note]);
  git(other, ['commit', '-q', '-m', 'a note from another clone']);
  git(other, ['push', '-q', 'origin', 'HEAD']);
  const theirs = git(other, ['rev-parse', 'HEAD']);

  await remote.sync();
  await expect(remote.result.getByTestId('sync-result-received')).toHaveText('1 commit received');
  expect(vault.read(note)).toContain('# From another clone');
  expect(git(vault.root, ['merge-base', '--is-ancestor', theirs, 'HEAD'])).toBe('');
  expect(git(bare, ['rev-parse', `refs/heads/${branch()}`])).toBe(vault.git(['rev-parse', 'HEAD']).trim());
  expect(vault.git(['status', '--porcelain'])).toBe('');

  // The page's data followed: the badge links to the panel, and the panel kept the last sync.
  await page.goto('/changelog');
  await remote.badge.click();
  await expect(page).toHaveURL(/\/#remote$/);
  await expect(remote.lastSync).not.toHaveText('never');
});

test('a note both sides changed: the remote kept, the local version in the inbox behind a link; hostile names shown as text', async ({ page }) => {
  const bare = path.join(temp, 'team.git');
  const other = path.join(temp, 'other');
  const note = `both-sides-${Date.now()}.md`;
  vault.write(note, '# Both sides\n\nThe first line.\n');
  vault.git(['add', '--', note]);
  vault.git(['commit', '-q', '-m', 'a note both sides will change']);
  const remote = new RemotePanel(page);
  await remote.open();
  await remote.sync();
  await expect(remote.result).toHaveAttribute('data-outcome', 'pushed');

  // Here, a person's commit; there, a teammate's commit of the same line, and a note with a hostile name and front matter.
  vault.write(note, '# Both sides\n\nThe first line, as changed here.\n');
  vault.git(['commit', '-q', '-am', 'changed here']);
  git(other, ['pull', '-q', '--ff-only']);
  writeFileSync(path.join(other, note), '# Both sides\n\nThe first line, as changed there.\n');
  const hostile = `<img src=x onerror=alert(1)> & <b>bold<b> ${Date.now()}.md`;
  writeFileSync(path.join(other, hostile), '---\ntype: person\n---\n# No name\n');
  git(other, ['add', '-A']);
  git(other, ['commit', '-q', '-m', 'changed there, and a hostile name']);
  git(other, ['push', '-q', 'origin', 'HEAD']);

  await remote.sync();
  await expect(remote.result).toHaveAttribute('data-outcome', 'merged');
  expect(vault.read(note)).toContain('as changed there');
  const conflicts = remote.result.getByTestId('sync-result-conflicts');
  await expect(conflicts).toContainText(note);
  await expect(remote.result.getByTestId('sync-result-warnings')).toContainText(hostile);
  await expect(remote.panel.locator('img, b')).toHaveCount(0);
  expect(git(bare, ['rev-parse', `refs/heads/${branch()}`])).toBe(vault.git(['rev-parse', 'HEAD']).trim());

  await conflicts.getByRole('link', { name: 'compare in the inbox' }).click();
  await expect(page).toHaveURL(/\/inbox\?item=/);
  await expect(page.getByRole('main')).toContainText('as changed here');
});

test('a sync that fails says why in an alert, and the panel and the badge keep the last error', async ({ page }) => {
  removeRemote();
  vault.git(['remote', 'add', 'origin', path.join(temp, 'no-such-repository.git')]);
  const remote = new RemotePanel(page);
  await remote.open();
  await remote.sync();
  await expect(remote.error).toHaveAttribute('role', 'alert');
  await expect(remote.error).toContainText('The sync failed: ');
  await page.reload();
  await expect(remote.panel.getByTestId('remote-last-error')).toContainText('The last sync failed: ');
  await expect(remote.badge).toContainText('!');
});

test('the sync actions refuse forged calls without the gate, and nothing is pushed', async ({ page }) => {
  removeRemote();
  const bare = path.join(temp, 'forged.git');
  git(temp, ['init', '-q', '--bare', bare]);
  vault.git(['remote', 'add', 'origin', bare]);
  const remote = new RemotePanel(page);
  await remote.open();
  // The last sync's own time (its datetime; the text beside it says how long ago), or "never".
  const lastSyncStamp = async () =>
    (await remote.lastSync.locator('time').count()) > 0 ? await remote.lastSync.locator('time').getAttribute('datetime') : await remote.lastSync.textContent();
  const lastSync = await lastSyncStamp();
  const manifest = JSON.parse(readFileSync(path.join('.next', 'server', 'server-reference-manifest.json'), 'utf8')) as {
    node: Record<string, { exportedName?: string }>;
  };
  const ids = Object.entries(manifest.node)
    .filter(([, entry]) => ['startSyncAction', 'syncStatusAction', 'remoteStateAction'].includes(entry.exportedName ?? ''))
    .map(([id]) => id);
  expect(ids).toHaveLength(3);
  const host = `127.0.0.1:${port}`;
  const cookie = `lucid_${port}=${token}`;
  for (const id of ids) {
    const attempts: Record<string, string>[] = [
      { Host: host, Cookie: cookie, Origin: 'http://evil.example' },
      { Host: host, Cookie: cookie },
      { Host: host, Origin: `http://${host}` },
      { Host: `evil.example:${port}`, Cookie: cookie, Origin: `http://evil.example:${port}` },
    ];
    for (const headers of attempts) {
      const response = await rawRequest({
        method: 'POST',
        path: '/',
        headers: { ...headers, 'Next-Action': id, 'Content-Type': 'text/plain;charset=UTF-8' },
        body: '[{}]',
      });
      expect([401, 403], JSON.stringify(headers)).toContain(response.status);
      expect(response.body).not.toContain(bare);
    }
  }
  // No sync started: the panel, opened after the refusals, finds none running and the last sync as it was.
  await remote.open();
  await expect(remote.syncButton).toBeEnabled();
  await expect(remote.syncButton).toHaveText('Sync');
  await expect(remote.panel.locator('[data-job]')).toHaveCount(0);
  expect(await lastSyncStamp()).toBe(lastSync);
  expect(git(bare, ['for-each-ref'])).toBe('');
});

function portOpen(p: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port: p, host: '127.0.0.1' }, () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

test('lucid serve --sync-every shows its schedule on the panel and still stops on Ctrl-C', async ({ browser }) => {
  const servePort = port + 9;
  const child = spawn(path.resolve('bin/lucid'), ['serve', '--vault', vault.root, '--port', String(servePort), '--no-build', '--sync-every', '10m'], {
    env: { ...process.env, LUCID_TOKEN: '' },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await expect.poll(() => out, { timeout: 60_000 }).toMatch(/Open: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/);
  expect(out).toContain("Syncing with the vault's remote every 10m.");
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(/Open: (\S+)/.exec(out)?.[1] ?? '');
  await expect(page.getByRole('region', { name: 'Remote' })).toContainText('every 10m');
  await context.close();

  child.kill('SIGINT');
  // It exits by itself (next start's own code for SIGINT), not killed: nothing, not the schedule's timer, keeps it alive.
  const code = await new Promise((resolve) => child.on('exit', resolve));
  expect(typeof code).toBe('number');
  await expect.poll(() => portOpen(servePort), { timeout: 15_000 }).toBe(false);
});
