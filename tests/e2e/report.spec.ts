import { expect, test } from '../support/e2e-test';
import { e2eVault } from '../support/e2e-vault';

/** The weekly report from the overview, on the throwaway demo vault (anchored 2026-11-30), checked with raw git. */

const WEEK = '2026-W48';
const REPORT = `reports/${WEEK}.md`;

/**
 * What each agent changed in the week, read with raw git: per agent slug, the notes its edits
 * touched that still exist, besides the changelog, session notes and inbox proposals.
 */
function agentNotes(vault: ReturnType<typeof e2eVault>): Map<string, Set<string>> {
  const since = new Date(2026, 10, 23).getTime() / 1000;
  const until = new Date(2026, 10, 30).getTime() / 1000;
  const existing = new Set(vault.files());
  const out = new Map<string, Set<string>>();
  const log = vault.git(['log', '--format=%x1e%at%x1f%B%x1f', '--name-only']);
  for (const record of log.split('\u001e').filter((r) => r.trim())) {
    const [at, body, files] = record.split('\u001f');
    const actor = /^Lucid-Actor: agent:(\S+)$/m.exec(body)?.[1];
    if (!actor || !/^Lucid-Edit: /m.test(body) || Number(at) < since || Number(at) >= until) continue;
    const notes = out.get(actor) ?? new Set<string>();
    out.set(actor, notes);
    for (const f of files.split('\n').map((l) => l.trim())) {
      if (!f || !existing.has(f) || /^(changelog\.md|changelog\/|sessions\/|inbox\/)/.test(f)) continue;
      notes.add(f);
    }
  }
  return out;
}

/** The text of a report note after its front matter (and the blank line after it). */
const bodyOf = (text: string) => text.replace(/^---\n[\s\S]*?\n---\n\n/, '');

test('Export report writes the week as one commit whose note names each agent and its edits; again, nothing changes', async ({ page }) => {
  const vault = e2eVault();
  const commitsBefore = Number(vault.git(['rev-list', '--count', 'HEAD']).trim());
  await page.goto(`/?week=${WEEK}`);
  const report = page.getByRole('region', { name: `Report of ${WEEK}` });
  await report.getByRole('button', { name: 'Export report' }).click();
  const status = report.getByRole('status');
  await expect(status).toContainText(`Wrote ${REPORT} (commit `);

  expect(Number(vault.git(['rev-list', '--count', 'HEAD']).trim())).toBe(commitsBefore + 1);
  const head = vault.git(['rev-parse', 'HEAD']).trim();
  await expect(status).toContainText(`(commit ${head.slice(0, 7)})`);
  expect(vault.git(['log', '-1', '--format=%(trailers:key=Lucid-Op,valueonly)']).trim()).toBe('report');
  const files = vault.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n');
  expect(files).toContain(REPORT);
  // The note and its changelog line (and, at a month's first edit, the month it moves out): nothing else.
  for (const f of files) expect(f === REPORT || f === 'changelog.md' || /^changelog\/\d{4}-\d{2}\.md$/.test(f), f).toBe(true);
  // Everything the export wrote is committed (other specs may leave a person's uncommitted file elsewhere).
  const dirty = vault
    .git(['status', '--porcelain'])
    .split('\n')
    .map((l) => l.slice(3))
    .filter(Boolean);
  expect(dirty.filter((f) => f === REPORT || f.startsWith('changelog'))).toEqual([]);

  const text = vault.read(REPORT);
  expect(text).toMatch(/^---\ntype: report\nperiod_start: 2026-11-23\nperiod_end: 2026-11-29\nauthor: human:/);
  const agents = agentNotes(vault);
  expect(agents.size).toBeGreaterThan(1);
  for (const [agent, notes] of agents) {
    const section = new RegExp(`\\n## ${agent}\\n([\\s\\S]*?)(?=\\n## |$)`).exec(text)?.[1] ?? '';
    expect(section, agent).toContain('Sessions (');
    for (const note of notes) expect(section, `${agent}: ${note}`).toContain(`- [[${note.replace(/\.md$/, '')}]]`);
  }

  await report.getByRole('button', { name: 'Export report' }).click();
  await expect(status).toContainText(`${REPORT} already holds this report: nothing changed, no commit.`);
  expect(vault.git(['rev-parse', 'HEAD']).trim()).toBe(head);

  await report.getByRole('link', { name: 'Open the report' }).click();
  await expect(page).toHaveURL(new RegExp(`/notes/reports/${WEEK}\\.md$`));
  await expect(page.getByTestId('note-title')).toHaveText(`What the agents did in ${WEEK}`);
});

test.describe('with clipboard access', () => {
  test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

  test('Copy report text puts the report on the clipboard and says so', async ({ page }) => {
    await page.goto(`/?week=${WEEK}`);
    const report = page.getByRole('region', { name: `Report of ${WEEK}` });
    await report.getByRole('button', { name: 'Copy report text' }).click();
    await expect(report.getByRole('status')).toContainText('Copied the report text');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied.startsWith(`# What the agents did in ${WEEK}\n\n2026-11-23 to 2026-11-29`)).toBe(true);
    expect(copied).toMatch(/\n- \[\[sessions\/\d{8}-\d{6}-[a-z0-9-]+\|[^\]]+\]\]: /);

    await report.getByRole('button', { name: 'Show text' }).click();
    await expect(report.getByRole('textbox', { name: `Report text of ${WEEK}` })).toHaveValue(copied);
    // The same text the export writes into the note (written now, or already holding it).
    await report.getByRole('button', { name: 'Export report' }).click();
    await expect(report.getByRole('status').filter({ hasText: REPORT })).toBeVisible();
    const vault = e2eVault();
    expect(bodyOf(vault.read(REPORT))).toBe(copied);
  });
});
