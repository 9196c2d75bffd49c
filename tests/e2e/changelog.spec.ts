import { expect, test } from '../support/e2e-test';
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { e2eServer, e2eVault, rawRequest } from '../support/e2e-vault';
import { ChangelogPage } from '../support/pages/changelog-page';

// Every edit here is made as an agent or a person would make it: the real CLI (`lucid write`,
// `lucid molt`, `lucid propose`, `lucid inbox`), or raw git and plain files for a person's own work.

type Json = Record<string, unknown>;

function lucid(root: string, args: string[]): Json {
  return JSON.parse(execFileSync(process.execPath, ['bin/lucid', ...args, '--vault', root, '--json'], { encoding: 'utf8' })) as Json;
}

function session(root: string, agent: string): string {
  return lucid(root, ['session', 'start', '--agent', agent, '--task', 'changelog browser test']).session as string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const token = () => randomBytes(3).toString('hex');

/** HEAD, the index and every file: what "nothing changed" means (SECURITY-TESTS "vault unchanged", with the index). */
function fullSnapshot(vault: ReturnType<typeof e2eVault>) {
  return { ...vault.snapshot(), index: vault.git(['ls-files', '--stage']), staged: vault.git(['diff', '--cached', '--name-only']) };
}

test('Revert restores the earlier content of an update, and the revert can itself be reverted', async ({ page }) => {
  const vault = e2eVault();
  const id = token();
  const note = `Notes/Changelog update ${id}.md`;
  const s = session(vault.root, 'e2e-changelog');
  const v1 = `# Update ${id}\n\nfirst version\n`;
  const v2 = `# Update ${id}\n\nsecond version\n`;
  lucid(vault.root, ['write', note, '--session', s, '--mode', 'create', '--content', v1, '--reason', 'first draft']);
  // As Lucid wrote them (a created note gets its created and updated properties).
  const first = vault.read(note);
  const update = lucid(vault.root, [
    'write',
    note,
    '--session',
    s,
    '--mode',
    'replace',
    '--content',
    v2,
    '--expected-hash',
    sha256(vault.read(note)),
    '--reason',
    'second draft',
  ]);
  const second = vault.read(note);
  const person = `human:${vault.git(['config', 'user.name']).trim()}`;

  const changelog = new ChangelogPage(page);
  await changelog.open();
  const entry = changelog.entry(update.commit as string);
  await expect(entry.getByTestId('entry-actor')).toHaveText('agent:e2e-changelog');
  await expect(entry.getByTestId('entry-op')).toHaveText('update');
  await expect(entry.getByRole('link', { name: note })).toHaveAttribute('href', `/notes/Notes/${encodeURIComponent(`Changelog update ${id}.md`)}`);
  await expect(entry.getByRole('link', { name: 'session' })).toHaveAttribute('href', `/sessions/${s}`);
  await expect(entry).toContainText('second draft');
  await expect(entry).toContainText((update.commit as string).slice(0, 7));
  const diff = await changelog.showDiff(entry);
  await expect(diff).toContainText('second version');

  const count = Number(vault.git(['rev-list', '--count', 'HEAD']));
  const plan = await changelog.planRevert(entry);
  await expect(plan).toContainText('first version');
  await plan.getByLabel('Reason (optional)').fill('back to the first draft');
  await plan.getByRole('button', { name: 'Confirm revert' }).click();
  await expect(changelog.reverted(update.commit as string)).toBeVisible();
  expect(vault.read(note)).toBe(first);
  expect(Number(vault.git(['rev-list', '--count', 'HEAD']))).toBe(count + 1);
  const revertCommit = vault.git(['rev-parse', 'HEAD']).trim();
  const message = vault.git(['log', '-1', '--format=%B']);
  expect(message).toMatch(/^Lucid-Op: revert$/m);
  expect(message).toContain(`Lucid-Reverts: ${update.edit_id}`);
  expect(message).toContain(`Lucid-Actor: ${person}`);
  expect(message).toContain('back to the first draft');
  await expect(changelog.entries.first()).toHaveAttribute('data-sha', revertCommit);

  await changelog.revert(changelog.entry(revertCommit));
  expect(vault.read(note)).toBe(second);
  expect(vault.git(['log', '-1', '--format=%B'])).toMatch(/^Lucid-Op: revert$/m);
  await expect(changelog.entries.first()).toHaveAttribute('data-sha', vault.git(['rev-parse', 'HEAD']).trim());
});

test('Revert of a molt makes a new molt whose text is the earlier version', async ({ page }) => {
  const vault = e2eVault();
  const name = `e2e-changelog-${token()}`;
  const s = session(vault.root, 'e2e-changelog');
  lucid(vault.root, ['molt', name, '--session', s, '--content', 'Look once at the failing test.\n', '--trigger', 'when a test fails', '--reason', 'new skill']);
  const molt = lucid(vault.root, ['molt', name, '--session', s, '--content', 'Look twice at the failing test.\n', '--reason', 'sharper']);
  expect(molt.version).toBe(2);

  const changelog = new ChangelogPage(page);
  await changelog.open();
  await changelog.revert(changelog.entry(molt.commit as string), 'the first version was better');
  const text = vault.read(`skills/${name}.md`);
  expect(text).toMatch(/^version: 3$/m);
  expect(text).toContain('Look once at the failing test.');
  expect(text).not.toContain('Look twice');
  const message = vault.git(['log', '-1', '--format=%B']);
  expect(message).toMatch(/^Lucid-Op: molt$/m);
  expect(message).toContain(`Lucid-Molt: ${name} 2->3`);
  expect(message).toContain(`Lucid-Reverts: ${molt.edit_id}`);
});

test('Revert of an accept restores the note and puts the proposal back in the inbox', async ({ page }) => {
  const vault = e2eVault();
  const id = token();
  const target = `Notes/Changelog accept ${id}.md`;
  const s = session(vault.root, 'e2e-changelog');
  const before = `# Accept ${id}\n\nas it was\n`;
  lucid(vault.root, ['write', target, '--session', s, '--mode', 'create', '--content', before, '--reason', 'a note to propose on']);
  const proposal = lucid(vault.root, [
    'propose',
    target,
    '--session',
    s,
    '--action',
    'update',
    '--content',
    `# Accept ${id}\n\nas proposed\n`,
    '--reason',
    'unsure',
  ]);
  const inboxPath = proposal.inbox_path as string;
  const inboxText = vault.read(inboxPath);
  lucid(vault.root, ['inbox', 'accept', path.basename(inboxPath, '.md')]);
  expect(vault.read(target)).toContain('as proposed');
  expect(existsSync(path.join(vault.root, inboxPath))).toBe(false);
  const accept = vault.git(['rev-parse', 'HEAD']).trim();

  const changelog = new ChangelogPage(page);
  await changelog.open();
  await expect(changelog.entry(accept).getByTestId('entry-op')).toHaveText('accept');
  await changelog.revert(changelog.entry(accept));
  expect(vault.read(target)).toBe(before);
  expect(vault.read(inboxPath)).toBe(inboxText);
  expect(vault.git(['log', '-1', '--format=%B'])).toMatch(/^Lucid-Op: revert$/m);
});

test("Revert of a person's own commit restores the earlier content and names the commit it reverts", async ({ page }) => {
  const vault = e2eVault();
  const id = token();
  const note = `Notes/My own ${id}.md`;
  const author = vault.git(['config', 'user.name']).trim();
  vault.write(note, `# Mine ${id}\n\nwritten by hand\n`);
  vault.git(['add', '--', note]);
  vault.git(['commit', '-q', '-m', `my own note ${id}`, '--', note]);
  vault.write(note, `# Mine ${id}\n\nrewritten by hand\n`);
  vault.git(['commit', '-q', '-m', `reword ${id}`, '--', note]);
  const own = vault.git(['rev-parse', 'HEAD']).trim();

  const changelog = new ChangelogPage(page);
  await changelog.open();
  const entry = changelog.entry(own);
  await expect(entry).toContainText('not made by Lucid');
  await expect(entry.getByTestId('entry-actor')).toHaveText(author);
  await expect(entry).toContainText(`reword ${id}`);
  await changelog.revert(entry);
  expect(vault.read(note)).toBe(`# Mine ${id}\n\nwritten by hand\n`);
  const message = vault.git(['log', '-1', '--format=%B']);
  expect(message).toContain(`Lucid-Reverts-Commit: ${own}`);
  expect(message).toContain(`Lucid-Actor: human:${author}`);
});

test('a conflicting revert changes nothing (HEAD, the index, every file) and says which later edit is in the way', async ({ page }) => {
  const vault = e2eVault();
  const id = token();
  const note = `Notes/Changelog conflict ${id}.md`;
  const s = session(vault.root, 'e2e-changelog');
  const lines = (third: string) => `# Conflict ${id}\n\none\ntwo\n${third}\nfour\nfive\n`;
  lucid(vault.root, ['write', note, '--session', s, '--mode', 'create', '--content', lines('three'), '--reason', 'start']);
  const c = lucid(vault.root, [
    'write',
    note,
    '--session',
    s,
    '--mode',
    'replace',
    '--content',
    lines('THREE'),
    '--expected-hash',
    sha256(vault.read(note)),
    '--reason',
    'edit C',
  ]);
  const d = lucid(vault.root, [
    'write',
    note,
    '--session',
    s,
    '--mode',
    'replace',
    '--content',
    lines('3'),
    '--expected-hash',
    sha256(vault.read(note)),
    '--reason',
    'edit D',
  ]);

  const changelog = new ChangelogPage(page);
  await changelog.open();
  const before = fullSnapshot(vault);
  const panel = await changelog.planRevert(changelog.entry(c.commit as string));
  await expect(panel.getByRole('alert')).toContainText('Nothing changed.');
  const inTheWay = panel.getByRole('list', { name: 'In the way' });
  await expect(inTheWay).toContainText(note);
  await expect(inTheWay).toContainText((d.commit as string).slice(0, 7));
  await expect(panel.getByRole('button', { name: 'Confirm revert' })).toHaveCount(0);
  expect(fullSnapshot(vault)).toEqual(before);
  expect(vault.read(note)).toContain('\ntwo\n3\nfour\n');
  expect(vault.read(note)).not.toMatch(/^(<<<<<<<|=======|>>>>>>>)/m);
  expect(existsSync(path.join(vault.root, '.git', 'REVERT_HEAD'))).toBe(false);
  expect(existsSync(path.join(vault.root, '.git', 'sequencer'))).toBe(false);
});

test('an edit an agent makes while the page is open appears without a reload, and an open diff stays open', async ({ page }) => {
  const vault = e2eVault();
  const id = token();
  const s = session(vault.root, 'e2e-changelog');
  const changelog = new ChangelogPage(page);
  await changelog.open();
  const top = changelog.entries.first();
  const topSha = (await top.getAttribute('data-sha')) as string;
  await changelog.showDiff(top);
  const note = `Notes/Changelog live ${id}.md`;
  const written = lucid(vault.root, ['write', note, '--session', s, '--mode', 'create', '--content', `# Live ${id}\n`, '--reason', 'written while you watch']);
  await expect(changelog.entries.first()).toHaveAttribute('data-sha', written.commit as string);
  await expect(changelog.entry(written.commit as string)).toContainText(note);
  await expect(changelog.entry(topSha).getByTestId('entry-diff')).toBeVisible();
  await expect(changelog.entry(topSha).getByRole('button', { name: 'Hide diff' })).toBeVisible();
});

test('a file edited outside Lucid is listed with its diff, survives every action, and is committed as the person', async ({ page }) => {
  const vault = e2eVault();
  const id = token();
  const s = session(vault.root, 'e2e-changelog');
  const mine = `Notes/Typed in Obsidian ${id}.md`;
  const other = `Notes/Changelog other ${id}.md`;
  const base = `# Obsidian ${id}\n\ncommitted line\n`;
  lucid(vault.root, ['write', mine, '--session', s, '--mode', 'create', '--content', base, '--reason', 'start']);
  const mineUpdate = lucid(vault.root, ['write', mine, '--session', s, '--mode', 'append', '--content', 'agent line\n', '--reason', 'agent adds']);
  lucid(vault.root, ['write', other, '--session', s, '--mode', 'create', '--content', `# Other ${id}\n\nold\n`, '--reason', 'start']);
  const otherFirst = vault.read(other);
  const otherUpdate = lucid(vault.root, [
    'write',
    other,
    '--session',
    s,
    '--mode',
    'replace',
    '--content',
    `# Other ${id}\n\nnew\n`,
    '--expected-hash',
    sha256(vault.read(other)),
    '--reason',
    'update to revert',
  ]);
  const typed = `${vault.read(mine)}a line typed in Obsidian ${id}\n`;
  vault.write(mine, typed);

  const changelog = new ChangelogPage(page);
  await page.goto('/');
  await page.getByRole('link', { name: 'See them and commit them as yours' }).click();
  await expect(page).toHaveURL(/\/changelog#uncommitted$/);
  const file = changelog.uncommittedFile(mine);
  await expect(file).toContainText('modified');
  await file.getByRole('button', { name: 'Show diff' }).click();
  await expect(file.locator('.d2h-file-wrapper')).toContainText(`a line typed in Obsidian ${id}`);

  // The revert of an edit of that file is refused for it, and nothing is touched.
  const before = fullSnapshot(vault);
  const blocked = await changelog.planRevert(changelog.entry(mineUpdate.commit as string));
  await expect(blocked.getByRole('list', { name: 'In the way' })).toContainText(mine);
  await expect(blocked.getByRole('list', { name: 'In the way' })).toContainText('nobody committed');
  expect(fullSnapshot(vault)).toEqual(before);

  // Another edit's revert goes ahead and leaves the file as the person typed it.
  await changelog.revert(changelog.entry(otherUpdate.commit as string));
  expect(vault.read(other)).toBe(otherFirst);
  expect(vault.read(mine)).toBe(typed);
  expect(vault.git(['status', '--porcelain', '--', mine])).toMatch(/^ M /);

  const count = Number(vault.git(['rev-list', '--count', 'HEAD']));
  await changelog.commitUncommitted([mine], 'my Obsidian edit');
  expect(Number(vault.git(['rev-list', '--count', 'HEAD']))).toBe(count + 1);
  const name = vault.git(['config', 'user.name']).trim();
  expect(vault.git(['log', '-1', '--format=%an'])).toBe(`${name}\n`);
  const message = vault.git(['log', '-1', '--format=%B']);
  expect(message).toContain(`Lucid-Actor: human:${name}`);
  expect(vault.git(['show', '--name-only', '--format=', 'HEAD'])).toContain(mine);
  expect(vault.read(mine)).toBe(typed);
  expect(vault.git(['status', '--porcelain', '--', mine])).toBe('');
  await expect(changelog.uncommittedFile(mine)).toHaveCount(0);
});

test('#32 a commit whose lines and file name hold markup shows them as text, and no script runs', async ({ page }) => {
  const vault = e2eVault();
  const dialogs: string[] = [];
  page.on('dialog', async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  await page.addInitScript(() => {
    (window as unknown as { __xss: number }).__xss = 0;
    window.alert = () => {
      (window as unknown as { __xss: number }).__xss += 1;
    };
  });
  const id = token();
  const name = `"><img src=x onerror=alert(1)> ${id}.md`;
  const far = ['a <a href="javascript:alert(1)">function context</a>', 'x', 'x', 'x', 'x', 'x', 'x'];
  vault.write(name, [...far, '<script>alert(1)</script> context', 'old <img src=x onerror=alert(1)>', 'end', ''].join('\n'));
  vault.git(['add', '--', name]);
  vault.git(['commit', '-q', '-m', `<script>alert(1)</script> ${id}`, '--', name]);
  vault.write(name, [...far, '<script>alert(1)</script> context', 'new <script>alert(1)</script>', 'end', ''].join('\n'));
  vault.git(['commit', '-q', '-m', `markup ${id}`, '--', name]);
  const sha = vault.git(['rev-parse', 'HEAD']).trim();

  const changelog = new ChangelogPage(page);
  await changelog.open();
  const entry = changelog.entry(sha);
  await expect(entry.getByRole('link', { name })).toBeVisible();
  const diff = await changelog.showDiff(entry);
  await expect(diff).toContainText('new <script>alert(1)</script>');
  await expect(diff).toContainText('old <img src=x onerror=alert(1)>');
  await expect(diff).toContainText('<script>alert(1)</script> context');
  await expect(diff.locator('script')).toHaveCount(0);
  await expect(diff.locator('img')).toHaveCount(0);
  await expect(diff.locator('a[href^="javascript"]')).toHaveCount(0);
  const older = changelog.entries.filter({ hasText: `<script>alert(1)</script> ${id}` });
  await expect(older).toHaveCount(1);
  await expect(page.locator('img[onerror]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __xss: number }).__xss)).toBe(0);
  expect(dialogs).toEqual([]);
});

test('filters by actor, operation, note type and dates live in the URL; pages go older and newer; j and k move', async ({ page }) => {
  const vault = e2eVault();
  const agent = `e2e-filter-${token()}`;
  const s = session(vault.root, agent);
  const note = `Notes/Filtered ${agent}.md`;
  const made = lucid(vault.root, ['write', note, '--session', s, '--mode', 'create', '--content', `# ${agent}\n`, '--reason', 'for the filter']);
  const changelog = new ChangelogPage(page);
  await changelog.open();

  await changelog.filter('Actor', `agent:${agent}`);
  await expect(page).toHaveURL(new RegExp(`actor=agent%3A${agent}`));
  await expect(changelog.entries).toHaveCount(1);
  await expect(changelog.entries.first()).toHaveAttribute('data-sha', made.commit as string);
  await page.reload();
  await expect(changelog.entries).toHaveCount(1);

  await changelog.open({ op: 'molt' });
  await expect(changelog.entries.first()).toBeVisible();
  for (const op of await changelog.entries.getByTestId('entry-op').allTextContents()) expect(op).toBe('molt');

  await changelog.open();
  await changelog.filter('Note type', 'decision');
  await expect(page).toHaveURL(/type=decision/);
  await expect(changelog.entries.first()).toBeVisible();
  const decisionShas = await changelog.entries.evaluateAll((els) => els.map((e) => e.getAttribute('data-sha') ?? ''));
  for (const sha of decisionShas) expect(vault.git(['show', '--name-only', '--format=', sha]), sha).toMatch(/^decisions\//m);

  const own = `Notes/Own ${agent}.md`;
  vault.write(own, `# ${agent}\n`);
  vault.git(['add', '--', own]);
  vault.git(['commit', '-q', '-m', `by hand ${agent}`, '--', own]);
  const ownSha = vault.git(['rev-parse', 'HEAD']).trim();
  await changelog.open();
  await changelog.filter('Actor', 'foreign');
  await expect(page).toHaveURL(/actor=foreign/);
  await expect(changelog.entries.first()).toHaveAttribute('data-sha', ownSha);
  for (const entry of await changelog.entries.all()) await expect(entry).toContainText('not made by Lucid');

  await changelog.open();
  await changelog.filter('From', '2026-11-20');
  await expect(page).toHaveURL(/since=2026-11-20/);
  await changelog.filter('To', '2026-11-21');
  await expect(page).toHaveURL(/until=2026-11-21/);
  await expect(changelog.entries.first()).toBeVisible();
  for (const time of await changelog.entries.locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime') ?? ''))) {
    expect(time >= '2026-11-20T00:00' && time < '2026-11-22T00:00', time).toBe(true);
  }
  await page.getByRole('link', { name: 'Clear filters' }).click();
  await expect(page).toHaveURL(/\/changelog$/);

  await changelog.open({ actor: `agent:nobody-${agent}` });
  await expect(changelog.empty).toContainText('No edits match these filters.');

  // Lucid's install commit says why it is not reverted instead of offering a button that fails.
  await changelog.open({ op: 'init' });
  const init = changelog.entries.last();
  await expect(init.getByTestId('revert-refused')).toContainText('install');
  await expect(init.getByRole('button', { name: 'Revert…' })).toHaveCount(0);

  await changelog.open();
  const firstSha = await changelog.entries.first().getAttribute('data-sha');
  await page.getByRole('link', { name: 'Older →' }).click();
  await expect(page).toHaveURL(/before=\d+/);
  await expect(changelog.entries.first()).not.toHaveAttribute('data-sha', firstSha as string);
  await page.getByRole('link', { name: '← Newer' }).click();
  await expect(page).toHaveURL(/\/changelog$/);
  await expect(changelog.entries.first()).toHaveAttribute('data-sha', firstSha as string);

  await page.keyboard.press('j');
  await expect(changelog.entries.nth(0)).toBeFocused();
  await page.keyboard.press('j');
  await expect(changelog.entries.nth(1)).toBeFocused();
  await page.keyboard.press('k');
  await expect(changelog.entries.nth(0)).toBeFocused();
});

test('a merge commit shows why it is not reverted', async ({ page }) => {
  const vault = e2eVault();
  const id = token();
  const branch = `side-${id}`;
  const main = vault.git(['rev-parse', '--abbrev-ref', 'HEAD']).trim();
  vault.git(['switch', '-q', '-c', branch]);
  vault.write(`Notes/Side ${id}.md`, `# Side ${id}\n`);
  vault.git(['add', '--', `Notes/Side ${id}.md`]);
  vault.git(['commit', '-q', '-m', `side ${id}`, '--', `Notes/Side ${id}.md`]);
  vault.git(['switch', '-q', main]);
  vault.git(['merge', '-q', '--no-ff', '-m', `merge ${branch}`, branch]);
  vault.git(['branch', '-q', '-d', branch]);
  const merge = vault.git(['rev-parse', 'HEAD']).trim();

  const changelog = new ChangelogPage(page);
  await changelog.open();
  const entry = changelog.entry(merge);
  await expect(entry.getByTestId('revert-refused')).toContainText('merge');
  await expect(entry.getByRole('button', { name: 'Revert…' })).toHaveCount(0);
});

/** The id of each changelog action in this build (the server-reference manifest names its export). */
function changelogActions(): Record<string, string> {
  const manifest = JSON.parse(readFileSync(path.join('.next', 'server', 'server-reference-manifest.json'), 'utf8')) as {
    node?: Record<string, { exportedName?: string; filename?: string }>;
  };
  const out: Record<string, string> = {};
  for (const [id, entry] of Object.entries(manifest.node ?? {}))
    if (entry.filename?.endsWith('lib/actions/changelog.ts') && entry.exportedName) out[entry.exportedName] = id;
  return out;
}

test('#11 #12 forged and oversized arguments to the changelog actions are refused with no stack trace, and nothing changes', async () => {
  const vault = e2eVault();
  const { port, token: secret } = e2eServer();
  const host = `127.0.0.1:${port}`;
  const ids = changelogActions();
  expect(Object.keys(ids).sort()).toEqual([
    'commitDiffAction',
    'commitUncommittedAction',
    'listChangelogAction',
    'listUncommittedAction',
    'planRevertAction',
    'revertAction',
  ]);
  const call = (name: string, body: string) =>
    rawRequest({
      method: 'POST',
      path: '/changelog',
      headers: {
        Host: host,
        Cookie: `lucid_${port}=${secret}`,
        Origin: `http://${host}`,
        'Next-Action': ids[name],
        'Content-Type': 'text/plain;charset=UTF-8',
      },
      body,
    });
  const before = fullSnapshot(vault);
  const forged: [string, unknown][] = [
    ['revertAction', { ref: '--output=/tmp/x' }],
    ['revertAction', { ref: 'HEAD~1;rm' }],
    ['revertAction', { ref: '-c core.pager=sh' }],
    ['revertAction', { ref: 'abc1234' }],
    ['revertAction', { ref: 'eaaaaaaaaaaaa', reason: 'x'.repeat(501) }],
    ['revertAction', { ref: 'eaaaaaaaaaaaa', extra: true }],
    ['revertAction', { ref: 42 }],
    ['planRevertAction', { ref: '../../etc/passwd' }],
    ['commitDiffAction', { sha: 'HEAD' }],
    ['commitUncommittedAction', { paths: ['../../etc/passwd'] }],
    ['commitUncommittedAction', { paths: ['/etc/passwd'] }],
    ['commitUncommittedAction', { paths: [] }],
    ['commitUncommittedAction', { paths: 'Notes/a.md' }],
    ['listChangelogAction', { op: 'drop' }],
    ['listChangelogAction', { type: 'secret' }],
    ['listChangelogAction', { before: -1 }],
    ['listChangelogAction', { since: '2026-13-45' }],
    ['listUncommittedAction', { all: true }],
  ];
  for (const [name, input] of forged) {
    const response = await call(name, JSON.stringify([input]));
    expect(response.status, `${name} ${JSON.stringify(input)}`).toBe(200);
    expect(response.body, `${name} ${JSON.stringify(input)}`).toContain('invalid_input');
    expect(response.body).not.toMatch(/\n\s+at .+:\d+:\d+/);
  }
  // Well formed, but naming no commit or no uncommitted note: refused by the vault, nothing written.
  expect((await call('revertAction', JSON.stringify([{ ref: '0'.repeat(40) }]))).body).toContain('not_found');
  expect((await call('commitUncommittedAction', JSON.stringify([{ paths: ['Notes/no such note.md'] }]))).body).toContain('invalid_input');
  // Past the body size limit (1 MB): refused before the action runs, and the server goes on serving.
  const huge = await call('revertAction', JSON.stringify([{ ref: 'eaaaaaaaaaaaa', reason: 'x'.repeat(2 * 1024 * 1024) }]));
  expect(huge.body).not.toMatch(/\n\s+at .+:\d+:\d+/);
  expect((await call('listChangelogAction', '[{}]')).body).toContain('"entries"');
  expect(fullSnapshot(vault)).toEqual(before);
});

test('the filters are disabled until the page has hydrated: a choice made earlier would change no URL', async ({ page }) => {
  const scripts = /\/_next\/static\/.*\.js$/;
  await page.route(scripts, (route) => route.abort());
  const changelog = new ChangelogPage(page);
  await changelog.open();
  const form = page.getByRole('form', { name: 'Filters' });
  for (const label of ['Actor', 'Operation', 'From']) await expect(form.getByLabel(label, { exact: true })).toBeDisabled();
  await page.unroute(scripts);
  await changelog.open();
  for (const label of ['Actor', 'Operation', 'From']) await expect(form.getByLabel(label, { exact: true })).toBeEnabled();
});
