import type { Page } from '@playwright/test';
import { expect, test } from '../support/e2e-test';
import { listenToWatcher } from '../support/pages/outside-edit';
import { e2eVault } from '../support/e2e-vault';
import { NotePage } from '../support/pages/note-page';

// Catalog #29 beyond a note's body: the same payloads in a file name, a title, front-matter values
// and a commit message, wherever the dashboard lists or shows them.

const NAME = 'Notes/"><img src=x onerror=alert(1)>.md';
const NOTE = `---
title: "<img src=x onerror=alert('title')>"
tags: ["<script>alert('tag')</script>"]
source: "javascript:alert('source')"
aliases: ["<svg onload=alert('alias')>"]
---

The body mentions zebraquartz once.
`;
const MESSAGE = `<img src=x onerror=alert('commit')> <script>alert('commit')</script>`;

async function trap(page: Page): Promise<string[]> {
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
  return dialogs;
}

async function expectInert(page: Page): Promise<void> {
  const main = page.locator('main');
  await expect(main.locator('img[onerror], svg[onload], [onload], [onerror]')).toHaveCount(0);
  await expect(main.locator('script')).toHaveCount(0);
  await expect(main.locator('a[href^="javascript:" i]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __xss: number }).__xss)).toBe(0);
}

test('payloads in a file name, a title, front-matter values and a commit message stay text on the note page, in search and on the overview', async ({
  page,
}) => {
  const vault = e2eVault();
  const watcher = await listenToWatcher();
  vault.write(NAME, NOTE);
  vault.git(['add', '--', NAME]);
  vault.git(['commit', '-q', '-m', MESSAGE, '--', NAME]);
  try {
    const dialogs = await trap(page);
    const note = new NotePage(page);

    await note.open(NAME);
    await expect(note.title).toHaveText("<img src=x onerror=alert('title')>");
    await expect(page.locator('main')).toContainText("<script>alert('tag')</script>");
    await expect(note.history).toContainText("<img src=x onerror=alert('commit')>");
    await expectInert(page);

    const results = page.getByRole('list', { name: 'Search results' });
    await watcher.seen(NAME);
    await page.goto('/search');
    await page.getByRole('searchbox').fill('zebraquartz');
    await expect(results.getByRole('listitem').first()).toContainText("<img src=x onerror=alert('title')>");
    await expectInert(page);

    await page.goto('/');
    await expectInert(page);
    expect(dialogs).toEqual([]);
  } finally {
    watcher.close();
    vault.git(['rm', '-q', '--', NAME]);
    vault.git(['commit', '-q', '-m', 'remove the hostile note', '--', NAME]);
  }
});
