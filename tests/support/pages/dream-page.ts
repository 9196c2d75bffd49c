import { expect, type Page } from '@playwright/test';

/** The dream review: the runs, the chosen run's changes, and Land and Dismiss. */
export class DreamPage {
  constructor(readonly page: Page) {}

  /** Opens /dream (optionally on one run) and waits for the page's title. */
  async open(runId?: string) {
    await this.page.goto(`/dream${runId ? `?run=${encodeURIComponent(runId)}` : ''}`);
    await expect(this.page.getByRole('heading', { level: 1, name: 'Dream' })).toBeVisible();
  }

  get changes() {
    return this.page.getByRole('list', { name: 'Changes' });
  }

  /** The row of a change, by its edit id. */
  row(id: string) {
    return this.changes.locator(`li[data-dream-change="${id}"]`);
  }

  /** Clicks a change's row and waits until it is the selected one. */
  async select(id: string) {
    await this.row(id).getByRole('button').click();
    await expect(this.row(id).getByRole('button')).toHaveAttribute('aria-current', 'true');
  }

  get selected() {
    return this.page.getByRole('region', { name: 'Selected change' });
  }

  get landButton() {
    return this.page.getByRole('button', { name: 'Land', exact: true });
  }

  get dismissButton() {
    return this.page.getByRole('button', { name: 'Dismiss', exact: true });
  }

  get status() {
    return this.page.getByRole('status').filter({ hasText: /\S/ }).first();
  }
}
