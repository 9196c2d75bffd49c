import { expect, type Locator, type Page } from '@playwright/test';

/** The overview's Remote panel (remote, ahead, behind, last sync, the Sync button and its report) and the navigation's badge. */
export class RemotePanel {
  constructor(readonly page: Page) {}

  /** Opens the overview at its Remote panel and waits for the panel. */
  async open() {
    await this.page.goto('/#remote');
    await expect(this.panel).toBeVisible();
  }

  get panel(): Locator {
    return this.page.getByRole('region', { name: 'Remote' });
  }

  /** What the panel says without a remote. */
  get empty(): Locator {
    return this.panel.getByTestId('remote-empty');
  }

  get remoteName(): Locator {
    return this.panel.getByTestId('remote-name');
  }

  get ahead(): Locator {
    return this.panel.getByTestId('remote-ahead');
  }

  get behind(): Locator {
    return this.panel.getByTestId('remote-behind');
  }

  get lastSync(): Locator {
    return this.panel.getByTestId('remote-last-sync');
  }

  get syncButton(): Locator {
    return this.panel.getByRole('button', { name: /^(Sync|Syncing…)$/ });
  }

  /** The report of the sync this page ran. */
  get result(): Locator {
    return this.panel.getByTestId('sync-result');
  }

  get error(): Locator {
    return this.panel.getByTestId('sync-error');
  }

  /** The navigation's `↑a ↓b` link to the panel. */
  get badge(): Locator {
    return this.page.getByRole('complementary').getByTestId('sync-badge');
  }

  /** Presses Sync and waits until this sync has ended: a report or an error of another sync than the one shown before, and the button back. */
  async sync() {
    const shown = this.panel.locator('[data-job]');
    const before = (await shown.count()) > 0 ? await shown.first().getAttribute('data-job') : null;
    await this.syncButton.click();
    await expect(this.panel.locator(before ? `[data-job]:not([data-job="${before}"])` : '[data-job]')).toBeVisible({ timeout: 30_000 });
    await expect(this.syncButton).toHaveText('Sync');
  }
}
