import { expect, type Locator, type Page } from '@playwright/test';

/** The sessions list and one session's page. */
export class SessionsPage {
  constructor(readonly page: Page) {}

  async open(params: Record<string, string> = {}) {
    const query = new URLSearchParams(params);
    await this.page.goto(`/sessions${query.size ? `?${query}` : ''}`);
    await expect(this.page.getByRole('heading', { level: 1, name: 'Sessions' })).toBeVisible();
  }

  get rows(): Locator {
    return this.page.getByTestId('session-row');
  }

  row(id: string): Locator {
    return this.page.locator(`[data-testid="session-row"][data-session="${id}"]`);
  }

  /** The ids of the rows shown, top to bottom. */
  async ids(): Promise<string[]> {
    return this.rows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session') ?? ''));
  }

  /** Sets one filter (Agent, Project, Outcome: a choice; Started from, To: a date) and waits for the URL to carry it. */
  async filter(label: 'Agent' | 'Project' | 'Outcome' | 'Machine' | 'Person' | 'Started from' | 'To', value: string, param: string) {
    const field = this.page.getByRole('form', { name: 'Filters' }).getByLabel(label, { exact: true });
    if (label === 'Started from' || label === 'To') await field.fill(value);
    else await field.selectOption(value);
    await expect(this.page).toHaveURL(new RegExp(`[?&]${param}=`));
  }

  get older(): Locator {
    return this.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Older →' });
  }

  get newer(): Locator {
    return this.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: '← Newer' });
  }

  get newest(): Locator {
    return this.page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: '⇤ Newest' });
  }

  get empty(): Locator {
    return this.page.getByTestId('sessions-empty');
  }

  /** One session's page. */
  async openSession(id: string) {
    await this.page.goto(`/sessions/${encodeURIComponent(id)}`);
    await expect(this.page.getByTestId('session-id')).toHaveText(id);
  }

  get edits(): Locator {
    return this.page.getByTestId('session-edits-list').getByTestId('changelog-entry');
  }

  rule(id: string): Locator {
    return this.page.locator(`[data-testid="protocol-rule"][data-rule="${id}"]`);
  }
}
