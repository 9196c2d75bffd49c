import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { expect, test } from '../support/e2e-test';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { e2eVault } from '../support/e2e-vault';
import { SessionsPage } from '../support/pages/sessions-page';

// The sessions browser on the throwaway demo vault, checked with raw git and the files themselves.

const vault = e2eVault();
const SESSION_ID = /^\d{8}-\d{6}-[a-z0-9-]+-[a-z2-7]{4}$/;

/** Every commit's sha by the session its Lucid-Session trailer names, read with raw git. */
function commitsBySession(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of vault.git(['log', '--format=%H %(trailers:key=Lucid-Session,valueonly,separator=%x2C)']).split('\n')) {
    const [sha, session] = line.trim().split(' ');
    if (!sha || !session) continue;
    out.set(session, [...(out.get(session) ?? []), sha]);
  }
  return out;
}

/** The ids of every session: the notes in sessions/ and the open ones in .lucid/sessions/, newest first. */
function allSessionIds(): string[] {
  const ids = new Set(
    readdirSync(path.join(vault.root, 'sessions'))
      .filter((n) => n.endsWith('.md'))
      .map((n) => n.slice(0, -3))
      .filter((n) => SESSION_ID.test(n)),
  );
  const open = path.join(vault.root, '.lucid', 'sessions');
  if (existsSync(open)) for (const n of readdirSync(open)) if (n.endsWith('.jsonl') && SESSION_ID.test(n.slice(0, -6))) ids.add(n.slice(0, -6));
  return [...ids].sort().reverse();
}

const field = (id: string, key: string): string | undefined => {
  const text = vault.read(`sessions/${id}.md`);
  return new RegExp(`^${key}: (.*)$`, 'm').exec(/^---\n([\s\S]*?)\n---/.exec(text)?.[1] ?? '')?.[1]?.replace(/^"(.*)"$/, '$1');
};
const ended = () => allSessionIds().filter((id) => existsSync(path.join(vault.root, 'sessions', `${id}.md`)));

async function agentClient(): Promise<Client> {
  const client = new Client({ name: 'e2e-sessions', version: '0.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['bin/lucid', 'mcp', '--vault', vault.root], stderr: 'ignore' }));
  return client;
}

async function call<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

test('a session page lists exactly the commits whose Lucid-Session trailer names it', async ({ page }) => {
  const sessions = new SessionsPage(page);
  const bySession = commitsBySession();
  const busiest = [...bySession].filter(([id]) => SESSION_ID.test(id)).sort((a, b) => b[1].length - a[1].length)[0];
  // The demo has one abandoned session (its client went away; Lucid ended it).
  const abandoned = ended().find((id) => field(id, 'outcome') === 'abandoned') ?? '';
  expect(abandoned).not.toBe('');
  expect(busiest[1].length).toBeGreaterThan(2);
  for (const id of [busiest[0], abandoned]) {
    await sessions.openSession(id);
    const shown = await sessions.edits.evaluateAll((items) => items.map((i) => i.getAttribute('data-sha')));
    expect(shown.sort()).toEqual([...(bySession.get(id) ?? [])].sort());
  }
  // The abandoned one is open now.
  await expect(sessions.rule('ended')).toHaveAttribute('data-ok', 'false');
  await expect(page.getByTestId('session-outcome').first()).toHaveAttribute('data-outcome', 'abandoned');
  // Each entry opens to its diff.
  await sessions.openSession(busiest[0]);
  const first = sessions.edits.first();
  await first.getByRole('button', { name: 'Show diff' }).click();
  await expect(first.getByTestId('entry-diff').locator('.d2h-file-wrapper').first()).toBeVisible();
});

test('the list pages newest first by cursor, older and newer, and filters by agent, project, outcome and date', async ({ page }) => {
  const sessions = new SessionsPage(page);
  const all = allSessionIds();
  expect(all.length).toBeGreaterThan(25);
  await sessions.open();
  await expect(sessions.rows).toHaveCount(25);
  const first = await sessions.ids();
  expect(first).toEqual(all.slice(0, 25));
  await sessions.older.click();
  await expect(page).toHaveURL(/cursor=/);
  await expect(sessions.rows.first()).toHaveAttribute('data-session', all[25]);
  const second = await sessions.ids();
  expect([...first, ...second]).toEqual(all.slice(0, first.length + second.length));
  // The demo has fewer than 50 sessions; the specs before this one on its worker may have added some.
  await expect(sessions.older).toHaveCount(all.length > 50 ? 1 : 0);
  // Newer goes back to the first page (so no Newest beside it), where neither is offered.
  await expect(sessions.newest).toHaveCount(0);
  await sessions.newer.click();
  await expect(page).not.toHaveURL(/cursor=/);
  await expect(sessions.rows).toHaveCount(25);
  expect(await sessions.ids()).toEqual(first);
  await expect(sessions.newer).toHaveCount(0);

  await sessions.open();
  await sessions.filter('Agent', 'cursor', 'agent');
  const byCursor = all.filter((id) => /-cursor-[a-z2-7]{4}$/.test(id));
  await expect(sessions.rows).toHaveCount(Math.min(byCursor.length, 25));
  expect(await sessions.ids()).toEqual(byCursor.slice(0, 25));

  await sessions.open();
  await sessions.filter('Outcome', 'abandoned', 'outcome');
  const abandoned = ended().filter((id) => field(id, 'outcome') === 'abandoned');
  await expect(sessions.rows).toHaveCount(abandoned.length);
  expect(await sessions.ids()).toEqual(abandoned);
  for (const row of await sessions.rows.all()) await expect(row.getByTestId('session-outcome')).toHaveAttribute('data-outcome', 'abandoned');

  await sessions.open();
  await sessions.filter('Project', 'projects/beacon.md', 'project');
  const beacon = ended().filter((id) => field(id, 'project') === '[[projects/beacon]]');
  expect(beacon.length).toBeGreaterThan(0);
  await expect(sessions.rows).toHaveCount(beacon.length);
  expect(await sessions.ids()).toEqual(beacon);

  await sessions.open({ since: '2026-11-23', until: '2026-11-29' });
  const inWeek = ended().filter((id) => {
    const day = new Date(Date.parse(field(id, 'started') ?? '')).toISOString().slice(0, 10);
    return day >= '2026-11-23' && day <= '2026-11-29';
  });
  expect(inWeek.length).toBeGreaterThan(0);
  await expect(sessions.rows).toHaveCount(inWeek.length);
  expect(await sessions.ids()).toEqual(inWeek);

  await sessions.open({ agent: 'nobody-here' });
  await expect(sessions.empty).toContainText('No sessions match these filters');
});

test('sessions run over MCP: the open one shows live, writing without searching is flagged, searching first is not, and an edit reverts from the session page', async ({
  page,
}) => {
  const sessions = new SessionsPage(page);
  await sessions.open();
  const client = await agentClient();
  try {
    // Writes without any lookup, ends. (A search a second after the write is flagged too: git's
    // times are to the second, so that case is in tests/mcp/session-protocol.spec.ts, on the test's clock.)
    const writer = (await call<{ session: string }>(client, 'start_session', { agent: 'e2e-proto', task: 'e2e: write first' })).session;
    await expect(sessions.row(writer).getByTestId('session-outcome')).toHaveAttribute('data-outcome', 'open');
    await call(client, 'write_note', {
      session: writer,
      path: `Notes/e2e-proto-writer-${Date.now()}.md`,
      mode: 'create',
      content: '# Writer\n\nWritten before any search.\n',
      reason: 'e2e: write first',
    });
    await call(client, 'end_session', { session: writer, summary: 'Wrote without looking.', outcome: 'done' });
    await expect(sessions.row(writer).getByTestId('session-outcome')).toHaveAttribute('data-outcome', 'done');
    await expect(sessions.row(writer).getByTestId('protocol-badge')).toHaveAttribute('data-ok', 'false');

    // Searches and reads first, then writes, ends.
    const reader = (await call<{ session: string }>(client, 'start_session', { agent: 'e2e-proto', task: 'e2e: search first' })).session;
    await call(client, 'search_notes', { query: 'retry webhooks' });
    await call(client, 'read_note', { path: 'projects/atlas.md' });
    const target = `Notes/e2e-proto-reader-${Date.now()}.md`;
    const written = await call<{ edit_id: string }>(client, 'write_note', {
      session: reader,
      path: target,
      mode: 'create',
      content: '# Reader\n\nWritten after a search.\n',
      reason: 'e2e: search first',
    });
    await call(client, 'end_session', { session: reader, summary: 'Searched, then wrote.', outcome: 'done' });
    await expect(sessions.row(reader).getByTestId('protocol-badge')).toHaveAttribute('data-ok', 'true');

    await sessions.openSession(writer);
    await expect(sessions.rule('read-before-write')).toHaveAttribute('data-ok', 'false');
    await expect(sessions.rule('read-before-write')).toContainText('came before any lookup: no search or read was observed');
    await expect(page.getByTestId('protocol-check')).toHaveAttribute('data-ok', 'false');

    await sessions.openSession(reader);
    await expect(page.getByTestId('protocol-check')).toHaveAttribute('data-ok', 'true');
    for (const rule of ['read-before-write', 'ended', 'edits-logged', 'decisions-recorded'])
      await expect(sessions.rule(rule)).toHaveAttribute('data-ok', 'true');
    await expect(page.getByTestId('session-searched')).toContainText('retry webhooks');
    await expect(page.getByTestId('session-read').getByRole('link', { name: 'projects/atlas.md' })).toBeVisible();

    // Revert its write from the session page, as on the changelog.
    const sha = vault.git(['log', '-1', '--format=%H', `--grep=^Lucid-Edit: ${written.edit_id}$`]).trim();
    const entry = page.locator(`[data-testid="changelog-entry"][data-sha="${sha}"]`);
    await entry.getByRole('button', { name: 'Revert…' }).click();
    const panel = entry.getByRole('region', { name: 'Revert' });
    await panel.getByRole('button', { name: 'Confirm revert' }).click();
    await expect(page.getByText(new RegExp(`^Reverted ${sha.slice(0, 7)}: new edit e[a-z2-7]{12}`))).toBeVisible();
    expect(vault.git(['log', '-1', '--format=%(trailers:key=Lucid-Reverts,valueonly)']).trim()).toBe(written.edit_id);
    expect(vault.git(['log', '-1', '--format=%(trailers:key=Lucid-Actor,valueonly)']).trim()).toMatch(/^human:/);
    expect(existsSync(path.join(vault.root, target))).toBe(false);
  } finally {
    await client.close();
  }
});
