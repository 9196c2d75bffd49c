import { expect, test } from '../support/e2e-test';
import { listenToWatcher } from '../support/pages/outside-edit';
import { randomBytes } from 'node:crypto';
import { e2eVault } from '../support/e2e-vault';

test('search finds a note by words that are not in its title, as you type', async ({ page }) => {
  await page.goto('/search');
  await page.getByRole('searchbox').fill('why did we leave sqlite? nightly rebuild window');
  const results = page.getByRole('list', { name: 'Search results' });
  await expect(results.getByRole('link', { name: 'Move to OpenSearch' })).toBeVisible();
  await expect(results.locator('mark').first()).toBeVisible();
  await expect(page).toHaveURL(/\?q=why/);
});

test('search filters by type and by folder', async ({ page }) => {
  await page.goto('/search');
  await page.getByRole('searchbox').fill('atlas');
  await page.getByLabel('Type').selectOption('decision');
  const results = page.getByRole('list', { name: 'Search results' });
  await expect(page).toHaveURL(/type=decision/);
  await expect(results.getByRole('listitem').first()).toBeVisible();
  await expect(results.getByRole('listitem').filter({ hasNotText: '· decision' })).toHaveCount(0);
  await page.getByLabel('Type').selectOption('');
  await page.getByLabel('Folder').selectOption('Notes');
  await expect(page).toHaveURL(/folder=Notes/);
  await expect(results.getByRole('listitem').filter({ hasText: 'Notes/' }).first()).toBeVisible();
  await expect(results.getByRole('listitem').filter({ hasNotText: 'Notes/' })).toHaveCount(0);
  await page.getByRole('searchbox').fill('zzqqxxnotaword');
  await expect(page.getByText('No notes match')).toBeVisible();
});

test('the Health page lists a note the test broke, with its reason, linking to it', async ({ page }) => {
  const vault = e2eVault();
  const id = randomBytes(4).toString('hex');
  const watcher = await listenToWatcher();
  vault.write(`Notes/broken-${id}.md`, '---\ntitle: [unclosed\n---\nbody\n');
  vault.write(`decisions/bad-${id}.md`, '---\ntype: decision\ndate: 2026-11-30\nstatus: maybe\n---\n# Bad\n');
  await watcher.seen(`Notes/broken-${id}.md`);
  await watcher.seen(`decisions/bad-${id}.md`);
  watcher.close();
  await page.goto('/health');
  await expect(page.getByRole('link', { name: `decisions/bad-${id}.md` })).toBeVisible();
  await expect(page.getByRole('link', { name: `Notes/broken-${id}.md` })).toBeVisible();
  await expect(page.getByText(/Invalid YAML on line 2/).first()).toBeVisible();
  const violation = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: `decisions/bad-${id}.md` }) });
  await expect(violation).toContainText('project is required for a decision note');
  await expect(violation).toContainText('status must be one of proposed, accepted, superseded');
  await page.getByRole('link', { name: `Notes/broken-${id}.md` }).click();
  await expect(page.getByRole('alert', { name: 'Unreadable' })).toContainText('cannot read this note');
});
