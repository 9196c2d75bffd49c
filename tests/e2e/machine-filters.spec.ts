import { expect, test } from '../support/e2e-test';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { e2eVault } from '../support/e2e-vault';
import { ChangelogPage } from '../support/pages/changelog-page';
import { SessionsPage } from '../support/pages/sessions-page';

// Who and where: the changelog, the sessions list and the overview narrowed by machine and by person,
// on the demo vault (its research agent and Grace work on a second machine), checked with raw git.

const vault = e2eVault();
const OTHER_MACHINE = 'grace-desktop';
const OTHER_PERSON = 'Grace Hopper';
const FIRST_MACHINE = 'workstation';
const WEEK = '2026-W48';

/** Every commit, newest first, with its committer and its Lucid-Machine trailer, read with raw git. */
function commits(): { sha: string; person: string; machine: string }[] {
  return vault
    .git(['log', '--format=%H%x1f%cn%x1f%(trailers:key=Lucid-Machine,valueonly,separator=%x2C)'])
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [sha, person, machine] = line.split('\u001f');
      return { sha, person, machine: machine.trim() };
    });
}

/** The session notes whose `machine` property names `machine`, newest first. */
function sessionsOn(machine: string): string[] {
  return readdirSync(path.join(vault.root, 'sessions'))
    .filter((name) => name.endsWith('.md') && new RegExp(`^machine: ${machine}$`, 'm').test(vault.read(`sessions/${name}`)))
    .map((name) => name.slice(0, -3))
    .sort()
    .reverse();
}

test('the changelog narrows to a machine, then a person, keeps them while paging, and says how to clear a filter that matches nothing', async ({ page }) => {
  const changelog = new ChangelogPage(page);
  await changelog.open();
  const onOther = commits().filter((c) => c.machine === OTHER_MACHINE);
  expect(onOther.length).toBeGreaterThan(30);

  await changelog.filter('Machine', OTHER_MACHINE);
  await expect(page).toHaveURL(/[?&]machine=grace-desktop/);
  await expect(changelog.entries).toHaveCount(30);
  expect(await changelog.entries.evaluateAll((items) => items.map((i) => i.getAttribute('data-sha')))).toEqual(onOther.slice(0, 30).map((c) => c.sha));
  for (const origin of await changelog.entries.getByTestId('entry-origin').allTextContents())
    expect(origin).toBe(`on ${OTHER_MACHINE}, at ${OTHER_PERSON}'s vault`);

  // The next page keeps the filter.
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: 'Older →' }).click();
  await expect(page).toHaveURL(/[?&]machine=grace-desktop.*[?&]before=|[?&]before=.*[?&]machine=grace-desktop/);
  await expect(changelog.entries.first()).toHaveAttribute('data-sha', onOther[30].sha);

  // A person too: Grace's commits are all on her machine.
  await changelog.open();
  await changelog.filter('Person', OTHER_PERSON);
  await expect(page).toHaveURL(/[?&]person=Grace\+Hopper/);
  const byGrace = commits().filter((c) => c.person === OTHER_PERSON);
  await expect(changelog.entries.first()).toHaveAttribute('data-sha', byGrace[0].sha);
  expect(byGrace.every((c) => c.machine === OTHER_MACHINE)).toBe(true);

  // Grace never worked on the first machine: nothing matches, and the page says how to get everything back.
  await changelog.filter('Machine', FIRST_MACHINE);
  await expect(page).toHaveURL(/machine=workstation/);
  await expect(changelog.empty).toContainText('No edits match these filters (a machine or person shows only the commits made there)');
  await changelog.empty.getByRole('link', { name: 'Clear the filters and show every edit' }).click();
  await expect(page).toHaveURL(/\/changelog$/);
  await expect(changelog.entries).toHaveCount(30);
});

test('the sessions list shows where each session ran and narrows to a machine and a person', async ({ page }) => {
  const sessions = new SessionsPage(page);
  await sessions.open();
  const onOther = sessionsOn(OTHER_MACHINE);
  expect(onOther.length).toBeGreaterThan(3);

  await sessions.filter('Machine', OTHER_MACHINE, 'machine');
  await expect(sessions.rows).toHaveCount(onOther.length);
  expect(await sessions.ids()).toEqual(onOther);
  for (const where of await sessions.rows.getByTestId('session-origin').allTextContents()) expect(where).toBe(`${OTHER_MACHINE}${OTHER_PERSON}`);

  await sessions.filter('Person', OTHER_PERSON, 'person');
  expect(await sessions.ids()).toEqual(onOther);

  // A session's page says where it ran.
  await sessions.row(onOther[0]).getByTestId('session-link').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${onOther[0]}$`));
  await expect(page.getByTestId('session-where')).toHaveText(`${OTHER_MACHINE}, at ${OTHER_PERSON}'s vault`);

  await sessions.open({ person: OTHER_PERSON });
  await sessions.filter('Machine', FIRST_MACHINE, 'machine');
  await expect(sessions.empty).toContainText('(a machine or person shows only the sessions that ran there)');
  await sessions.empty.getByRole('link', { name: 'Clear the filters and show every session' }).click();
  await expect(page).toHaveURL(/\/sessions$/);
  expect((await sessions.ids()).length).toBeGreaterThan(onOther.length);
});

test("the overview's week narrows to a machine: its figures, its links and the report text; Export stays the team's", async ({ page }) => {
  await page.goto(`/?week=${WEEK}`);
  const edits = page.getByTestId('figure-edits');
  const everyone = Number(await edits.textContent());
  const form = page.getByRole('form', { name: 'Filters' });
  await form.getByLabel('Machine', { exact: true }).selectOption(OTHER_MACHINE);
  await expect(page).toHaveURL(new RegExp(`week=${WEEK}.*machine=${OTHER_MACHINE}`));
  await expect(edits).not.toHaveText(String(everyone));
  const narrowed = Number(await edits.textContent());
  expect(narrowed).toBeGreaterThan(0);
  expect(narrowed).toBeLessThan(everyone);

  const report = page.getByRole('region', { name: `Report of ${WEEK}` });
  await expect(report.getByRole('button', { name: 'Export report' })).toBeDisabled();
  await expect(report.getByTestId('report-narrowed')).toContainText('clear the machine and person filters to export it');
  await report.getByRole('button', { name: 'Show text' }).click();
  await expect(report.getByRole('textbox', { name: `Report text of ${WEEK}` })).toHaveValue(/Only the work done on the machine `grace-desktop`\./);

  // The week before keeps the machine; the sessions figure leads to the sessions list narrowed the same way.
  await page.getByRole('link', { name: /← 2026-W47/ }).click();
  await expect(page).toHaveURL(/week=2026-W47.*machine=grace-desktop/);
  await page.getByTestId('figure-sessions').click();
  await expect(page).toHaveURL(/\/sessions\?.*machine=grace-desktop/);
  await expect(page.getByRole('form', { name: 'Filters' }).getByLabel('Machine', { exact: true })).toHaveValue(OTHER_MACHINE);
});
