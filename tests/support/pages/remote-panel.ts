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

  /** Presses Sync and waits until the sync has ended (its report or its error shows, the button is back). */
  async sync() {
    await this.syncButton.click();
    await expect(this.result.or(this.error)).toBeVisible({ timeout: 30_000 });
    await expect(this.syncButton).toHaveText('Sync');
  }
}
