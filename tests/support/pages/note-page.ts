import type { Page } from '@playwright/test';

/** The note page: a note's rendered body, properties, backlinks and history. */
export class NotePage {
  constructor(readonly page: Page) {}

  async open(path: string) {
    await this.page.goto(`/notes/${path.split('/').map(encodeURIComponent).join('/')}`);
  }

  /** The page's title (the note's own `# heading`, if any, is part of the body). */
  get title() {
    return this.page.getByTestId('note-title');
  }

  get body() {
    return this.page.locator('article');
  }

  get backlinks() {
    return this.page.getByRole('list', { name: 'Backlinks' });
  }

  get history() {
    return this.page.getByRole('list', { name: 'History' });
  }
}
