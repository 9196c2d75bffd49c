import { expect, test } from '@playwright/test';
import { e2eVault } from '../support/e2e-vault';

test('the overview shows the counts raw git and the files give', async ({ page }) => {
  const vault = e2eVault();
  const weekAgo = Date.now() / 1000 - 7 * 24 * 3600;
  const log = vault.git(['log', '--format=%at%x1f%B%x1e']);
  const edits = log
    .split('\u001e')
    .map((r) => r.trim())
    .filter(Boolean)
    .filter((r) => Number(r.split('\u001f')[0]) >= weekAgo && /^Lucid-Edit: e[a-z2-7]{12}$/m.test(r)).length;
  const notes = vault.files().filter((f) => f.endsWith('.md'));
  const frontmatter = (f: string) => /^---\n([\s\S]*?)\n---\n/.exec(vault.read(f))?.[1] ?? '';
  const inbox = notes.filter((f) => f.startsWith('inbox/') && /^type: inbox$/m.test(frontmatter(f))).length;
  const sessions = notes
    .filter((f) => f.startsWith('sessions/'))
    .map((f) => /^started: (.+)$/m.exec(frontmatter(f))?.[1])
    .filter((s): s is string => Boolean(s) && Date.parse(s as string) / 1000 >= weekAgo).length;

  await page.goto('/');
  await expect(page.getByTestId('figure-inbox')).toHaveText(String(inbox));
  await expect(page.getByTestId('figure-edits')).toHaveText(String(edits));
  await expect(page.getByTestId('figure-sessions')).toHaveText(String(sessions));
  await expect(page.getByTestId('figure-notes')).toHaveText(String(notes.length));
  expect(inbox).toBeGreaterThan(0);
  await expect(page.getByTestId('type-decision')).toHaveText(String(notes.filter((f) => /^type: decision$/m.test(frontmatter(f))).length));
});

test('every section is reachable from the navigation, and unfinished ones say what they will show', async ({ page }) => {
  await page.goto('/');
  const nav = page.getByRole('navigation', { name: 'Sections' });
  for (const name of ['Skills', 'Sessions', 'Dream', 'Evaluation']) {
    await nav.getByRole('link', { name }).click();
    await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
    await expect(page.getByRole('status')).toContainText('It will show');
  }
  for (const name of ['Inbox', 'Changelog', 'Health']) {
    await nav.getByRole('link', { name }).click();
    await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  }
  await nav.getByRole('link', { name: 'Search' }).click();
  await expect(page.getByRole('searchbox')).toBeFocused();
});
