import { expect, test as setup } from '@playwright/test';
import path from 'node:path';

setup('logs in through the printed URL, like a person', async ({ page }) => {
  await page.goto(`/?token=${process.env.E2E_TOKEN}`);
  await expect(page).toHaveURL(/\/$/);
  expect(page.url()).not.toContain('token=');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await page.context().storageState({ path: path.join('test-results', '.auth', 'state.json') });
});
