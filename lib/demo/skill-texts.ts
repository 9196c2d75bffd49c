import { P } from './paths';

/* The texts of the demo's skills at each of their versions, and its recall questions. */

function skillNote(title: string, intro: string, steps: string[], notes: string[] = []): string {
  const out = [`# ${title}`, '', intro, '', '## Steps', ...steps.map((s, i) => `${i + 1}. ${s}`), ''];
  if (notes.length > 0) out.push('## Notes', ...notes.map((n) => `- ${n}`), '');
  return out.join('\n');
}

export function migrationsSkill(v: number): string {
  const steps = [
    'Read the migration and check the size of every table it touches (`\\dt+` in psql).',
    v >= 5
      ? 'Write the down migration first. On a fresh copy of staging run up, down, then up again, and time each run.'
      : 'Run it on a fresh copy of staging and time it.',
  ];
  if (v >= 4) {
    steps.push(
      'To add a NOT NULL column: add it as nullable, backfill it, add the constraint with `NOT VALID`, then `VALIDATE CONSTRAINT` in a separate migration.',
    );
  }
  if (v >= 3) {
    steps.push('Never backfill inside the migration. Put the backfill in its own job that updates 10,000 rows per batch and pauses between batches.');
  }
  steps.push(
    v >= 2
      ? "Apply it in production during office hours, with someone from the owning team watching. Start with `SET lock_timeout = '5s'`, so a migration that waits for a lock fails fast instead of queueing every query behind it; retry a few minutes later."
      : 'Apply it in one transaction in production, during office hours, with someone from the owning team watching.',
    'Watch the error rate and p95 latency on the service dashboard for 15 minutes.',
  );
  const notes = ['Ledger tables are append-only: never `UPDATE` or `DELETE` rows of `ledger_entries` in a migration.'];
  if (v >= 3) notes.push("Backfills never run between 01:00 and 07:00 UTC: that is delta's window and the invoice run.");
  return skillNote('Run database migrations safely', "Use this before changing the schema of atlas's or delta's Postgres databases.", steps, notes);
}

export function flakySkill(v: number): string {
  const steps = [
    'Run the failing test alone 20 times (`--repeat 20`) to confirm it is flaky rather than broken.',
    'Look for shared state: the clock, random seeds, the order of tests, the network, files in a shared folder.',
  ];
  if (v >= 2) steps.push('Freeze the clock and the random seed in the test; try the last day of a month and a date after midnight UTC.');
  steps.push('Fix the cause. Do not add automatic retries: they hide real failures.');
  if (v >= 3)
    steps.push('If it cannot be fixed today: quarantine it (tag `@flaky`, run it in the nightly job), open an issue, and link the issue in the test.');
  return skillNote('Triage flaky tests', 'For a test that passes and fails on the same code.', steps);
}

export function intermittentSkill(v: number): string {
  const steps = [
    'Re-run the job on the same commit. If it passes, write down the job and the test name.',
    'Reproduce it locally by running the test in a loop, at least 20 times.',
    'Look for timing, ordering or shared-state problems and fix them. Do not paper over them with retries.',
  ];
  if (v >= 2) steps.push('If the fix takes longer than a day, move the test to the nightly job behind a `flaky` tag and open an issue for it.');
  return skillNote('Handle intermittent CI failures', 'When a CI job goes red and then green again without a code change.', steps);
}

export function weeklySkill(v: number): string {
  const steps = [
    "Read last week's lines in `changelog.md` (and `changelog/` when the month changed).",
    'List the sessions that ended in the week by agent, with their outcome.',
    'List new decisions with one line each.',
  ];
  if (v >= 2) steps.push("List people's edits separately: a person's correction is the most important line of the week.");
  if (v >= 3) steps.push('List the skills that molted, each with the reason of the molt.');
  if (v >= 4) steps.push('End with the open inbox proposals older than three days, oldest first.');
  steps.push('Write the report to `reports/week-ending-<date>.md` with `type: report`.');
  return skillNote('Summarize weekly activity', 'Every Monday morning: what the agents and people did last week, for the whole team.', steps);
}

export function releaseNotesSkill(v: number): string {
  const steps = ['Collect the merged pull requests since the last tag (`git log v1.3..HEAD --merges`).'];
  if (v >= 2) steps.push('Put anything customers must do (a migration, a changed field) at the top, in bold.');
  steps.push('Group the rest under Added, Changed and Fixed, written for customers, not for us.');
  if (v >= 2) steps.push('Leave out internal refactors and test changes.');
  if (v >= 3) steps.push('Check every amount in an example: the API shows decimal strings ("12.30"), never cents.');
  return skillNote('Write release notes', 'When a release of atlas or beacon is tagged.', steps);
}

export function reindexSkill(v: number): string {
  const steps = [
    'Create the new index `beacon-v<N+1>` with the new mapping.',
    v >= 2
      ? 'Reindex from the current index with `_reindex`, throttled to `requests_per_second: 2000` during office hours.'
      : 'Reindex from the current index with `_reindex`.',
    'Compare document counts and the top 10 results of the 50 most common queries.',
    'Switch the `beacon` alias to the new index in one `_aliases` call.',
    'Keep the old index for 24 hours, then delete it.',
  ];
  const notes = v >= 2 ? ['A synonym change needs a full reindex: closing and reopening the index is not enough with our analyzer.'] : [];
  return skillNote(
    'Reindex the search cluster',
    "Beacon's search runs on OpenSearch behind the `beacon` alias, so a reindex never takes search down.",
    steps,
    notes,
  );
}

export function recallQuestions(): string {
  const q = (id: string, question: string, gold: string[], answers: string[], kind: string, split: string) =>
    JSON.stringify({ id, question, gold, answers, kind, split });
  return `${[
    q('q1', 'Which database holds the atlas ledger?', [P.ledger], ['Postgres'], 'hand', 'dev'),
    q('q2', 'How does atlas store amounts of money?', [P.cents], ['integer'], 'hand', 'dev'),
    q('q3', 'Which search engine does beacon use now?', [P.opensearch], ['OpenSearch'], 'hand', 'test'),
    q('q4', 'Why did beacon stop using SQLite FTS5?', [P.fts5, P.opensearch], ['900 ms'], 'hand', 'test'),
    q('q5', 'When does the delta pipeline run?', [P.nightly], ['02:00 UTC'], 'template', 'dev'),
    q('q6', 'Who owns the comet mobile app?', [P.comet], ['grace-hopper'], 'template', 'test'),
    q('q7', 'Why is comet paused?', [P.cometPause], ['billing launch'], 'hand', 'dev'),
    q('q8', 'What should I do when a test passes and fails on the same code?', [P.flaky, P.intermittent], ['20 times'], 'hand', 'test'),
    q('q9', 'How do I add a NOT NULL column to a Postgres table safely?', [P.migrations], ['NOT VALID'], 'hand', 'dev'),
    q('q10', 'How are failed outgoing webhooks retried?', [P.webhooks], ['exponential backoff'], 'hand', 'test'),
    q('q11', 'How do I rebuild the beacon search index without downtime?', [P.reindex], ['alias'], 'hand', 'dev'),
    q('q12', 'Where is the team offsite?', [P.offsite], ['Tokyo'], 'template', 'test'),
  ].join('\n')}\n`;
}
