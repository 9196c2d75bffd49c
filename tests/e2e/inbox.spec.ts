import { expect, test } from '../support/e2e-test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { e2eServer, e2eVault, rawRequest } from '../support/e2e-vault';
import { InboxPage } from '../support/pages/inbox-page';

// Items are made the way agents make them: through the `lucid` CLI's agent verbs or the MCP server,
// never by writing inbox files by hand. Each test uses its own agent and notes, so tests do not
// depend on each other or on the demo's own items. Everything is checked with raw git.

const vault = e2eVault();

function lucid(args: string[]): Record<string, unknown> {
  const out = execFileSync(process.execPath, ['bin/lucid', ...args, '--vault', vault.root, '--json'], { encoding: 'utf8' });
  return JSON.parse(out) as Record<string, unknown>;
}

/** A fresh agent session through the CLI; returns its id and the agent's slug. */
function agentSession(name: string): { session: string; agent: string } {
  const agent = `${name}-${randomBytes(3).toString('hex')}`;
  const started = lucid(['session', 'start', '--agent', agent, '--task', `e2e inbox test ${name}`]);
  return { session: started.session as string, agent };
}

function writeNote(session: string, path: string, content: string) {
  lucid(['write', path, '--session', session, '--mode', 'create', '--content', content, '--reason', 'e2e: a note to propose changes to']);
}

function propose(session: string, target: string, action: string, content: string, reason = 'e2e: not sure about this'): string {
  const args = ['propose', target, '--session', session, '--action', action, '--reason', reason];
  if (content !== '') args.push('--content', content);
  return lucid(args).inbox_path as string;
}

const commitCount = () => Number(vault.git(['rev-list', '--count', 'HEAD']).trim());
const changelogLines = () =>
  vault
    .read('changelog.md')
    .split('\n')
    .filter((l) => /^- .* \^e[a-z2-7]{12}$/.test(l));
const filesOf = (rev = 'HEAD') => vault.git(['show', '--name-only', '--format=', rev, '--']).split('\n').filter(Boolean).sort();
const trailer = (key: string, rev = 'HEAD') =>
  vault
    .git(['log', '-1', '--format=%(trailers:only,unfold)', rev])
    .split('\n')
    .find((l) => l.startsWith(`${key}: `))
    ?.slice(key.length + 2);
const exists = (path: string) => vault.files().includes(path);
const uid = () => randomBytes(3).toString('hex');
/** A person's own commit of a file, made with plain git as obsidian-git would. */
function personCommits(path: string, text: string) {
  vault.write(path, text);
  vault.git(['add', '--', path]);
  vault.git(['-c', 'user.name=Ada Person', '-c', 'user.email=ada@example.com', 'commit', '-q', '-m', `vault backup: ${path}`, '--', path]);
}

test('Accept applies an update in one commit with one changelog line, as the person, carrying the session', async ({ page }) => {
  const { session } = agentSession('accept');
  const target = `Notes/e2e-accept-${uid()}.md`;
  writeNote(session, target, '# Accept me\n\nline one\n');
  const inboxPath = propose(session, target, 'update', '# Accept me\n\nline one\nline two from the agent\n');
  const before = { commits: commitCount(), lines: changelogLines().length };

  const inbox = new InboxPage(page);
  await inbox.open();
  await inbox.select(target);
  await expect(inbox.item.locator('.d2h-ins').filter({ hasText: 'line two from the agent' }).first()).toBeVisible();
  await inbox.acceptButton.click();
  await expect(inbox.result).toContainText('Accepted');
  await expect(inbox.row(target)).toHaveCount(0);

  expect(commitCount()).toBe(before.commits + 1);
  expect(changelogLines().length).toBe(before.lines + 1);
  expect(changelogLines()[0]).toMatch(/· human:[^·]+ · accept /);
  expect(filesOf()).toEqual(['changelog.md', inboxPath, target].sort());
  expect(trailer('Lucid-Op')).toBe('accept');
  expect(trailer('Lucid-Actor')).toMatch(/^human:/);
  expect(trailer('Lucid-Session')).toBe(session);
  expect(vault.read(target)).toBe('# Accept me\n\nline one\nline two from the agent\n');
  expect(exists(inboxPath)).toBe(false);
  expect(vault.git(['status', '--porcelain', '--', target, inboxPath])).toBe('');
});

test('Edit then Accept saves the person’s version in one commit, recorded as edited', async ({ page }) => {
  const { session } = agentSession('edit');
  const target = `Notes/e2e-edit-${uid()}.md`;
  writeNote(session, target, '# Edit me\n\nfirst\n');
  const inboxPath = propose(session, target, 'update', '# Edit me\n\nfirst\nthe agent wrote this\n');
  const before = { commits: commitCount(), lines: changelogLines().length };

  const inbox = new InboxPage(page);
  await inbox.open();
  await inbox.select(target);
  await inbox.editButton.click();
  await expect(inbox.editor).toBeFocused();
  await expect.poll(() => inbox.editorText(inbox.editor)).toBe('# Edit me\n\nfirst\nthe agent wrote this\n');
  await expect(page.getByRole('region', { name: 'The note now' })).toContainText('first');
  await inbox.editor.fill('# Edit me\n\nfirst\nthe person rewrote it\n');
  await inbox.acceptEditedButton.click();
  await expect(inbox.result).toContainText('Accepted your version');

  expect(commitCount()).toBe(before.commits + 1);
  expect(changelogLines().length).toBe(before.lines + 1);
  expect(changelogLines()[0]).toMatch(/· human:[^·]+ · accept .*edited/);
  expect(filesOf()).toEqual(['changelog.md', inboxPath, target].sort());
  expect(vault.read(target)).toBe('# Edit me\n\nfirst\nthe person rewrote it\n');
  expect(exists(inboxPath)).toBe(false);
});

test('Reject removes the proposal in one commit with the reason, and leaves the target alone', async ({ page }) => {
  const { session } = agentSession('reject');
  const target = `Notes/e2e-reject-${uid()}.md`;
  const inboxPath = propose(session, target, 'create', '# Never made\n\nThe agent wanted this note.\n');
  const before = { commits: commitCount(), lines: changelogLines().length };

  const inbox = new InboxPage(page);
  await inbox.open();
  await inbox.select(target);
  await expect(inbox.item.getByRole('region', { name: 'The new note' })).toContainText('The agent wanted this note.');
  await inbox.rejectButton.click();
  await expect(inbox.reasonBox).toBeFocused();
  await inbox.reasonBox.fill('we keep this in the handbook');
  await inbox.rejectForm.getByRole('button', { name: 'Reject' }).click();
  await expect(inbox.result).toContainText('Rejected');

  expect(commitCount()).toBe(before.commits + 1);
  expect(changelogLines().length).toBe(before.lines + 1);
  expect(changelogLines()[0]).toMatch(/· human:[^·]+ · reject .*we keep this in the handbook/);
  expect(filesOf()).toEqual(['changelog.md', inboxPath].sort());
  expect(trailer('Lucid-Op')).toBe('reject');
  expect(exists(inboxPath)).toBe(false);
  expect(exists(target)).toBe(false);
});

test('a note changed since the item was opened: the accept is refused in words, the reload shows the merge, and only a marker-free merge is saved', async ({
  page,
}) => {
  const { session } = agentSession('merge');
  const target = `Notes/e2e-merge-${uid()}.md`;
  writeNote(session, target, '# Merge\n\nalpha\nbeta\ngamma\n');
  const inboxPath = propose(session, target, 'update', '# Merge\n\nalpha\nbeta by the agent\ngamma\n');

  const inbox = new InboxPage(page);
  await inbox.open();
  await inbox.select(target);
  await expect(inbox.acceptButton).toBeEnabled();
  personCommits(target, '# Merge\n\nalpha\nbeta by the person\ngamma\n');
  const before = { commits: commitCount(), lines: changelogLines().length };
  await inbox.acceptButton.click();
  await expect(inbox.alert).toContainText('Changed since you opened it');
  expect(commitCount()).toBe(before.commits);

  await inbox.alert.getByRole('button', { name: 'Reload the item' }).click();
  await expect(inbox.merge).toBeVisible();
  await expect(inbox.merge.getByRole('heading', { name: 'Changed in the note since the proposal' })).toBeVisible();
  await expect.poll(() => inbox.editorText(inbox.mergeEditor)).toMatch(/^<{7}/m);
  await expect(inbox.acceptButton).toBeDisabled();
  await expect(inbox.item).toContainText('Resolve the conflict markers');

  await inbox.mergeEditor.fill('# Merge\n\nalpha\nbeta by both\ngamma\n');
  await expect(inbox.acceptButton).toBeEnabled();
  await inbox.acceptButton.click();
  await expect(inbox.result).toContainText('Accepted');

  expect(commitCount()).toBe(before.commits + 1);
  expect(changelogLines().length).toBe(before.lines + 1);
  expect(vault.read(target)).toBe('# Merge\n\nalpha\nbeta by both\ngamma\n');
  expect(vault.read(target)).not.toMatch(/^(<{7}|={7}|>{7})/m);
  expect(exists(inboxPath)).toBe(false);
});

test('the keyboard: j and k move with focus, a e r act, and typing in the reason box or the editor triggers nothing', async ({ page }) => {
  const { session, agent } = agentSession('keys');
  const targets = ['one', 'two', 'three'].map((n) => `Notes/e2e-keys-${n}-${uid()}.md`);
  for (const [i, t] of targets.entries()) propose(session, t, 'create', `# Key test ${i}\n\nBody ${i}.\n`);
  const before = { commits: commitCount(), lines: changelogLines().length };

  const inbox = new InboxPage(page);
  await inbox.open(`?agent=${agent}`);
  await expect(inbox.keysHint).toContainText('accept');
  await expect(inbox.queue.getByRole('row')).toHaveCount(4);
  await expect(inbox.itemHeading).toContainText(targets[0]);

  await page.keyboard.press('j');
  await expect(inbox.selectedRow).toContainText(targets[1]);
  await expect(inbox.rowButton(targets[1])).toBeFocused();
  await expect(inbox.itemHeading).toContainText(targets[1]);
  await page.keyboard.press('k');
  await expect(inbox.rowButton(targets[0])).toBeFocused();
  await page.keyboard.press('j');
  await expect(inbox.rowButton(targets[1])).toBeFocused();

  // r opens the reason box; letters typed there are text, not shortcuts.
  await page.keyboard.press('r');
  await expect(inbox.reasonBox).toBeFocused();
  await page.keyboard.type('jar keg');
  await expect(inbox.reasonBox).toHaveValue('jar keg');
  await expect(inbox.selectedRow).toContainText(targets[1]);
  await page.keyboard.press('Escape');
  await expect(inbox.rejectForm).toHaveCount(0);
  await expect(inbox.rowButton(targets[1])).toBeFocused();

  // e opens the editor; the same letters are text there too.
  await page.keyboard.press('e');
  await expect(inbox.editor).toBeFocused();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('jak');
  await expect.poll(() => inbox.editorText(inbox.editor)).toMatch(/jak$/);
  await page.keyboard.press('Escape');
  await expect(inbox.editor).toHaveCount(0);
  expect(commitCount()).toBe(before.commits);

  // a accepts the selected item; the next one is selected and focused.
  await page.keyboard.press('a');
  await expect(inbox.result).toContainText('Accepted');
  await expect(inbox.rowButton(targets[2])).toBeFocused();
  expect(exists(targets[1])).toBe(true);

  await expect(inbox.itemHeading).toContainText(targets[2]);
  await page.keyboard.press('r');
  await expect(inbox.reasonBox).toBeFocused();
  await page.keyboard.type('not needed');
  await page.keyboard.press('Enter');
  await expect(inbox.result).toContainText('Rejected');
  await expect(inbox.rowButton(targets[0])).toBeFocused();
  expect(exists(targets[2])).toBe(false);
  expect(changelogLines()[0]).toContain('not needed');

  // e, then Ctrl+Enter inside the editor accepts the edited version.
  await page.keyboard.press('e');
  await expect(inbox.editor).toBeFocused();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('Typed in the editor.\n');
  await page.keyboard.press('Control+Enter');
  await expect(inbox.result).toContainText('Accepted your version');
  expect(vault.read(targets[0])).toContain('Typed in the editor.');

  expect(commitCount()).toBe(before.commits + 3);
  expect(changelogLines().length).toBe(before.lines + 3);
});

test('an item an agent proposes over MCP while the page is open appears without a reload, and the navigation count follows', async ({ page }) => {
  const inbox = new InboxPage(page);
  await inbox.open();
  await expect(inbox.navCount).toBeVisible();
  const count = Number(await inbox.navCount.textContent());

  const client = new Client({ name: 'e2e-agent', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['bin/lucid', 'mcp', '--vault', vault.root], stderr: 'ignore' }));
  try {
    const started = await client.callTool({ name: 'start_session', arguments: { agent: 'e2e-live', task: 'propose while the inbox is open' } });
    const session = (started.structuredContent as { session: string }).session;
    const target = `Notes/e2e-live-${uid()}.md`;
    const proposed = await client.callTool({
      name: 'propose_to_inbox',
      arguments: { session, target, action: 'create', content: '# Live\n\nProposed over MCP.\n', reason: 'e2e: live update' },
    });
    expect(proposed.isError).toBeFalsy();

    await expect(inbox.rowButton(target)).toBeVisible();
    await expect(inbox.navCount).toHaveText(String(count + 1));
    await inbox.select(target);
    await inbox.rejectButton.click();
    await inbox.rejectForm.getByRole('button', { name: 'Reject' }).click();
    await expect(inbox.result).toContainText('Rejected');
    await expect(inbox.navCount).toHaveText(String(count));
  } finally {
    await client.close();
  }
});

test('a person’s uncommitted edit to the target survives Accept, Edit and Reject: committed as theirs first, or left untouched', async ({ page }) => {
  const { session, agent } = agentSession('dirty');
  const [a, e, r] = ['accept', 'edit', 'reject'].map((n) => `Notes/e2e-dirty-${n}-${uid()}.md`);
  for (const t of [a, e, r]) writeNote(session, t, '# Dirty\n\ntop line\nmiddle\nbottom line\n');
  for (const t of [a, e, r]) propose(session, t, 'update', '# Dirty\n\ntop line\nmiddle\nbottom line\nadded by the agent\n');
  // The person edits all three in Obsidian and commits nothing.
  const personText = '# Dirty\n\ntop line, as the person put it\nmiddle\nbottom line\n';
  for (const t of [a, e, r]) vault.write(t, personText);

  const inbox = new InboxPage(page);
  await inbox.open(`?agent=${agent}`);

  // Accept: the note changed since the proposal, so the merge is shown; it merges cleanly.
  let before = commitCount();
  await inbox.select(a);
  await expect(inbox.merge).toBeVisible();
  await expect.poll(() => inbox.editorText(inbox.mergeEditor)).toBe('# Dirty\n\ntop line, as the person put it\nmiddle\nbottom line\nadded by the agent\n');
  await inbox.acceptButton.click();
  await expect(inbox.result).toContainText('Accepted');
  expect(commitCount()).toBe(before + 2);
  expect(vault.git(['show', `HEAD~1:${a}`])).toBe(personText);
  expect(trailer('Lucid-Actor', 'HEAD~1')).toMatch(/^human:/);
  expect(vault.read(a)).toBe('# Dirty\n\ntop line, as the person put it\nmiddle\nbottom line\nadded by the agent\n');
  expect(vault.git(['status', '--porcelain', '--', a])).toBe('');

  // Edit then accept: the person's uncommitted version is committed as theirs before the edit lands.
  before = commitCount();
  await inbox.select(e);
  await inbox.editButton.click();
  await inbox.editor.fill('# Dirty\n\ntop line, as the person put it\nmiddle\nbottom line\nedited in the dashboard\n');
  await inbox.acceptEditedButton.click();
  await expect(inbox.result).toContainText('Accepted your version');
  expect(commitCount()).toBe(before + 2);
  expect(vault.git(['show', `HEAD~1:${e}`])).toBe(personText);
  expect(vault.read(e)).toContain('edited in the dashboard');

  // Reject: the target is not touched at all; the person's edit stays uncommitted, byte for byte.
  before = commitCount();
  await inbox.select(r);
  await inbox.rejectButton.click();
  await inbox.rejectForm.getByRole('button', { name: 'Reject' }).click();
  await expect(inbox.result).toContainText('Rejected');
  expect(commitCount()).toBe(before + 1);
  expect(vault.read(r)).toBe(personText);
  expect(vault.git(['status', '--porcelain', '--', r])).toMatch(/^ M /);
});

test('filters by agent, flag and action live in the URL; an empty filter result says so and clears', async ({ page }) => {
  const { session, agent } = agentSession('filter');
  const created = `Notes/e2e-filter-${uid()}.md`;
  propose(session, created, 'create', '# Filter\n\nA new note.\n');
  const inbox = new InboxPage(page);
  await inbox.open();
  await inbox.chooseFilter('Agent', `agent:${agent}`);
  await expect(page).toHaveURL(new RegExp(`agent=agent%3A${agent}`));
  await expect(inbox.queue.getByRole('row')).toHaveCount(2);
  await inbox.chooseFilter('Action', 'delete');
  await expect(page.getByRole('status').filter({ hasText: 'No item matches these filters' })).toBeVisible();
  await page.getByRole('button', { name: 'Clear filters' }).first().click();
  await expect(inbox.rowButton(created)).toBeVisible();
  await page.reload();
  await expect(page).toHaveURL(/\/inbox(\?item=[^&]+)?$/);
});

/** The build's id of one of lib/actions/inbox.ts's actions (from the server-reference manifest). */
function actionId(name: string): string {
  const manifest = JSON.parse(readFileSync('.next/server/server-reference-manifest.json', 'utf8')) as {
    node: Record<string, { filename?: string; exportedName?: string }>;
  };
  const found = Object.entries(manifest.node).find(([, entry]) => entry.filename === 'lib/actions/inbox.ts' && entry.exportedName === name);
  if (!found) throw new Error(`${name} is not in this build's server-reference manifest`);
  return found[0];
}

/** Calls an action as the page does, with the login cookie and our Origin, but with any arguments. */
async function callAction(name: string, args: unknown) {
  const { port, token } = e2eServer();
  const host = `127.0.0.1:${port}`;
  return rawRequest({
    method: 'POST',
    path: '/inbox',
    headers: {
      Host: host,
      Origin: `http://${host}`,
      Cookie: `lucid_${port}=${token}`,
      'Next-Action': actionId(name),
      'Content-Type': 'text/plain;charset=UTF-8',
    },
    body: JSON.stringify([args]),
  });
}

test('#11 forged arguments to accept, reject and show are refused with a reason, and the vault is unchanged', async () => {
  const { session } = agentSession('forged');
  const target = `Notes/e2e-forged-${uid()}.md`;
  const inboxPath = propose(session, target, 'create', '# Forged\n\nNot to be applied.\n');
  const id = inboxPath.replace(/^inbox\//, '').replace(/\.md$/, '');
  const before = vault.snapshot();
  const forged: [string, unknown, RegExp][] = [
    ['acceptInboxItemAction', { id: '../../etc/passwd' }, /"code":"invalid_input"/],
    ['acceptInboxItemAction', { id: 'projects/atlas' }, /"code":"invalid_input"/],
    ['acceptInboxItemAction', { id: 'no-such-item' }, /"code":"not_found"/],
    ['acceptInboxItemAction', { id: 42 }, /"code":"invalid_input"/],
    ['acceptInboxItemAction', { id, extra: true }, /"code":"invalid_input"/],
    ['acceptInboxItemAction', { id, person: 'human:mallory' }, /"code":"invalid_input"/],
    ['acceptInboxItemAction', { id, expectedTargetHash: '--output=/tmp/x' }, /"code":"invalid_input"/],
    ['acceptInboxItemAction', { id, text: '# Forged\n<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n' }, /"code":"invalid_input"/],
    ['rejectInboxItemAction', { id: `../${id}` }, /"code":"invalid_input"/],
    ['rejectInboxItemAction', { id, reason: 'x'.repeat(501) }, /"code":"invalid_input"/],
    ['showInboxItemAction', { id: '../changelog' }, /"code":"invalid_input"/],
    ['listInboxAction', { action: 'rm -rf' }, /"code":"invalid_input"/],
  ];
  for (const [name, args, expected] of forged) {
    const response = await callAction(name, args);
    const what = `${name} ${JSON.stringify(args)}`;
    expect(response.status, what).toBe(200);
    expect(response.body, what).toContain('"ok":false');
    expect(response.body, what).toMatch(expected);
    expect(response.body, what).not.toMatch(/\n\s+at .+:\d+:\d+/);
  }
  expect(vault.snapshot()).toEqual(before);
  expect(exists(inboxPath)).toBe(true);
});

test('#12 an edited text over 1 MB gets a clear "too large to save from the dashboard" message, and nothing changes', async ({ page }) => {
  const { session } = agentSession('large');
  const target = `Notes/e2e-large-${uid()}.md`;
  writeNote(session, target, '# Large\n\nsmall\n');
  propose(session, target, 'update', '# Large\n\nsmall, still\n');
  const before = vault.snapshot();
  const inbox = new InboxPage(page);
  await inbox.open();
  await inbox.select(target);
  await inbox.editButton.click();
  await inbox.editor.fill(`# Large\n\n${'lorem ipsum '.repeat(90_000)}\n`);
  await inbox.acceptEditedButton.click();
  await expect(inbox.alert).toContainText('too large to save from the dashboard');
  expect(vault.snapshot()).toEqual(before);
  // The server still answers, and the same item can still be decided.
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(inbox.acceptButton).toBeEnabled();
});
