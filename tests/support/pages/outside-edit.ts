import { expect, type Locator } from '@playwright/test';

/**
 * Opens a page again until it shows what an edit made outside Lucid (a file the test wrote, a raw
 * git command) brings. The dashboard learns of such edits from its file watcher, whose events come
 * 50–500 ms after the edit and later on a loaded machine (docs/decisions.md, "Issue 18"): a page
 * opened at once may be rendered from the listing before the edit, as a person's reload a moment
 * later is not. Each try waits a second for `seen`; the whole wait is `timeout`.
 */
export async function openUntilSeen(open: () => Promise<unknown>, seen: Locator, timeout = 20_000): Promise<void> {
  await expect(async () => {
    await open();
    await expect(seen).toBeVisible({ timeout: 1_000 });
  }).toPass({ timeout, intervals: [100, 250, 500, 1_000] });
}
