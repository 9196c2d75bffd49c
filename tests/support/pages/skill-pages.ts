import { expect, type Locator, type Page } from '@playwright/test';

/** The skills list: search, sort, the active and archived tables. */
export class SkillsListPage {
  constructor(readonly page: Page) {}

  async open() {
    await this.page.goto('/skills');
    await expect(this.page.getByRole('heading', { level: 1, name: 'Skills' })).toBeVisible();
  }

  get search(): Locator {
    return this.page.getByLabel('Search skills');
  }

  get sort(): Locator {
    return this.page.getByLabel('Sort by');
  }

  /** The rows of the active skills (`Skills`) or of the archive (`Archived skills`). */
  rows(table: 'Skills' | 'Archived skills' = 'Skills'): Locator {
    return this.page.getByRole('table', { name: table, exact: true }).getByTestId('skill-row');
  }

  row(path: string): Locator {
    return this.page.locator(`[data-testid="skill-row"][data-path="${path}"]`);
  }
}

/** One skill's page: its versions, the diff picker, restore and revert. */
export class SkillPage {
  constructor(readonly page: Page) {}

  async open(name: string) {
    await this.page.goto(`/skills/${encodeURIComponent(name)}`);
    await expect(this.versions.first()).toBeVisible();
  }

  get versions(): Locator {
    return this.page.getByRole('list', { name: 'Versions' }).getByTestId('skill-version');
  }

  /** The timeline entry of one commit. */
  version(sha: string): Locator {
    return this.page.locator(`[data-testid="skill-version"][data-sha="${sha}"]`);
  }

  get diff(): Locator {
    return this.page.getByTestId('skill-diff');
  }

  /** Picks the two versions to compare by their option labels (`v1 · …`). */
  async compare(from: RegExp, to: RegExp) {
    const group = this.page.getByRole('group', { name: 'Versions to compare' });
    for (const [label, wanted] of [
      ['From', from],
      ['To', to],
    ] as const) {
      const select = group.getByLabel(label, { exact: true });
      const options = await select.locator('option').allTextContents();
      const match = options.find((o) => wanted.test(o));
      if (!match) throw new Error(`no version option matches ${wanted}: ${options.join(' | ')}`);
      await select.selectOption({ label: match });
    }
  }

  /** Restores the version of `sha` with `reason`; returns the form (its alert on failure). */
  async restore(sha: string, reason: string): Promise<Locator> {
    const entry = this.version(sha);
    await entry.getByRole('button', { name: 'Restore this version' }).click();
    const form = entry.getByRole('form', { name: /^Restore version/ });
    await form.getByLabel('Reason (required)').fill(reason);
    await form.getByRole('button', { name: /^Restore version/ }).click();
    return form;
  }

  get status(): Locator {
    return this.page.getByRole('status').filter({ hasText: /Restored|Reverted/ });
  }
}
