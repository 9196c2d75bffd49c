import type { Page } from '@playwright/test';
import { expect, test } from '../support/e2e-test';
import { e2eVault } from '../support/e2e-vault';

/**
 * The overview against raw git: every figure and every number behind the charts is recomputed here
 * from `git log` and the files, never through Lucid. The server and this process share the machine's
 * time zone, so a week here is Monday 00:00 to Monday 00:00 in local time, as the vault counts it.
 */

type Vault = ReturnType<typeof e2eVault>;

interface RawCommit {
  time: number;
  actor: string | null;
  op: string | null;
  edit: string | null;
  molt: boolean;
  body: string;
  files: string[];
}

function rawCommits(vault: Vault): RawCommit[] {
  const out = vault.git(['-c', 'core.quotePath=false', 'log', '--name-only', '--format=%x1e%at%x1f%B%x1f']);
  return out
    .split('\u001e')
    .filter((r) => r.trim())
    .map((record) => {
      const [time, body, files = ''] = record.split('\u001f');
      const trailer = (key: string) => new RegExp(`^${key}: (.+)$`, 'm').exec(body)?.[1].trim() ?? null;
      return {
        time: Number(time) * 1000,
        actor: trailer('Lucid-Actor'),
        op: trailer('Lucid-Op'),
        edit: trailer('Lucid-Edit'),
        molt: trailer('Lucid-Molt') !== null,
        body,
        files: files.split('\n').filter(Boolean),
      };
    });
}

const FOLDER_TYPES: [string, string][] = [
  ['skills/archive/', 'skill'],
  ['evals/runs/', 'eval-run'],
  ['people/', 'person'],
  ['projects/', 'project'],
  ['decisions/', 'decision'],
  ['sessions/', 'session'],
  ['skills/', 'skill'],
  ['reports/', 'report'],
];
const isChangelog = (f: string) => f === 'changelog.md' || /^changelog\/\d{4}-\d{2}\.md$/.test(f);

/** The note type an edit counts under: the folder of its first file other than the changelog and the inbox. */
function typeOf(files: string[]): string {
  const notes = files.filter((f) => !isChangelog(f));
  const main = notes.find((f) => !f.startsWith('inbox/'));
  if (main === undefined) return notes.length > 0 ? 'inbox' : 'other';
  return FOLDER_TYPES.find(([folder]) => main.startsWith(folder))?.[1] ?? 'other';
}

const p2 = (n: number) => String(n).padStart(2, '0');
const localDay = (ms: number) => {
  const d = new Date(ms);
  return `${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())}`;
};
const frontmatter = (text: string) => /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? '';
const field = (text: string, name: string) => new RegExp(`^${name}: "?([^"\\n]+)"?$`, 'm').exec(frontmatter(text))?.[1] ?? null;

/** What the overview must show for [since, until), from raw git and the files. */
function expected(vault: Vault, since: number, until: number) {
  const edits = rawCommits(vault).filter((c) => c.edit && c.actor && c.time >= since && c.time < until);
  const byDay = new Map<string, { actor: Map<string, number>; type: Map<string, number> }>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  const perNote = new Map<string, number>();
  for (const c of edits) {
    const day = localDay(c.time);
    const slot = byDay.get(day) ?? { actor: new Map(), type: new Map() };
    byDay.set(day, slot);
    bump(slot.actor, c.actor as string);
    bump(slot.type, typeOf(c.files));
    for (const f of c.files) if (f.endsWith('.md') && !isChangelog(f) && !/^(inbox|sessions)\//.test(f)) bump(perNote, f);
  }
  const notes = vault.files().filter((f) => f.endsWith('.md'));
  const sessions = notes
    .filter((f) => f.startsWith('sessions/'))
    .map((f) => vault.read(f))
    .filter((t) => {
      const started = Date.parse(field(t, 'started') ?? '');
      return started >= since && started < until;
    });
  const outcome = (o: string) => sessions.filter((t) => field(t, 'outcome') === o).length;
  const pending = notes
    .filter((f) => f.startsWith('inbox/') && field(vault.read(f), 'type') === 'inbox')
    .filter((f) => {
      const created = Date.parse(field(vault.read(f), 'created') ?? '');
      return created >= since && created < until;
    }).length;
  const ops = (op: string) => edits.filter((c) => c.op === op);
  return {
    edits: edits.length,
    byDay,
    perNote,
    figures: {
      'figure-edits': edits.length,
      'figure-sessions': sessions.length,
      'figure-sessions-done': outcome('done'),
      'figure-sessions-partial': outcome('partial'),
      'figure-sessions-abandoned': outcome('abandoned'),
      'figure-accepted': ops('accept').filter((c) => !c.body.includes('(edited before accepting)')).length,
      'figure-edited': ops('accept').filter((c) => c.body.includes('(edited before accepting)')).length,
      'figure-rejected': ops('reject').length,
      'figure-pending': pending,
      'figure-reverts': ops('revert').filter((c) => c.actor?.startsWith('human:')).length,
      'figure-molts': edits.filter((c) => c.molt).length,
    } as Record<string, number>,
  };
}

/** The numbers of a chart's table, read from the DOM: day → series → count (zeros left out), and its days in order. */
async function chartTable(page: Page, id: string): Promise<{ days: string[]; counts: Map<string, Map<string, number>> }> {
  const table = page.getByTestId(`${id}-table`);
  const days = await table.locator('thead th[data-day]').evaluateAll((ths) => ths.map((th) => th.getAttribute('data-day') ?? ''));
  const cells = await table
    .locator('tbody td[data-day]')
    .evaluateAll((tds) =>
      tds.map((td) => [td.getAttribute('data-day') ?? '', td.closest('tr')?.getAttribute('data-series') ?? '', Number(td.textContent)] as const),
    );
  const counts = new Map(days.map((d) => [d, new Map<string, number>()]));
  for (const [day, series, n] of cells) if (n > 0) counts.get(day)?.set(series, n);
  return { days, counts };
}

const week = (monday: Date) => ({ since: monday.getTime(), until: new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + 7).getTime() });
const W48 = week(new Date(2026, 10, 23));
const W47 = week(new Date(2026, 10, 16));

async function expectFigures(page: Page, figures: Record<string, number>) {
  for (const [testId, value] of Object.entries(figures)) await expect(page.getByTestId(testId), testId).toHaveText(String(value));
}

test('the figures and the numbers behind each chart are what raw git log gives for the week', async ({ page }) => {
  const vault = e2eVault();
  const want = expected(vault, W48.since, W48.until);
  expect(want.edits).toBeGreaterThan(5);
  await page.goto('/?week=2026-W48');
  await expect(page.getByTestId('range-label')).toHaveText('2026-W48');
  await expectFigures(page, want.figures);

  const days = ['2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29'];
  const byActor = await chartTable(page, 'chart-actor');
  const byType = await chartTable(page, 'chart-type');
  expect(byActor.days).toEqual(days);
  expect(byType.days).toEqual(days);
  for (const day of days) {
    expect(Object.fromEntries(byActor.counts.get(day) ?? []), `actors on ${day}`).toEqual(Object.fromEntries(want.byDay.get(day)?.actor ?? []));
    expect(Object.fromEntries(byType.counts.get(day) ?? []), `types on ${day}`).toEqual(Object.fromEntries(want.byDay.get(day)?.type ?? []));
  }

  // The notes that changed most: each count is the note's edits in the week, the first is the most.
  const top = page.getByTestId('list-top-notes').getByRole('listitem');
  await expect(top.first()).toBeVisible();
  const most = Math.max(...want.perNote.values());
  await expect(top.first().getByTestId('top-note-edits')).toHaveText(`${most} ${most === 1 ? 'edit' : 'edits'}`);
  for (const item of await top.all()) {
    const link = item.getByRole('link');
    const path = decodeURIComponent(((await link.getAttribute('href')) ?? '').replace(/^\/notes\//, ''));
    const n = want.perNote.get(path) ?? 0;
    await expect(item.getByTestId('top-note-edits')).toHaveText(`${n} ${n === 1 ? 'edit' : 'edits'}`);
  }

  // Each failed protocol check links to its session; each figure links to the page that lists what it counts.
  const failed = await page.getByTestId('figure-protocol-failed').textContent();
  await expect(page.getByTestId('list-protocol').getByRole('link')).toHaveCount(Number(failed));
  for (const link of await page.getByTestId('list-protocol').getByRole('link').all()) await expect(link).toHaveAttribute('href', /^\/sessions\/\d{8}-/);
  await expect(page.getByRole('link', { name: /Edits$/ })).toHaveAttribute('href', '/changelog?since=2026-11-23&until=2026-11-29');
  await expect(page.getByRole('link', { name: /Inbox items rejected/ })).toHaveAttribute('href', '/changelog?op=reject&since=2026-11-23&until=2026-11-29');
  // The demo vault has agents' work: no "connect an agent" box.
  await expect(page.getByTestId('connect-agent')).toHaveCount(0);
});

test('the charts render without console errors, this week and a busy week', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  const charts = ['chart-actor', 'chart-type'];
  // This week (the real one, which may have no edits): each chart is there, bars or not.
  await page.goto('/');
  for (const id of charts) await expect(page.getByTestId(id).getByRole('heading')).toBeVisible();
  // Weeks of the demo's edits: each chart draws its bars.
  for (const url of ['/?week=2026-W48', '/?from=2026-10-19&to=2026-11-29']) {
    await page.goto(url);
    for (const id of charts) {
      const chart = page.getByTestId(id);
      await expect(chart.getByRole('heading')).toBeVisible();
      await expect(chart.locator('svg.recharts-surface').first()).toBeVisible();
      await expect(chart.locator('.recharts-bar-rectangle').first()).toBeVisible();
    }
  }
  expect(errors).toEqual([]);
});

test('the range picker changes the figures, and a range is a link', async ({ page }) => {
  const vault = e2eVault();
  await page.goto('/?week=2026-W48');
  await page.getByRole('navigation', { name: 'Range' }).getByRole('link', { name: '← 2026-W47' }).click();
  await expect(page).toHaveURL(/\?week=2026-W47$/);
  await expect(page.getByTestId('range-label')).toHaveText('2026-W47');
  await expectFigures(page, expected(vault, W47.since, W47.until).figures);

  await page.getByRole('navigation', { name: 'Range' }).getByRole('link', { name: '2026-W48 →' }).click();
  await expect(page.getByTestId('range-label')).toHaveText('2026-W48');
  await expectFigures(page, { 'figure-edits': expected(vault, W48.since, W48.until).edits });

  const form = page.getByRole('form', { name: 'Pick days' });
  await form.getByLabel('From').fill('2026-11-16');
  await form.getByLabel('To').fill('2026-11-29');
  await form.getByRole('button', { name: 'Show these days' }).click();
  await expect(page).toHaveURL(/\?from=2026-11-16&to=2026-11-29$/);
  await expect(page.getByTestId('range-label')).toHaveText('2026-11-16 – 2026-11-29');
  await expectFigures(page, expected(vault, W47.since, W48.until).figures);

  await page.goto('/?week=2027-W53');
  await expect(page.getByRole('main').getByRole('alert')).toContainText('not an ISO week');
});

test('the vault figures still count pending inbox items, notes and notes by type from the files', async ({ page }) => {
  const vault = e2eVault();
  const notes = vault.files().filter((f) => f.endsWith('.md'));
  const inbox = notes.filter((f) => f.startsWith('inbox/') && field(vault.read(f), 'type') === 'inbox').length;
  await page.goto('/');
  await expect(page.getByTestId('figure-inbox')).toHaveText(String(inbox));
  await expect(page.getByTestId('figure-notes')).toHaveText(String(notes.length));
  expect(inbox).toBeGreaterThan(0);
  await expect(page.getByTestId('type-decision')).toHaveText(String(notes.filter((f) => field(vault.read(f), 'type') === 'decision').length));
  await expect(page.getByRole('main').getByRole('link', { name: 'Health' })).toHaveAttribute('href', '/health');
});

test('every section is reachable from the navigation', async ({ page }) => {
  await page.goto('/');
  const nav = page.getByRole('navigation', { name: 'Sections' });
  await nav.getByRole('link', { name: 'Evaluation' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Evaluation' })).toBeVisible();
  for (const name of ['Skills', 'Dream', 'Sessions', 'Inbox', 'Changelog', 'Health']) {
    await nav.getByRole('link', { name }).click();
    await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  }
  await nav.getByRole('link', { name: 'Search' }).click();
  await expect(page.getByRole('searchbox')).toBeFocused();
});
