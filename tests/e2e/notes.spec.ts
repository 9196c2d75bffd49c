import { expect, test } from '../support/e2e-test';
import { randomBytes } from 'node:crypto';
import { e2eVault } from '../support/e2e-vault';
import { NotePage } from '../support/pages/note-page';

test('follows a wikilink and a markdown link from one note to the next', async ({ page }) => {
  const note = new NotePage(page);
  await note.open('Notes/Team handbook.md');
  await expect(note.title).toHaveText('Team handbook');
  await note.body.getByRole('link', { name: 'Grace' }).last().click();
  await expect(page).toHaveURL(/\/notes\/people\/grace-hopper\.md$/);
  await expect(note.title).toHaveText('Grace Hopper');
  await page.goBack();
  await note.body.getByRole('link', { name: 'atlas project note' }).click();
  await expect(page).toHaveURL(/\/notes\/projects\/atlas\.md$/);
  await expect(page.getByRole('table', { name: 'Properties' })).toContainText('status');
  await expect(note.backlinks.getByRole('link', { name: 'Notes/Team handbook' })).toBeVisible();
  await expect(note.history.getByRole('listitem').first()).toBeVisible();
});

test('opens notes whose names have spaces, emoji, %, a dash and non-Latin letters', async ({ page }) => {
  const note = new NotePage(page);
  await note.open('Notes/Onboarding checklist 🚀.md');
  await expect(note.title).toHaveText('Onboarding checklist 🚀');
  await note.open('Notes/Incident review – 40% of invoices late.md');
  await expect(note.title).toHaveText('Incident review – 40% of invoices late');
  await note.open('Notes/東京 offsite.md');
  await expect(note.title).toHaveText('東京 offsite');
  await note.open('Notes/Team handbook.md');
  await note.body.getByRole('link', { name: 'incident review' }).click();
  await expect(note.title).toHaveText('Incident review – 40% of invoices late');
});

test('a note whose name has # and accents opens, and links to it resolve', async ({ page }) => {
  const vault = e2eVault();
  const id = randomBytes(3).toString('hex');
  vault.write(`Notes/Résumé tips #1 ${id}.md`, `Tips for a résumé.\n\nSee [[Team handbook]].\n`);
  vault.write(
    `Notes/Index ${id}.md`,
    `A wikilink would stop at the #, so this one is a markdown link: read [the tips](R%C3%A9sum%C3%A9%20tips%20%231%20${id}.md).\n`,
  );
  const note = new NotePage(page);
  await note.open(`Notes/Index ${id}.md`);
  await note.body.getByRole('link', { name: 'the tips' }).click();
  await expect(note.title).toHaveText(`Résumé tips #1 ${id}`);
  await note.body.getByRole('link', { name: 'Team handbook' }).click();
  await expect(note.title).toHaveText('Team handbook');
});

test('renders callouts and embeds, hides %%comments%%, and offers Open in Obsidian', async ({ page }) => {
  const note = new NotePage(page);
  await note.open('Notes/Team handbook.md');
  await expect(note.body.locator('div.callout[data-callout="note"]').first()).toContainText("This vault is the team's memory");
  await expect(note.body).not.toContainText('move the agent list');
  await expect(note.body.getByText('Onboarding checklist 🚀').first()).toBeVisible();
  await expect(page.getByRole('link', { name: 'Open in Obsidian' })).toHaveAttribute('href', /^obsidian:\/\/open\?vault=.+&file=Notes%2FTeam%20handbook$/);
});

test('a note with <script>, onerror= and an iframe renders them inert', async ({ page }) => {
  const dialogs: string[] = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  await page.addInitScript(() => {
    (window as unknown as { __xss: number }).__xss = 0;
    window.alert = () => {
      (window as unknown as { __xss: number }).__xss += 1;
    };
  });
  const note = new NotePage(page);
  await note.open('Notes/Pasted from support ticket.md');
  await expect(note.title).toHaveText('Pasted from support ticket 4821');
  await expect(note.body).toContainText("<script>alert('hello from the preview')</script>");
  await expect(note.body).toContainText('<iframe');
  await expect(note.body.locator('iframe')).toHaveCount(0);
  await expect(note.body.locator('script')).toHaveCount(0);
  await expect(note.body.locator('img[onerror]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __xss: number }).__xss)).toBe(0);
  expect(dialogs).toEqual([]);
});

test('an unknown note path shows a not-found page with a way back', async ({ page }) => {
  const response = await page.goto('/notes/Notes/does-not-exist.md');
  expect(response?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'No such note' })).toBeVisible();
  await page.getByRole('main').getByRole('link', { name: 'overview' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
});
