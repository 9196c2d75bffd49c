import { expect, test } from '../support/e2e-test';
import { listenToWatcher } from '../support/pages/outside-edit';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { e2eVault } from '../support/e2e-vault';
import { SkillPage, SkillsListPage } from '../support/pages/skill-pages';

// Skills are molted as an agent molts them (the real CLI), renamed and archived by a person with
// raw git, and every change the page makes is checked with raw git.

type Json = Record<string, unknown>;

function lucid(root: string, args: string[]): Json {
  return JSON.parse(execFileSync(process.execPath, ['bin/lucid', ...args, '--vault', root, '--json'], { encoding: 'utf8' })) as Json;
}

const token = () => randomBytes(3).toString('hex');

// Each test first molts a skill four times through the CLI (a Node process per molt): slow on a busy machine.
test.slow();
const STEPS = [
  '1. Read the logs.\n',
  '1. Read the logs.\n2. Find the first error.\n',
  '1. Read the logs from the start.\n2. Find the first error.\n',
  '1. Read the logs from the start.\n2. Find the first error.\n3. Write it down.\n',
];
const REASONS = ['first steps', 'the first error matters', 'from the start, not the tail', 'so the next agent knows'];

/** A new skill molted four times through the CLI; the commit of each version. */
function fourVersions(root: string, name: string): string[] {
  const session = lucid(root, ['session', 'start', '--agent', 'e2e-skills', '--task', 'skill history test']).session as string;
  return STEPS.map((content, i) => {
    const args = ['molt', name, '--session', session, '--content', content, '--reason', REASONS[i], ...(i === 0 ? ['--trigger', 'when a job fails'] : [])];
    const result = lucid(root, args);
    expect(result.version).toBe(i + 1);
    return result.commit as string;
  });
}

test("the list shows the demo's molted skills; search filters as you type, sort orders, archived skills have their own section", async ({ page }) => {
  const vault = e2eVault();
  const name = `e2e-archived-${token()}`;
  fourVersions(vault.root, name);
  const watcher = await listenToWatcher();
  mkdirSync(path.join(vault.root, 'skills/archive'), { recursive: true });
  vault.git(['mv', `skills/${name}.md`, `skills/archive/${name}.md`]);
  vault.git(['commit', '-qm', `Archive ${name}`]);
  await watcher.seen(`skills/archive/${name}.md`);
  watcher.close();

  const list = new SkillsListPage(page);
  await list.open();
  await expect(list.rows('Archived skills').filter({ hasText: name })).toBeVisible();
  const migrations = list.row('skills/run-db-migrations-safely.md');
  await expect(migrations.getByTestId('skill-version')).toHaveText('5');
  await expect(migrations.getByTestId('skill-molts')).toHaveText('5');
  await expect(migrations).toContainText('changing a Postgres schema in atlas or delta');
  await expect(migrations.getByTestId('skill-last-used').getByRole('link')).toHaveAttribute('href', /^\/sessions\//);

  await expect(list.rows('Archived skills').filter({ hasText: name })).toHaveCount(1);
  await expect(list.rows('Skills').filter({ hasText: name })).toHaveCount(0);

  await list.search.fill('flaky');
  await expect(list.rows('Skills')).toHaveCount(1);
  await expect(list.rows('Skills').first()).toHaveAttribute('data-path', 'skills/triage-flaky-tests.md');
  await list.search.fill('postgres schema');
  await expect(list.rows('Skills')).toHaveCount(1);
  await expect(list.rows('Skills').first()).toHaveAttribute('data-path', 'skills/run-db-migrations-safely.md');
  await list.search.fill('');

  await list.sort.selectOption({ label: 'Molts' });
  await expect(list.rows('Skills').first()).toHaveAttribute('data-path', 'skills/run-db-migrations-safely.md');
  await list.sort.selectOption({ label: 'Name' });
  const paths = await list.rows('Skills').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-path') ?? ''));
  const names = await list.rows('Skills').locator('td:first-child').allTextContents();
  expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
  expect(paths).toContain('skills/handle-intermittent-ci-failures.md');
});

test("a skill's page shows its versions with their reasons, the latest molt's diff, and any two versions' diff", async ({ page }) => {
  const vault = e2eVault();
  const name = `e2e-diff-${token()}`;
  const commits = fourVersions(vault.root, name);
  const skill = new SkillPage(page);
  await skill.open(name);
  await expect(skill.versions).toHaveCount(4);
  for (const [i, sha] of commits.entries()) {
    const entry = skill.version(sha);
    await expect(entry.getByTestId('version-number')).toHaveText(`v${i + 1}`);
    await expect(entry.getByTestId('version-reason')).toHaveText(REASONS[i]);
    await expect(entry.getByTestId('version-actor')).toHaveText('agent:e2e-skills');
    await expect(entry.getByRole('link', { name: 'session' })).toHaveAttribute('href', /^\/sessions\/\d{8}-\d{6}-e2e-skills-/);
  }
  await expect(page.getByTestId('skill-text')).toContainText('Write it down.');

  // The latest molt's diff first: version 3 to version 4.
  await expect(skill.diff.locator('.d2h-file-wrapper')).toBeVisible();
  await expect(skill.diff.locator('.d2h-ins').filter({ hasText: 'Write it down.' }).first()).toBeVisible();
  await expect(skill.diff).not.toContainText('Read the logs.');

  await skill.compare(/^v1 /, /^v4 /);
  const raw = vault.git(['diff', `${commits[0]}:skills/${name}.md`, `${commits[3]}:skills/${name}.md`]);
  for (const line of raw.split('\n').filter((l) => /^[-+][^-+]/.test(l))) {
    const cls = line.startsWith('+') ? '.d2h-ins' : '.d2h-del';
    await expect(
      skill.diff
        .locator(cls)
        .filter({ hasText: line.slice(1).trim() })
        .first(),
    ).toBeVisible();
  }
  await expect(skill.diff.locator('.d2h-del').filter({ hasText: 'version: 1' }).first()).toBeVisible();
  await page.getByRole('button', { name: 'Line by line' }).click();
  await expect(skill.diff.locator('.d2h-file-side-diff')).toHaveCount(0);
  await expect(skill.diff.locator('.d2h-ins').filter({ hasText: 'Find the first error.' }).first()).toBeVisible();
  await page.getByRole('button', { name: 'Side by side' }).click();
  await expect(skill.diff.locator('.d2h-file-side-diff').first()).toBeVisible();
});

test('the demo skill shows every molt with its reason and actor', async ({ page }) => {
  const vault = e2eVault();
  const path = 'skills/run-db-migrations-safely.md';
  const skill = new SkillPage(page);
  await skill.open('run-db-migrations-safely');
  const molts = vault.git(['log', '--format=%H', '--grep=^Lucid-Op: molt$', '--', path]).trim().split('\n');
  expect(molts.length).toBeGreaterThanOrEqual(5);
  for (const sha of molts) {
    const reason = vault.git(['log', '-1', '--format=%b', sha]).split('\n')[0];
    const actor = /^Lucid-Actor: (.*)$/m.exec(vault.git(['log', '-1', '--format=%b', sha]))?.[1];
    await expect(skill.version(sha).getByTestId('version-reason')).toHaveText(reason);
    await expect(skill.version(sha).getByTestId('version-actor')).toHaveText(actor ?? '');
  }
});

test('Restore this version makes one molt by the person whose text is that version', async ({ page }) => {
  const vault = e2eVault();
  const name = `e2e-restore-${token()}`;
  const file = `skills/${name}.md`;
  const commits = fourVersions(vault.root, name);
  const person = `human:${vault.git(['config', 'user.name']).trim()}`;
  const skill = new SkillPage(page);
  await skill.open(name);
  const before = Number(vault.git(['rev-list', '--count', 'HEAD']));

  // Nothing is sent without a reason.
  await skill.version(commits[1]).getByRole('button', { name: 'Restore this version' }).click();
  await expect(skill.version(commits[1]).getByRole('button', { name: 'Restore version 2' })).toBeDisabled();
  await skill.version(commits[1]).getByRole('button', { name: 'Cancel' }).click();

  await skill.restore(commits[1], 'two steps were enough');
  await expect(skill.status).toContainText('Restored version 2 as version 5');
  expect(Number(vault.git(['rev-list', '--count', 'HEAD']))).toBe(before + 1);
  const message = vault.git(['log', '-1', '--format=%B']);
  expect(message).toMatch(/^Lucid-Op: molt$/m);
  expect(message).toContain(`Lucid-Molt: ${name} 4->5`);
  expect(message).toContain(`Lucid-Actor: ${person}`);
  expect(message).toContain('two steps were enough');
  expect(vault.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n').sort()).toEqual(['changelog.md', file]);
  const strip = (text: string) => text.replace(/^(version|last_updated|updated): .*\n/gm, '');
  expect(strip(vault.read(file))).toBe(strip(vault.git(['show', `${commits[1]}:${file}`])));
  expect(vault.read(file)).toMatch(/^version: 5$/m);
  const head = vault.git(['rev-parse', 'HEAD']).trim();
  await expect(skill.versions.first()).toHaveAttribute('data-sha', head);
  await expect(skill.versions.first().getByTestId('version-actor')).toHaveText(person);
  await expect(page.getByTestId('skill-current-version')).toHaveText('5');
});

test('a restore after an agent molted the skill meanwhile is refused and changes nothing', async ({ page }) => {
  const vault = e2eVault();
  const name = `e2e-conflict-${token()}`;
  const commits = fourVersions(vault.root, name);
  const skill = new SkillPage(page);
  await skill.open(name);
  const session = lucid(vault.root, ['session', 'start', '--agent', 'e2e-other', '--task', 'molt meanwhile']).session as string;
  lucid(vault.root, ['molt', name, '--session', session, '--content', '1. Ask first.\n', '--reason', 'the agent learned more']);
  const head = vault.git(['rev-parse', 'HEAD']).trim();
  const text = vault.read(`skills/${name}.md`);
  const form = await skill.restore(commits[0], 'back to the start');
  await expect(form.getByRole('alert')).toContainText('changed since you opened it (last by agent:e2e-other, now version 5); nothing was restored');
  expect(vault.git(['rev-parse', 'HEAD']).trim()).toBe(head);
  expect(vault.read(`skills/${name}.md`)).toBe(text);
});

test("reverting a molt from the skill page is the changelog's revert: a new molt with the earlier text", async ({ page }) => {
  const vault = e2eVault();
  const name = `e2e-revert-${token()}`;
  const commits = fourVersions(vault.root, name);
  const edit = /^Lucid-Edit: (.*)$/m.exec(vault.git(['log', '-1', '--format=%B', commits[3]]))?.[1];
  const skill = new SkillPage(page);
  await skill.open(name);
  await skill.version(commits[3]).getByRole('button', { name: 'Revert this molt…' }).click();
  const panel = skill.version(commits[3]).getByRole('region', { name: 'Revert' });
  await expect(panel).toContainText(`molt skills/${name}.md to version 5 with the text it had before`);
  await panel.getByLabel('Reason (optional)').fill('step three was noise');
  await panel.getByRole('button', { name: 'Confirm revert' }).click();
  await expect(skill.status).toContainText(`Reverted ${commits[3].slice(0, 7)}`);
  const message = vault.git(['log', '-1', '--format=%B']);
  expect(message).toMatch(/^Lucid-Op: molt$/m);
  expect(message).toContain(`Lucid-Molt: ${name} 4->5`);
  expect(message).toContain(`Lucid-Reverts: ${edit}`);
  expect(vault.read(`skills/${name}.md`)).not.toContain('Write it down.');
  await expect(skill.versions.first()).toHaveAttribute('data-sha', vault.git(['rev-parse', 'HEAD']).trim());
});
