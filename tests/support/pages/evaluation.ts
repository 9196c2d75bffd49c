import { expect, type Locator, type Page } from '@playwright/test';

/** The evaluation page: the run picker, the strategy chart and table, missed questions, the Run button. */
export class EvaluationPage {
  constructor(readonly page: Page) {}

  /** Opens /evaluation (optionally on one run, metric or strategy) and waits for its title. */
  async open(params: Record<string, string> = {}) {
    const query = new URLSearchParams(params);
    await this.page.goto(`/evaluation${query.size ? `?${query}` : ''}`);
    await expect(this.page.getByRole('heading', { level: 1, name: 'Evaluation' })).toBeVisible();
  }

  get strategies(): Locator {
    return this.page.getByTestId('eval-strategies');
  }

  get runs(): Locator {
    return this.page.getByTestId('eval-runs');
  }

  get kinds(): Locator {
    return this.page.getByTestId('eval-kinds');
  }

  /** A strategy's row of the table under the bars. */
  row(strategy: string): Locator {
    return this.page.getByTestId('eval-strategies-table').locator(`tr[data-strategy="${strategy}"]`);
  }

  mean(strategy: string): Locator {
    return this.row(strategy).getByTestId('eval-mean');
  }

  /** Picks a strategy by its row's button and waits until it is the pressed one. */
  async pick(strategy: string) {
    const button = this.row(strategy).getByRole('button');
    await button.click();
    await expect(button).toHaveAttribute('aria-pressed', 'true');
  }

  get missed(): Locator {
    return this.page.getByTestId('eval-missed');
  }

  /** The missed questions listed, by id. */
  missedQuestion(id: string): Locator {
    return this.missed.locator(`li[data-question="${id}"]`);
  }

  get runPicker(): Locator {
    return this.page.getByLabel('Run (question set · date)');
  }

  get runButton(): Locator {
    return this.page.getByRole('button', { name: /^(Run evaluation|Show the running evaluation)$/ });
  }

  get progress(): Locator {
    return this.page.getByTestId('eval-progress');
  }

  get finished(): Locator {
    return this.page.getByTestId('eval-finished');
  }
}
