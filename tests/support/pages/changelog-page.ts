import { expect, type Locator, type Page } from '@playwright/test';

/** Each filter's label and its URL parameter. */
const FILTER_PARAMS = { Actor: 'actor', Operation: 'op', 'Note type': 'type', Machine: 'machine', Person: 'person', From: 'since', To: 'until' } as const;

/** The changelog page: the edits newest first, their diffs, reverts, filters, and the uncommitted-work panel. */
export class ChangelogPage {
  constructor(readonly page: Page) {}

  async open(params: Record<string, string> = {}) {
    const query = new URLSearchParams(params);
    await this.page.goto(`/changelog${query.size ? `?${query}` : ''}`);
    await expect(this.page.getByRole('heading', { level: 1, name: 'Changelog' })).toBeVisible();
  }

  get entries(): Locator {
    return this.page.getByRole('list', { name: 'Edits' }).getByTestId('changelog-entry');
  }

  /** The entry of one commit, by its full sha. */
  entry(sha: string): Locator {
    return this.page.locator(`[data-testid="changelog-entry"][data-sha="${sha}"]`);
  }

  get empty(): Locator {
    return this.page.getByTestId('changelog-empty');
  }

  async showDiff(entry: Locator): Promise<Locator> {
    await entry.getByRole('button', { name: 'Show diff' }).click();
    return entry.getByTestId('entry-diff');
  }

  /** Opens the revert of an entry: the dry run's plan, or what is in the way. */
  async planRevert(entry: Locator): Promise<Locator> {
    await entry.getByRole('button', { name: 'Revert…' }).click();
    const panel = entry.getByRole('region', { name: 'Revert' });
    await expect(panel).not.toContainText('Trying the revert');
    return panel;
  }

  /** Reverts an entry through its plan and confirm; waits for the page to say it is done. */
  async revert(entry: Locator, reason?: string) {
    const sha = (await entry.getAttribute('data-sha')) ?? '';
    const panel = await this.planRevert(entry);
    if (reason !== undefined) await panel.getByLabel('Reason (optional)').fill(reason);
    await panel.getByRole('button', { name: 'Confirm revert' }).click();
    await expect(this.reverted(sha)).toBeVisible();
  }

  /** The page's word that the commit `sha` was reverted. */
  reverted(sha: string): Locator {
    return this.page.getByText(new RegExp(`^Reverted ${sha.slice(0, 7)}: new edit e[a-z2-7]{12}`));
  }

  /**
   * Sets one filter (Actor, Operation, Note type: a choice; From, To: a date) and waits for its URL.
   * The fields are disabled until the page has hydrated, and Playwright waits for them to be enabled.
   */
  async filter(label: keyof typeof FILTER_PARAMS, value: string) {
    const field = this.page.getByRole('form', { name: 'Filters' }).getByLabel(label, { exact: true });
    if (label === 'From' || label === 'To') await field.fill(value);
    else await field.selectOption(value);
    await expect.poll(() => new URL(this.page.url()).searchParams.get(FILTER_PARAMS[label])).toBe(value);
  }

  get uncommitted(): Locator {
    return this.page.getByRole('region', { name: 'Uncommitted work' });
  }

  uncommittedFile(path: string): Locator {
    return this.uncommitted.getByRole('list', { name: 'Uncommitted files' }).getByRole('listitem').filter({ hasText: path });
  }

  /** Commits only `paths` of the uncommitted files as the person's edit. */
  async commitUncommitted(paths: string[], reason?: string) {
    const boxes = this.uncommitted.getByRole('checkbox');
    for (const box of await boxes.all()) await box.uncheck();
    for (const path of paths) await this.uncommitted.getByRole('checkbox', { name: path, exact: true }).check();
    if (reason !== undefined) await this.uncommitted.getByLabel('Reason (optional)').fill(reason);
    await this.uncommitted.getByRole('button', { name: /^Commit (this file|\d+ files) as / }).click();
    await expect(this.uncommitted.getByRole('status')).toContainText('Committed as');
  }
}
