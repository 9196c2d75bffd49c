import type { Browser, Locator, Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import type { Ledger, PersonAction, PersonKind, Proposal } from './soak-ledger';

// The soak's person: one Chromium page on the real dashboard, clicking what a person clicks to
// accept, edit then accept, reject, and revert (an accept, or an agent's line) on the changelog.

const ACTION_TIMEOUT = 60_000;

/** Waits for whichever of `ok` and `fail` shows first; the loser's wait is dropped. */
async function either(ok: Locator, fail: Locator, timeout = ACTION_TIMEOUT): Promise<'ok' | 'fail'> {
  const shown = (l: Locator, v: 'ok' | 'fail') =>
    l
      .first()
      .waitFor({ state: 'visible', timeout })
      .then(() => v);
  return Promise.race([shown(ok, 'ok'), shown(fail, 'fail')]);
}

export class SoakPerson {
  page!: Page;
  /** Every response of status 500 or more the page got, with its URL. */
  readonly serverErrors: string[] = [];
  private edits = 0;

  constructor(
    private readonly browser: Browser,
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly vaultRoot: string,
    private readonly ledger: Ledger,
  ) {}

  async start(): Promise<void> {
    const context = await this.browser.newContext({ baseURL: this.baseUrl, viewport: { width: 1400, height: 1000 } });
    this.page = await context.newPage();
    this.page.setDefaultTimeout(ACTION_TIMEOUT);
    this.page.on('response', (r) => {
      if (r.status() >= 500) this.serverErrors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
    });
    // Logs in through the printed URL, as a person does; the token becomes the cookie.
    await this.page.goto(`/?token=${encodeURIComponent(this.token)}`);
    await this.page.getByRole('heading', { name: 'Overview' }).waitFor();
  }

  private git(args: string[]): string {
    return execFileSync('git', args, { cwd: this.vaultRoot, encoding: 'utf8' });
  }

  /** The Lucid-Edit trailer of a commit named by a (short) sha the page showed. */
  private editIdOf(shortSha: string): string | undefined {
    const body = this.git(['log', '-1', '--format=%B', `${shortSha}^{commit}`, '--']);
    return /^Lucid-Edit: (e[a-z2-7]{12})$/m.exec(body)?.[1];
  }

  private record(entry: Omit<PersonAction, 'kind'>): PersonAction {
    const action: PersonAction = { kind: 'action', ...entry };
    this.ledger.add(action);
    return action;
  }

  private async openInbox(): Promise<void> {
    if (!new URL(this.page.url()).pathname.startsWith('/inbox')) {
      await this.page
        .getByRole('navigation', { name: 'Sections' })
        .getByRole('link', { name: /^Inbox/ })
        .click();
      await this.page.getByRole('heading', { level: 1, name: 'Inbox' }).waitFor();
    }
  }

  /** Selects the item about `target` in the queue (it appears by polling if the agent just proposed it). */
  private async selectItem(target: string): Promise<Locator> {
    await this.openInbox();
    const queue = this.page.getByRole('table', { name: 'Inbox queue' });
    const row = queue.getByRole('button', { name: target, exact: true });
    await row.waitFor({ state: 'visible' });
    await row.click();
    const item = this.page.getByRole('article', { name: 'Selected item' });
    await item.getByRole('heading', { level: 2 }).filter({ hasText: target }).waitFor();
    return item;
  }

  /** One inbox decision (accept, edit then accept, reject) on the item `p`. */
  async decide(action: 'accept' | 'edit' | 'reject', p: Proposal): Promise<PersonAction> {
    const item = await this.selectItem(p.target);
    const main = this.page.getByRole('main');
    const status = main.getByRole('status').filter({ hasText: /^(Accepted|Rejected)/ });
    const alert = main.getByRole('alert');
    let humanTag: string | undefined;
    let started: number;
    if (action === 'accept') {
      const button = item.getByRole('button', { name: 'Accept', exact: true });
      await this.enabled(button);
      started = performance.now();
      await button.click();
    } else if (action === 'edit') {
      await item.getByRole('button', { name: 'Edit', exact: true }).click();
      const editor = this.page.getByRole('textbox', { name: 'Your version' });
      await editor.waitFor();
      await editor.click();
      await this.page.keyboard.press('Control+End');
      this.edits += 1;
      humanTag = `[soak human e${String(this.edits).padStart(4, '0')}]`;
      await this.page.keyboard.type(`\nThe person added ${humanTag}\n`);
      started = performance.now();
      await this.page.getByRole('button', { name: 'Accept edited version' }).click();
    } else {
      await item.getByRole('button', { name: 'Reject', exact: true }).click();
      const form = this.page.getByRole('form', { name: 'Reject' });
      await form.getByRole('textbox').fill('soak: not this one');
      started = performance.now();
      await form.getByRole('button', { name: 'Reject' }).click();
    }
    const shown = await either(status, alert);
    const ms = performance.now() - started;
    if (shown === 'fail') {
      const message = ((await alert.first().textContent()) ?? '').trim();
      return this.record({ action, outcome: 'failed', itemId: p.id, humanTag, ms, message });
    }
    const text = (await status.first().textContent()) ?? '';
    const commit = /commit ([0-9a-f]{7,40})/.exec(text)?.[1];
    return this.record({
      action,
      outcome: commit ? 'ok' : 'failed',
      itemId: p.id,
      humanTag,
      commit,
      editId: commit ? this.editIdOf(commit) : undefined,
      ms,
      message: text,
    });
  }

  private async enabled(button: Locator): Promise<void> {
    await button.waitFor();
    const handle = await button.elementHandle();
    await this.page.waitForFunction((el) => el instanceof HTMLButtonElement && !el.disabled, handle, { timeout: ACTION_TIMEOUT });
  }

  /**
   * Reverts one commit on the changelog page (found under `filter`): the dry run, then Confirm.
   * A conflict the dry run or the confirm reports ("Nothing changed") is a refusal, as designed.
   */
  async revert(
    action: Extract<PersonKind, 'revert-accept' | 'revert-write'>,
    sha: string,
    filter: Record<string, string>,
    meta: Partial<PersonAction>,
  ): Promise<PersonAction> {
    await this.page.goto(`/changelog?${new URLSearchParams(filter)}`);
    await this.page.getByRole('heading', { level: 1, name: 'Changelog' }).waitFor();
    const entry = this.page.locator(`[data-testid="changelog-entry"][data-sha="${sha}"]`);
    if ((await entry.count()) === 0) {
      await this.page.getByRole('list', { name: 'Edits' }).waitFor();
      if ((await entry.count()) === 0)
        return this.record({ action, outcome: 'failed', revertOf: sha, ms: 0, message: 'the commit is not on the changelog page', ...meta });
    }
    await entry.getByRole('button', { name: 'Revert…' }).click();
    const panel = entry.getByRole('region', { name: 'Revert' });
    const confirm = panel.getByRole('button', { name: 'Confirm revert' });
    const blocked = panel.getByRole('alert');
    if ((await either(confirm, blocked)) === 'fail') {
      const message = ((await blocked.first().textContent()) ?? '').trim();
      return this.record({ action, outcome: /Nothing changed/.test(message) ? 'refused' : 'failed', revertOf: sha, ms: 0, message, ...meta });
    }
    const done = this.page
      .getByRole('main')
      .getByRole('status')
      .filter({ hasText: new RegExp(`^Reverted ${sha.slice(0, 7)}: new edit`) });
    const started = performance.now();
    await confirm.click();
    const shown = await either(done, blocked);
    const ms = performance.now() - started;
    if (shown === 'fail') {
      const message = ((await blocked.first().textContent()) ?? '').trim();
      return this.record({ action, outcome: /Nothing changed/.test(message) ? 'refused' : 'failed', revertOf: sha, ms, message, ...meta });
    }
    const text = (await done.first().textContent()) ?? '';
    const editId = /new edit (e[a-z2-7]{12})/.exec(text)?.[1];
    return this.record({ action, outcome: editId ? 'ok' : 'failed', revertOf: sha, editId, ms, message: text, ...meta });
  }

  /** The full sha of a commit the page named by its short sha. */
  fullSha(short: string): string {
    return this.git(['rev-parse', '--verify', `${short}^{commit}`]).trim();
  }

  async close(): Promise<void> {
    await this.page.context().close();
  }
}
