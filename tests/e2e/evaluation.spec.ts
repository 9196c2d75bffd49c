import { expect, test } from '../support/e2e-test';
import { listenToWatcher } from '../support/pages/outside-edit';
import { e2eVault } from '../support/e2e-vault';
import { EvaluationPage } from '../support/pages/evaluation';

// The demo vault has a hand-written and a generated question set, two Lucid runs and an example
// run note of another harness. Every expected number is read from the files with regexes and
// JSON.parse, never through Lucid.

type Vault = ReturnType<typeof e2eVault>;
// The fields every run note has, some of which look like `<strategy>_<metric>` (budget_tokens).
const FIXED = ['question_set', 'vault_commit', 'budget_tokens'];
const METRICS = ['recall_at_1', 'recall_at_5', 'recall_at_10', 'mrr', 'ndcg_at_10', 'answer_containment', 'tokens', 'latency_ms'];

interface RunNote {
  path: string;
  set: string;
  hasResults: boolean;
  /** `<strategy>_<metric>` fields, split at the first underscore. */
  figures: Record<string, Record<string, number>>;
}

function runNotes(vault: Vault): RunNote[] {
  return vault
    .files('evals/runs')
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((path) => {
      const front = /^---\n([\s\S]*?)\n---\n/.exec(vault.read(path))?.[1] ?? '';
      const figures: Record<string, Record<string, number>> = {};
      for (const m of front.matchAll(/^([a-z0-9-]+)_([a-z0-9_]+): (.+)$/gm)) {
        if (!METRICS.includes(m[2]) || FIXED.includes(`${m[1]}_${m[2]}`)) continue;
        figures[m[1]] ??= {};
        figures[m[1]][m[2]] = Number(m[3]);
      }
      const set = (/^question_set: "?([^"\n]+)"?$/m.exec(front)?.[1] ?? '').trim();
      return { path, set, hasResults: vault.files('evals/runs').includes(resultsOf(path)), figures };
    });
}

const resultsOf = (notePath: string) => notePath.replace(/\.md$/, '.results.jsonl');

interface ResultLine {
  question_id: string;
  strategy: string;
  gold: string[];
  retrieved: string[];
  excluded?: boolean;
  metrics: Record<string, number | null>;
}

function results(vault: Vault, notePath: string): ResultLine[] {
  return vault
    .read(resultsOf(notePath))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ResultLine);
}

/** The newest Lucid run of the hand-written set, and another harness's run of the same set. */
function demoRuns(vault: Vault) {
  const notes = runNotes(vault);
  const lucid = notes.filter((n) => n.hasResults && n.set === 'demo');
  const other = notes.filter((n) => !n.hasResults && n.set === 'demo');
  expect(lucid.length).toBeGreaterThanOrEqual(2);
  expect(other.length).toBeGreaterThanOrEqual(1);
  return { lucid, newest: lucid[lucid.length - 1], other };
}

const noteHref = (path: string) => `/notes/${path.split('/').map(encodeURIComponent).join('/')}`;

test('the charts render, each with the table of its numbers, without console errors', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  const evaluation = new EvaluationPage(page);
  await evaluation.open();
  for (const section of [evaluation.strategies, evaluation.runs, evaluation.kinds]) await expect(section.locator('svg.recharts-surface').first()).toBeVisible();
  await expect(evaluation.strategies.locator('.recharts-bar-rectangle').filter({ visible: true }).first()).toBeVisible();
  await expect(evaluation.strategies.locator('.recharts-errorBar').first()).toBeAttached();
  await expect(evaluation.runs.locator('.recharts-line').filter({ visible: true }).first()).toBeVisible();
  await expect(evaluation.kinds.locator('.recharts-bar-rectangle').filter({ visible: true }).first()).toBeVisible();
  await expect(evaluation.row('none')).toContainText('no memory');
  await expect(page.getByTestId('eval-runs-table')).toBeVisible();
  await expect(page.getByTestId('eval-kinds-table')).toBeVisible();
  expect(errors).toEqual([]);
});

test("a run's figures are its note's front matter, other harnesses' strategies alongside and marked, across runs too", async ({ page }) => {
  const vault = e2eVault();
  const { lucid, newest, other } = demoRuns(vault);
  const evaluation = new EvaluationPage(page);
  await evaluation.open({ run: newest.path });
  await expect(evaluation.runPicker).toHaveValue(newest.path);
  const strategies = Object.keys(newest.figures);
  expect(strategies).toEqual(expect.arrayContaining(['none', 'grep', 'keyword', 'keyword-links']));
  for (const strategy of strategies) {
    await expect(evaluation.mean(strategy)).toHaveText(newest.figures[strategy].recall_at_5.toFixed(3));
    await expect(evaluation.row(strategy).getByTestId('eval-interval')).toHaveText(/^\d\.\d{3}–\d\.\d{3}$/);
    await expect(evaluation.row(strategy)).toContainText('this run');
  }
  // Another harness's strategies that this run has not: their run's mean (or a dash without the metric), marked.
  const theirs = Object.keys(other[other.length - 1].figures).filter((s) => !strategies.includes(s));
  expect(theirs.length).toBeGreaterThan(0);
  for (const strategy of theirs) {
    const value = other[other.length - 1].figures[strategy].recall_at_5;
    await expect(evaluation.mean(strategy)).toHaveText(value === undefined ? '—' : value.toFixed(3));
    await expect(evaluation.row(strategy)).toContainText('from another harness');
  }
  // The lines: every Lucid run of the set, each with its own front matter's figure.
  const table = page.getByTestId('eval-runs-table');
  for (const run of lucid) {
    await expect(table.locator(`tr[data-strategy="keyword"] td[data-run="${run.path}"]`)).toHaveText(run.figures.keyword.recall_at_5.toFixed(3));
  }
  // Another metric: the same table from the same front matter.
  await evaluation.page.getByLabel('Metric').selectOption('mrr');
  await expect(page).toHaveURL(/metric=mrr/);
  await expect(evaluation.mean('keyword')).toHaveText(newest.figures.keyword.mrr.toFixed(3));
});

test('picking a strategy by its bar or its row lists the questions it missed, as its results file says', async ({ page }) => {
  const vault = e2eVault();
  // A run and a strategy (with memory, above zero so its bar has a height) that missed questions.
  const candidates = runNotes(vault)
    .filter((n) => n.hasResults)
    .reverse()
    .flatMap((n) => Object.keys(n.figures).map((strategy) => ({ note: n, strategy, lines: results(vault, n.path) })));
  const pick = candidates.find(
    ({ note, strategy, lines }) =>
      strategy !== 'none' &&
      note.figures[strategy].recall_at_5 > 0 &&
      lines.some((l) => l.strategy === strategy && !l.excluded && (l.metrics.recall_at_5 ?? 0) < 1),
  );
  expect(pick).toBeDefined();
  const { note, strategy, lines } = pick as NonNullable<typeof pick>;
  const evaluation = new EvaluationPage(page);
  await evaluation.open({ run: note.path });

  // Its bar: the chart draws the strategies that have a figure, in the table's order.
  const charted = await page
    .getByTestId('eval-strategies-table')
    .locator('tr[data-strategy]')
    .evaluateAll((rows) => rows.filter((r) => r.querySelector('[data-testid="eval-mean"]')?.textContent !== '—').map((r) => r.getAttribute('data-strategy')));
  await evaluation.strategies.locator('.recharts-bar-rectangle').nth(charted.indexOf(strategy)).click();
  await expect(evaluation.row(strategy).getByRole('button')).toHaveAttribute('aria-pressed', 'true');
  const scored = lines.filter((l) => l.strategy === strategy && !l.excluded);
  const missed = scored.filter((l) => (l.metrics.recall_at_5 ?? 0) < 1);
  await expect(evaluation.missed.getByRole('heading', { name: `Questions ${strategy} missed` })).toBeVisible();
  await expect(page.getByTestId('eval-missed-count')).toContainText(`${missed.length} of ${scored.length} questions`);
  await expect(evaluation.missed.locator('li[data-question]')).toHaveCount(missed.length);
  const first = missed[0];
  const item = evaluation.missedQuestion(first.question_id);
  for (const gold of first.gold) {
    await expect(item.getByRole('list', { name: `Gold notes of ${first.question_id}` }).getByRole('link', { name: gold, exact: true })).toHaveAttribute(
      'href',
      noteHref(gold),
    );
  }
  const instead = first.retrieved.filter((p) => !first.gold.includes(p));
  for (const path of instead) {
    await expect(item.getByRole('list', { name: `Retrieved for ${first.question_id}` }).getByRole('link', { name: path, exact: true })).toHaveAttribute(
      'href',
      noteHref(path),
    );
  }
  await expect(page).toHaveURL(new RegExp(`strategy=${strategy}`));

  // No memory, by its row: it misses every question.
  await evaluation.pick('none');
  const none = lines.filter((l) => l.strategy === 'none' && !l.excluded);
  await expect(page.getByTestId('eval-missed-count')).toContainText(`${none.length} of ${none.length} questions`);

  // Another harness's strategy, alongside a run of its set, has no per-question results, and says so.
  const { newest, other } = demoRuns(vault);
  const theirs = Object.keys(other[other.length - 1].figures).find((s) => !(s in newest.figures)) as string;
  await evaluation.open({ run: newest.path });
  await evaluation.pick(theirs);
  await expect(evaluation.missed).toContainText(`No per-question results for ${theirs}`);
});

// The run itself takes 5–15 s here: every strategy answers every question of the demo's sets.
test('Run evaluation shows its progress and writes a run note per set in one new commit, then shows it', async ({ page }) => {
  const vault = e2eVault();
  const head = vault.git(['rev-parse', 'HEAD']).trim();
  const sets = vault.files('evals/questions').filter((f) => f.endsWith('.jsonl'));
  const evaluation = new EvaluationPage(page);
  await evaluation.open();
  await evaluation.runButton.click();
  await expect(evaluation.progress).toBeVisible();
  await expect(evaluation.finished).toBeVisible({ timeout: 45_000 });

  expect(vault.git(['rev-parse', 'HEAD~1']).trim()).toBe(head);
  const files = vault.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n');
  const notes = files.filter((f) => f.startsWith('evals/runs/') && f.endsWith('.md'));
  expect(notes).toHaveLength(sets.length);
  expect(files.filter((f) => f !== 'changelog.md' && !f.startsWith('changelog/')).sort()).toEqual([...notes, ...notes.map(resultsOf)].sort());
  const message = vault.git(['log', '-1', '--format=%B']);
  expect(message).toContain('Lucid-Op: eval');
  expect(message).toContain(`Lucid-Actor: human:${vault.git(['config', 'user.name']).trim()}`);
  for (const note of notes) await expect(evaluation.finished.getByRole('link', { name: note })).toHaveAttribute('href', noteHref(note));
  // The page refreshed: the new runs are in the picker.
  for (const note of notes) await expect(evaluation.runPicker.locator(`option[value="${note}"]`)).toHaveCount(1);
});

test('without runs the page offers the Run button; without question sets it says how to make one', async ({ page }) => {
  const vault = e2eVault();
  const head = vault.git(['rev-parse', 'HEAD']).trim();
  const evaluation = new EvaluationPage(page);
  const watcher = await listenToWatcher();
  try {
    vault.git(['rm', '-r', '-q', '--', 'evals/runs']);
    vault.git(['commit', '-q', '-m', 'no runs']);
    await watcher.seen(/^evals\/runs\//);
    await evaluation.open();
    await expect(page.getByRole('status').filter({ hasText: 'No evaluation run yet.' })).toBeVisible();
    await expect(evaluation.runButton).toBeVisible();
    await expect(evaluation.strategies).toHaveCount(0);

    vault.git(['rm', '-r', '-q', '--', 'evals/questions']);
    vault.git(['commit', '-q', '-m', 'no question sets']);
    await watcher.seen(/^evals\/questions\//);
    await evaluation.open();
    const empty = page.getByRole('status').filter({ hasText: 'No question set yet.' });
    await expect(empty).toBeVisible();
    await expect(empty).toContainText(`lucid eval generate --vault ${vault.root}`);
    await expect(empty).toContainText('evals/questions/<set>.jsonl');
    await expect(empty).toContainText('"gold": [');
    await expect(evaluation.runButton).toHaveCount(0);
  } finally {
    watcher.close();
    vault.git(['checkout', head, '--', 'evals']);
    vault.git(['commit', '-q', '-m', 'question sets and runs back']);
  }
});
