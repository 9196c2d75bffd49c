import { expect, test } from '../support/e2e-test';

// The other specs start with the worker's login cookie; this one logs in as a person does.
test.use({ loggedIn: false });

test('logs in through the printed URL, like a person', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByText('Open the dashboard with the link that `lucid serve` printed')).toBeVisible();
  await page.goto(`/?token=${process.env.E2E_TOKEN}`);
  await expect(page).toHaveURL(/\/$/);
  expect(page.url()).not.toContain('token=');
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});
