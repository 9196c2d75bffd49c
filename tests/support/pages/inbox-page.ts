import { expect, type Locator, type Page } from '@playwright/test';

/** The inbox page: the queue, the selected item, and Accept, Edit and Reject. */
export class InboxPage {
  constructor(readonly page: Page) {}

  /** Opens /inbox (with search params such as `?agent=…`) and waits for the queue or the empty state. */
  async open(search = '') {
    await this.page.goto(`/inbox${search}`);
    await expect(this.page.getByRole('heading', { level: 1, name: 'Inbox' })).toBeVisible();
  }

  get queue() {
    return this.page.getByRole('table', { name: 'Inbox queue' });
  }

  /** The queue's button for the item about `target` (it selects the item). */
  rowButton(target: string) {
    return this.queue.getByRole('button', { name: target, exact: true });
  }

  row(target: string) {
    return this.queue.getByRole('row').filter({ has: this.rowButton(target) });
  }

  get selectedRow() {
    return this.queue.locator('tr[data-selected="true"]');
  }

  /** Clicks the item about `target` and waits until it is shown. */
  async select(target: string) {
    await this.rowButton(target).click();
    await expect(this.itemHeading).toContainText(target);
  }

  get item() {
    return this.page.getByRole('article', { name: 'Selected item' });
  }

  get itemHeading() {
    return this.item.getByRole('heading', { level: 2 });
  }

  get acceptButton() {
    return this.item.getByRole('button', { name: 'Accept', exact: true });
  }

  get editButton() {
    return this.item.getByRole('button', { name: 'Edit', exact: true });
  }

  get rejectButton() {
    return this.item.getByRole('button', { name: 'Reject', exact: true });
  }

  get rejectForm() {
    return this.page.getByRole('form', { name: 'Reject' });
  }

  get reasonBox() {
    return this.rejectForm.getByRole('textbox');
  }

  /** The editor of Edit (the person's version). */
  get editor() {
    return this.page.getByRole('textbox', { name: 'Your version' });
  }

  get acceptEditedButton() {
    return this.page.getByRole('button', { name: 'Accept edited version' });
  }

  get merge() {
    return this.page.getByRole('region', { name: 'Three-way merge' });
  }

  get mergeEditor() {
    return this.page.getByRole('textbox', { name: 'Merged text' });
  }

  /**
   * The text in a CodeMirror editor (`editor` or `mergeEditor`): its lines as drawn, joined by
   * newlines. toHaveValue does not apply to a contenteditable; poll this instead. Only for texts
   * short enough to be drawn whole (CodeMirror draws only the lines in view).
   */
  async editorText(editor: Locator): Promise<string> {
    return editor.evaluate((el) => Array.from(el.querySelectorAll(':scope > .cm-line'), (line) => line.textContent ?? '').join('\n'));
  }

  /** The line that says what the last action did. */
  get result() {
    return this.page.getByRole('status').filter({ hasText: /Accepted|Rejected/ });
  }

  /** The page's own alert (Next adds an empty route announcer with the same role). */
  get alert() {
    return this.page.getByRole('main').getByRole('alert');
  }

  /** The inbox's count in the navigation (absent at zero). */
  get navCount() {
    return this.page.getByRole('navigation', { name: 'Sections' }).getByTestId('inbox-count');
  }

  get keysHint() {
    return this.page.getByLabel('Keyboard shortcuts');
  }

  async chooseFilter(label: 'Agent' | 'Flag' | 'Action', value: string) {
    await this.page.getByRole('group', { name: 'Filters' }).getByLabel(label).selectOption(value);
  }
}
