import nodePath from 'node:path';
import { noteLink as link } from '../vault';
import { AgentSession, noteText } from './agent';
import { ADA, GRACE, personAccept, personAppend, personReject, personRevert, personUpdate } from './people';
import { P } from './paths';
import { replaceOnce, type DemoRun } from './run';
import { flakySkill, intermittentSkill, migrationsSkill, releaseNotesSkill, reindexSkill, weeklySkill } from './skill-texts';
import { writeWeeklyReport } from './weekly-report';

/**
 * Weeks 3 and 4: release notes and flaky tests molt their skills, OpenSearch is evaluated and
 * replaces FTS5 (one decision superseding another), the tax migration teaches the migration skill
 * a new step, and the reindex procedure is written down. Ada accepts an agent's proposal and Grace
 * rejects one, with her reason, through the inbox's own operations; Grace reverts an agent's edit
 * that marked the paused comet active, through the revert operation.
 */
export async function weeksThreeAndFour(run: DemoRun): Promise<void> {
  const s13 = await AgentSession.begin(run, 'research-bot', 14, 8, 40, {
    task: 'Write the weekly report',
    searched: ['changelog last week', 'people edits last week'],
    read: ['changelog.md', P.weekly],
  });
  await s13.molt(P.weekly, weeklySkill(2), "people's corrections matter most: count their edits apart from the agents'");
  await writeWeeklyReport(run, s13, 7, 13);
  await s13.end('done', "Wrote the weekly report. People's edits now have their own section.", []);

  const s14 = await AgentSession.begin(run, 'cursor', 15, 10, 10, {
    task: 'Prepare the release notes for atlas 1.4',
    project: P.atlas,
    searched: ['release notes', 'atlas changes since 1.3'],
    read: [P.atlas, P.cents, P.webhooks],
  });
  await s14.molt(P.releaseNotes, releaseNotesSkill(1), 'wrote down how the 1.4 notes were made', 'a release of atlas or beacon is tagged');
  await s14.end('done', `Wrote the atlas 1.4 release notes (Money type, webhook retries) and the routine as ${link(P.releaseNotes)}.`, []);

  const s15 = await AgentSession.begin(run, 'claude-code', 16, 15, 0, {
    task: 'Quarantine the flaky beacon ranking test',
    project: P.beacon,
    searched: ['flaky ranking test', 'quarantine test'],
    read: [P.flaky, P.beacon],
  });
  await s15.molt(P.flaky, flakySkill(3), 'the ranking flake could not be fixed in a day: quarantine it with an issue instead of retrying');
  await s15.end(
    'done',
    `The ranking test depends on BM25 ties that FTS5 breaks differently between builds. Quarantined it
(tag \`@flaky\`, nightly job) with an issue, as the updated ${link(P.flaky)} says.`,
    ['Fix the tie-breaking when beacon moves engines.'],
  );

  const s16 = await AgentSession.begin(run, 'research-bot', 17, 9, 50, {
    task: 'Evaluate OpenSearch against SQLite FTS5',
    project: P.beacon,
    searched: ['opensearch evaluation', 'beacon latency 2 million documents'],
    read: [P.fts5, P.beacon],
  });
  await s16.append(
    P.beacon,
    `## Search engine evaluation
At 2 million documents, on the same queries:

| Engine | p95 latency | Full rebuild | Incremental updates |
|---|---|---|---|
| SQLite FTS5 | 900 ms | 3 h 40 min | no |
| OpenSearch (3 nodes) | 45 ms | 50 min | yes |

Details of the FTS5 run: [[decisions/beacon-use-sqlite-fts5#Load test (added later)]].
`,
    'added the engine comparison',
  );
  await s16.end(
    'done',
    `Ran the FTS5 load test's queries against a three-node OpenSearch cluster and added the comparison to
${link(P.beacon)}.`,
    ['Grace to decide on the move; claude-code to record it.'],
  );

  const s17 = await AgentSession.begin(run, 'cursor', 18, 11, 30, {
    task: 'Write the release notes for atlas 1.5',
    project: P.atlas,
    searched: ['release notes skill'],
    read: [P.releaseNotes],
  });
  await s17.molt(P.releaseNotes, releaseNotesSkill(2), 'customers missed the migration note in 1.4: put required actions first, leave out refactors');
  const releasesProposal = await s17.propose({
    action: 'append',
    target: P.atlas,
    reason: 'keep the list of releases on the project note',
    confidence: 0.6,
    content: `## Releases
- 1.5: the required customer action (re-issue API keys) comes first in the notes.
`,
  });
  await s17.end('done', 'Wrote the atlas 1.5 notes with the required customer action at the top; proposed a release list for the project note.', []);

  run.at(18, 14, 10);
  await personAccept(run, ADA, releasesProposal.inbox_path, 'yes, the release list belongs on the project note');

  run.at(18, 16, 40);
  await personUpdate(run, GRACE, P.handbook, 'added the on-call rota', {
    body: (b) =>
      replaceOnce(
        b,
        '## New here?',
        `## On call
One person is on call each week, Monday to Monday. The agents never page anyone; they write to
the inbox.

- Billing incidents: read the [incident review](${encodeURIComponent(nodePath.basename(P.incident))}) first.
- Search incidents: page [[people/grace-hopper|Grace]].

## New here?`,
      ),
  });

  // Week 4
  const s18 = await AgentSession.begin(run, 'research-bot', 21, 8, 35, {
    task: 'Write the weekly report',
    searched: ['changelog last week', 'skill molts last week'],
    read: ['changelog.md', P.weekly],
  });
  await s18.molt(P.weekly, weeklySkill(3), 'readers asked why skills changed: list each molt with its reason');
  await writeWeeklyReport(run, s18, 14, 20);
  const pagingProposal = await s18.propose({
    action: 'append',
    target: P.handbook,
    reason: 'a failed nightly job should reach someone at once',
    confidence: 0.4,
    content: `## When a nightly job fails
The agent that notices it pages the person on call.
`,
  });
  await s18.end('done', 'Wrote the weekly report, now with the skills that changed and why; proposed a paging rule for the handbook.', []);

  run.at(21, 11, 45);
  await personReject(run, GRACE, pagingProposal.inbox_path, P.handbook, 'agents never page anyone: they write to the inbox, and the person on call reads it');

  const s19 = await AgentSession.begin(run, 'claude-code', 22, 10, 20, {
    task: "Record the move of beacon's search to OpenSearch",
    project: P.beacon,
    searched: ['beacon search engine decision', 'opensearch evaluation'],
    read: [P.fts5, P.beacon, P.grace],
  });
  await s19.decide({
    project: 'beacon',
    title: 'Move to OpenSearch',
    replaces: P.fts5,
    decision: `Beacon moves to a three-node OpenSearch cluster, updated incrementally from delta's change feed
instead of rebuilt every night. Beacon's HTTP API does not change.`,
    rationale: `The load test in [[decisions/beacon-use-sqlite-fts5]] showed that FTS5 cannot carry the
customer-notes import: a p95 latency of 900 ms and a nightly rebuild longer than its window at
2 million documents. The evaluation in [[projects/beacon#Search engine evaluation]] measured
OpenSearch at the same size.

- p95 latency of 45 ms at 2 million documents in the evaluation.
- Incremental updates remove the nightly rebuild window.
- Synonyms and per-field boosts, which support has asked for since launch.

## Consequences
- A cluster to operate: reindexing needs a written procedure.
- About three small nodes of cost; Grace approved the budget.`,
  });
  await s19.replace(P.beacon, 'the engine changed', (note) =>
    noteText(
      note,
      { summary: 'Search across help-center articles, invoices and customer notes, on OpenSearch.' },
      replaceOnce(
        note.body,
        '- Choose the search engine (see the sessions of this week).',
        '- Move to OpenSearch: see [[decisions/beacon-move-to-opensearch]].',
      ),
    ),
  );
  await s19.end('done', `Recorded ${link(P.opensearch)}; ${link(P.fts5)} is now superseded by it. Updated the project note.`, [
    'Write the reindex procedure once the cluster is up.',
  ]);

  run.at(22, 14, 0);
  await personAppend(
    run,
    GRACE,
    P.opensearch,
    `## Review
Approved in the architecture review. Migration plan: write to both engines for a week, compare the
top 10 results of the 500 most common queries, then switch reads. — Grace
`,
    'added the review outcome and the migration plan',
  );

  const s20 = await AgentSession.begin(run, 'cursor', 23, 9, 5, {
    task: 'Comet CI is red again',
    project: P.comet,
    searched: ['ci fails sometimes comet', 'intermittent'],
    read: [P.intermittent, P.comet],
  });
  await s20.molt(P.intermittent, intermittentSkill(2), 'the comet simulator test could not be fixed in a day: move it to nightly with an issue');
  const cometActive = await s20.replace(P.comet, 'CI is green again, so comet is active', (note) => noteText(note, { status: 'active' }));
  await s20.end(
    'done',
    `The iOS simulator test times out when the runner is busy. Moved it to the nightly job with an issue,
as the updated ${link(P.intermittent)} says. Marked ${link(P.comet)} active again now that its CI is green.`,
    [],
  );

  run.at(23, 15, 20);
  await personRevert(
    run,
    GRACE,
    cometActive.edit_id,
    P.comet,
    'comet stays paused until the billing launch ships (see the pause decision): a green CI does not resume it',
  );

  const s21 = await AgentSession.begin(run, 'claude-code', 24, 13, 10, {
    task: 'Add the tax calculation module to atlas',
    project: P.atlas,
    searched: ['atlas tax', 'add not null column postgres', 'money rounding'],
    read: [P.cents, P.migrations, P.atlas],
  });
  await s21.molt(P.migrations, migrationsSkill(4), 'adding tax_rate NOT NULL rewrote the invoices table: add nullable, backfill, then validate the constraint');
  await s21.end(
    'partial',
    `Added the tax module behind a flag. Adding \`tax_rate\` as NOT NULL locked \`invoices\` on staging;
redid it in three steps and added them to ${link(P.migrations)}.`,
    ['Finish the reverse-charge rules for B2B customers.'],
  );

  const s22 = await AgentSession.begin(run, 'research-bot', 25, 10, 30, {
    task: 'Write down how to reindex the OpenSearch cluster',
    project: P.beacon,
    searched: ['reindex opensearch', 'beacon index alias'],
    read: [P.opensearch, P.beacon],
  });
  await s22.molt(P.reindex, reindexSkill(1), 'the reindex procedure the OpenSearch decision asked for', "beacon's index mapping, analyzer or synonyms change");
  await s22.end('done', `Wrote ${link(P.reindex)}: a new index behind the \`beacon\` alias, checked, then switched.`, []);
}
