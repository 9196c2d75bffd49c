import { expect, test } from '../support/e2e-test';
import { randomBytes } from 'node:crypto';
import { findings, makeDreamRun, skillText } from '../support/dream-runs';
import { e2eVault } from '../support/e2e-vault';
import { DreamPage } from '../support/pages/dream-page';

// The runs are made by the dream pass itself (applyDreamRun, as `lucid dream --apply` does) from
// findings the test names; the person's own work is plain files and raw git.

const token = () => randomBytes(3).toString('hex');

/** Trailers of a commit, read with raw git. */
function trailers(vault: ReturnType<typeof e2eVault>, rev: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of vault.git(['log', '-1', '--format=%(trailers:only,unfold)', rev]).split('\n')) {
    const at = line.indexOf(': ');
    if (at > 0) out[line.slice(0, at)] = line.slice(at + 2);
  }
  return out;
}

/** Two skills of this test, committed by the person with raw git. */
function plantSkills(vault: ReturnType<typeof e2eVault>, id: string) {
  const a = `e2e-old-${id}`;
  const b = `e2e-fix-${id}`;
  const textA = skillText(a, 1, `backing up server ${id}`, ['Copy the disk.', 'Check the copy.']);
  const textB = skillText(b, 1, `fixing build ${id}`, ['Look at the log.', 'Fix the step.']);
  vault.write(`skills/${a}.md`, textA);
  vault.write(`skills/${b}.md`, textB);
  vault.git(['add', '--', `skills/${a}.md`, `skills/${b}.md`]);
  vault.git(['commit', '-q', '-m', `two skills for ${id}`, '--', `skills/${a}.md`, `skills/${b}.md`]);
  return { a, b, textA, textB };
}

// First: the demo vault has no dream run until the tests below make theirs (each settles its own).
test('With no run, the page says how to make one', async ({ page }) => {
  const dream = new DreamPage(page);
  await dream.open();
  await expect(page.getByRole('status').filter({ hasText: 'No dream runs to review.' })).toBeVisible();
  await expect(page.getByText('lucid dream --apply --vault DIR')).toBeVisible();
  // A run id from the URL is only ever compared with the runs there are: an option-shaped one is no run.
  await dream.open('--output=/tmp/lucid-dream-pwned');
  await expect(page.getByRole('status').filter({ hasText: 'No dream runs to review.' })).toBeVisible();
});

test('Land lands exactly the chosen change on the current branch; dismissing the other settles the run', async ({ page }) => {
  const vault = e2eVault();
  const id = token();
  const { a, b, textA } = plantSkills(vault, id);
  const run = await makeDreamRun(
    vault.root,
    findings({
      inconsistent: [{ skill: `skills/${b}.md`, field: 'trigger', problem: 'too vague', fix: { trigger: `fixing a broken build ${id}` } }],
      stale: [{ skill: `skills/${a}.md`, lastUsed: null, days: 90 }],
    }),
  );
  // Fixes come first on the branch: the molt of b, then the archive of a.
  const [molt, archive] = run.changes.map((c) => ({ sha: c.sha, id: trailers(vault, c.sha)['Lucid-Edit'] }));
  const moltedB = vault.git(['show', `${molt.sha}:skills/${b}.md`]);
  expect(moltedB).toContain(`trigger: fixing a broken build ${id}`);
  const head = vault.git(['rev-parse', 'HEAD']).trim();
  const person = `human:${vault.git(['config', 'user.name']).trim()}`;

  const dream = new DreamPage(page);
  await dream.open(run.runId);
  await expect(dream.row(archive.id)).toContainText('pending');
  await expect(dream.row(molt.id)).toContainText('pending');
  await dream.select(molt.id);
  await expect(dream.selected).toContainText('too vague');
  await expect(dream.selected.locator('.d2h-wrapper')).toContainText(`fixing a broken build ${id}`);
  await dream.landButton.click();
  await expect(dream.status).toContainText(`Landed ${molt.id}`);
  await expect(dream.row(molt.id)).toContainText('landed');
  await expect(dream.row(archive.id)).toContainText('pending');

  // Exactly one commit on the current branch, with one changelog line, in the person's name.
  expect(vault.git(['rev-parse', 'HEAD~1']).trim()).toBe(head);
  expect(vault.git(['symbolic-ref', 'HEAD']).trim()).not.toContain('dream/');
  expect(trailers(vault, 'HEAD')).toMatchObject({
    'Lucid-Actor': person,
    'Lucid-Op': 'molt',
    'Lucid-Molt': `${b} 1->2`,
    'Lucid-Dream': run.runId,
    'Lucid-Dream-Change': molt.id,
  });
  const added = vault
    .git(['diff', 'HEAD~1', 'HEAD', '--', 'changelog.md'])
    .split('\n')
    .filter((l) => l.startsWith('+- '));
  expect(added).toHaveLength(1);
  // The changelog's monthly rotation may ride along (the demo's month is not the clock's); no other note does.
  const files = vault.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n');
  expect(files.filter((f) => f !== 'changelog.md' && !f.startsWith('changelog/'))).toEqual([`skills/${b}.md`]);
  expect(vault.read(`skills/${b}.md`)).toBe(moltedB);
  expect(vault.read(`skills/${a}.md`)).toBe(textA);
  expect(vault.git(['status', '--porcelain', '--', 'skills'])).toBe('');

  // j selects the next change and d dismisses it: nothing in the vault changes, and the run is settled.
  await page.keyboard.press('j');
  await expect(dream.row(archive.id).getByRole('button')).toHaveAttribute('aria-current', 'true');
  const landed = vault.git(['rev-parse', 'HEAD']).trim();
  await page.keyboard.press('d');
  await expect(dream.status).toContainText(`Dismissed ${archive.id}`);
  await expect(dream.status).toContainText('settled');
  expect(vault.git(['rev-parse', 'HEAD']).trim()).toBe(landed);
  expect(vault.read(`skills/${a}.md`)).toBe(textA);
  expect(vault.git(['for-each-ref', `refs/heads/${run.branch}`])).toBe('');
});

test('A change whose lines the person rewrote since shows that it no longer applies, and why; Land stays off', async ({ page }) => {
  const vault = e2eVault();
  const id = token();
  const { b, textB } = plantSkills(vault, id);
  const run = await makeDreamRun(
    vault.root,
    findings({ inconsistent: [{ skill: `skills/${b}.md`, field: 'trigger', problem: 'too vague', fix: { trigger: `repairing builds ${id}` } }] }),
  );
  const change = trailers(vault, run.changes[0].sha)['Lucid-Edit'];
  vault.write(`skills/${b}.md`, textB.replace(`fixing build ${id}`, `my own trigger ${id}`));
  vault.git(['commit', '-q', '-m', 'my trigger', '--', `skills/${b}.md`]);
  const head = vault.git(['rev-parse', 'HEAD']).trim();

  const dream = new DreamPage(page);
  await dream.open(run.runId);
  await expect(dream.row(change)).toContainText('no longer applies');
  await dream.select(change);
  await expect(dream.selected.getByRole('note', { name: 'Why it no longer applies' })).toContainText(`skills/${b}.md was edited since the dream run`);
  await expect(dream.landButton).toBeDisabled();
  await page.keyboard.press('l');
  expect(vault.git(['rev-parse', 'HEAD']).trim()).toBe(head);
  await dream.dismissButton.click();
  await expect(dream.status).toContainText('settled');
  expect(vault.read(`skills/${b}.md`)).toContain(`my own trigger ${id}`);
});

test("An agent's markup in a skill and in a finding is shown as text, never run", async ({ page }) => {
  const vault = e2eVault();
  const id = token();
  const { b } = plantSkills(vault, id);
  const markup = `<img src="x" onerror="window.__dreamXss = 1"> ${id}`;
  const run = await makeDreamRun(
    vault.root,
    findings({
      inconsistent: [{ skill: `skills/${b}.md`, field: 'trigger', problem: markup, fix: { trigger: `<script>window.__dreamXss = 2</script> ${id}` } }],
    }),
  );
  const change = trailers(vault, run.changes[0].sha)['Lucid-Edit'];
  const dream = new DreamPage(page);
  await dream.open(run.runId);
  await dream.select(change);
  await expect(dream.selected).toContainText(markup);
  await expect(dream.selected.locator('.d2h-wrapper')).toContainText(`<script>window.__dreamXss = 2</script> ${id}`);
  await expect(dream.selected.locator('img, script')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __dreamXss?: number }).__dreamXss)).toBeUndefined();
  await dream.dismissButton.click();
  await expect(dream.status).toContainText('settled');
});
