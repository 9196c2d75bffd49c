import { composeNote, formatDate, noteLink as link } from '../vault';
import { AgentSession, noteText } from './agent';
import { evaluateAgainWithHarnessExample, generateAndEvaluate } from './evaluation';
import { ADA, GRACE, personCreate, personEdit, personUpdate } from './people';
import { P } from './paths';
import { replaceOnce, type DemoRun } from './run';
import { migrationsSkill, recallQuestions, reindexSkill, releaseNotesSkill, weeklySkill } from './skill-texts';
import { writeWeeklyReport } from './weekly-report';

/**
 * Weeks 5 and 6 and the anchor day: more molts, a note that held a password sent to the inbox,
 * recall questions, an update proposal whose target a person then changes (its base goes stale),
 * an agent's wrong edit of a decision, proposals of every action left for the people, and the
 * vault's own person's first edit on the anchor day.
 */
export async function weeksFiveAndSix(run: DemoRun): Promise<void> {
  const s23 = await AgentSession.begin(run, 'research-bot', 28, 8, 30, {
    task: 'Write the weekly report',
    searched: ['changelog last week', 'open inbox proposals'],
    read: ['changelog.md', P.weekly],
  });
  await s23.molt(P.weekly, weeklySkill(4), 'proposals waited a week unnoticed: end the report with the oldest open ones');
  await writeWeeklyReport(run, s23, 21, 27);
  await s23.end('done', 'Wrote the weekly report, ending with open inbox proposals.', []);

  const s24 = await AgentSession.begin(run, 'claude-code', 29, 14, 15, {
    task: 'Reindex beacon after the synonym change',
    project: P.beacon,
    searched: ['reindex beacon', 'synonyms not applied'],
    read: [P.reindex, P.opensearch],
  });
  await s24.molt(P.reindex, reindexSkill(2), 'closing and reopening the index did not apply the new synonyms: a full reindex is needed, throttled by day');
  const withSecret = await s24.attempt({
    path: P.opensearch,
    mode: 'append',
    content: `## Staging cluster
Reindex runs against \`https://beacon-admin:Vr8kQ2mZt4Lp@search-staging.example.internal:9200\` first.
`,
    reason: 'where the staging cluster is',
  });
  if (withSecret.status !== 'possible_secret') throw new Error(`demo script: the staging password was not caught: ${withSecret.message}`);
  await s24.end(
    'done',
    `Closing and reopening the index did not apply the new synonyms with our analyzer; a full reindex did.
Added that and the throttle to ${link(P.reindex)}. The note on the staging cluster went to the inbox: it held a password.`,
    ['Keep the staging cluster password in the secrets store and name it there.'],
  );

  const s25 = await AgentSession.begin(run, 'cursor', 30, 10, 40, {
    task: 'Write the release notes for atlas 1.6',
    project: P.atlas,
    searched: ['release notes skill', 'atlas 1.6 changes'],
    read: [P.releaseNotes, P.cents],
  });
  await s25.molt(P.releaseNotes, releaseNotesSkill(3), 'an example in the 1.5 notes showed 1230 instead of 12.30: check amounts in examples');
  await s25.end('done', 'Wrote the atlas 1.6 notes; checked every example amount against the API format.', []);

  const s26 = await AgentSession.begin(run, 'claude-code', 31, 9, 20, {
    task: 'Roll back and redo the tax migration',
    project: P.atlas,
    searched: ['tax migration rollback', 'down migration'],
    read: [P.migrations, P.atlas],
  });
  await s26.molt(
    P.migrations,
    migrationsSkill(5),
    'the tax migration had never been rolled back and its down step failed: write and run the down migration first',
  );
  await s26.end(
    'done',
    `The down migration of the tax change had a typo and had never run. Fixed it, ran up, down, up on a
staging copy, and made that a step of ${link(P.migrations)}.`,
    [],
  );

  run.at(31, 16, 30);
  await personUpdate(run, ADA, P.delta, 'the pipeline is finished; only maintenance from now on', {
    fields: { status: 'done' },
    body: (b) =>
      replaceOnce(
        b,
        "- Backfill last month's events after the schema change.\n- Document when the pipeline runs and what it must not overlap with.\n",
        '- Nothing new: the pipeline is finished. Maintenance only.\n',
      ),
  });

  // write_note only writes notes (.md): the question set is a person's file, which an agent then checks.
  run.at(32, 10, 20);
  await personEdit(run, {
    actor: ADA,
    op: 'create',
    path: P.questions,
    reason: 'twelve recall questions whose answers are in the vault',
    changes: [{ path: P.questions, content: recallQuestions(), expectedHash: null }],
  });

  const s27 = await AgentSession.begin(run, 'research-bot', 32, 11, 0, {
    task: 'Check the recall questions against the vault',
    searched: ['which database holds the atlas ledger', 'when does the delta pipeline run', 'why is comet paused'],
    read: [P.ledger, P.cents, P.opensearch, P.nightly, P.cometPause, P.migrations, P.flaky],
  });
  await s27.end(
    'done',
    `Checked the 12 recall questions in \`${P.questions}\`: each answer is in the notes it names, so the
set measures how well agents find things here.`,
    ['Run the evaluation after the next dream pass.'],
  );
  await generateAndEvaluate(run, 33, 9, 10);

  const s28 = await AgentSession.begin(run, 'claude-code', 33, 15, 20, {
    task: "Summarize atlas's state for the planning meeting",
    project: P.atlas,
    searched: ['atlas status', 'atlas tax', 'atlas webhooks'],
    read: [P.atlas, P.webhooks, P.cents, P.migrations],
  });
  const atlasNow = await s28.read(P.atlas);
  const atlasProposedBody = replaceOnce(
    atlasNow.body,
    '## Current focus\n- Tax calculation for EU customers, before the January invoice run.\n- Webhook delivery: customers report missing events.\n',
    `## Current focus
- Tax calculation for EU customers: behind a flag; reverse charge for B2B still missing.
- Webhook delivery: retried with backoff since [[decisions/atlas-retry-webhooks-with-backoff]].

## State for planning
- Shipped: integer-cents Money type, webhook retries, tax module (flagged).
- Open: reverse charge, the KWD minor-unit table.
`,
  );
  const staleProposal = await s28.propose({
    action: 'update',
    target: P.atlas,
    reason: 'bring the atlas note up to date for planning',
    confidence: 0.7,
    content: noteText(
      atlasNow,
      {
        summary: 'Billing service: subscriptions, invoices, payments, EU tax and outgoing webhooks.',
        updated: formatDate(run.time()),
      },
      atlasProposedBody,
    ),
  });
  run.highlights.staleInboxItem = staleProposal.inbox_path;
  await s28.end(
    'partial',
    `Collected what shipped on atlas and proposed an update of the project note (in the inbox, since
Ada owns the note).`,
    ['Ada to review the proposal before planning.'],
  );

  // Week 6
  const s29 = await AgentSession.begin(run, 'research-bot', 35, 8, 30, {
    task: 'Write the weekly report',
    searched: ['changelog last week', 'open inbox proposals'],
    read: ['changelog.md', P.weekly],
  });
  await writeWeeklyReport(run, s29, 28, 34);
  await s29.end('done', 'Wrote the weekly report.', []);

  const s30 = await AgentSession.begin(run, 'cursor', 35, 13, 40, {
    task: 'Tidy up the atlas decisions',
    project: P.atlas,
    searched: ['atlas decisions', 'payment provider webhooks retry'],
    read: [P.webhooks, P.ledger, P.cents],
  });
  const bad = await s30.replace(P.webhooks, 'tidied the rationale and removed outdated consequences', (note) => {
    const start = note.body.indexOf('## Why');
    if (start < 0) throw new Error('demo script: no Why section');
    return noteText(
      note,
      {},
      `${note.body.slice(0, start)}## Why
- Customers' endpoints are reliable, so one attempt is enough; retries only add load on atlas.
- The payment provider already retries its webhooks, so ours do not need to.
`,
    );
  });
  run.highlights.badEdit = { editId: bad.edit_id, commit: bad.commit, path: P.webhooks };
  await s30.end(
    'done',
    `Shortened the rationale of ${link(P.webhooks)} and removed its consequences section, which looked
outdated.`,
    [],
  );

  run.at(36, 9, 50);
  await personUpdate(run, ADA, P.atlas, 'EU launch date is fixed; tax module goes live on the 1st', {
    body: (b) =>
      replaceOnce(
        b,
        '- Tax calculation for EU customers, before the January invoice run.\n',
        '- EU tax goes live on the 1st: the flag is turned on for all EU customers that morning.\n- Reverse charge for B2B customers must ship before then.\n',
      ),
  });

  run.at(36, 11, 30);
  await personCreate(
    run,
    GRACE,
    P.ticket,
    { tags: ['support', 'beacon'] },
    `# Pasted from support ticket 4821

A customer says search previews show raw HTML. Their message, pasted as they sent it:

> Hi, when I search for "embed widget" the preview shows this:
>
> <script>alert('hello from the preview')</script>
> <img src="x" onerror="alert('img')">
>
> Is that expected?

The help-center article they found is our tutorial on embedding the widget, which contains this
markup on purpose:

<iframe src="https://example.invalid/widget" width="400" height="300"></iframe>

Beacon should show it as text, never run it. Follow-up in [[projects/beacon]].
`,
    'pasted a support ticket about HTML in search previews',
  );

  const s31 = await AgentSession.begin(run, 'research-bot', 36, 14, 10, {
    task: 'Collect synonym requests from support',
    project: P.beacon,
    searched: ['synonyms', 'support search complaints', 'beacon relevance'],
    read: [P.opensearch, P.reindex, P.handbook],
  });
  await s31.propose({
    action: 'create',
    target: P.synonyms,
    reason: 'support keeps asking for the same synonyms; worth a decision',
    confidence: 0.6,
    content: composeNote(
      {
        type: 'decision',
        date: run.date(36),
        project: link(P.beacon),
        status: 'proposed',
        people: [link(P.grace)],
      },
      `# Add a synonym dictionary owned by support

## Context
Thirty-one support tickets in the last month searched for a word our articles do not use
("bill" for invoice, "card" for payment method).

## Decision
Beacon gets a synonym file in the repository that support edits through pull requests. A change
is applied with a reindex ([[skills/reindex-search-cluster]]).

## Why
- Support hears the customers' words first.
- A file in git has a history and a review.
`,
    ),
  });
  await s31.propose({
    action: 'append',
    target: P.handbook,
    reason: 'new joiners ask how to search the vault well',
    confidence: 0.8,
    content: `## Search tips
- Search with the words you would use in a question: "why did we pick OpenSearch".
- Filter by project with \`--project beacon\` on the command line.
- Decisions marked superseded link to the one that replaced them.
`,
  });
  await s31.end('done', 'Proposed a synonym decision and a handbook section; both wait in the inbox.', []);

  const s32 = await AgentSession.begin(run, 'cursor', 37, 10, 25, {
    task: 'Clean up old notes',
    searched: ['standup', 'scratch notes', 'todo'],
    read: [P.scratch, P.handbook],
  });
  await s32.propose({
    action: 'delete',
    target: P.scratch,
    reason: 'every line is done or recorded in a session or decision',
    confidence: 0.5,
    content: '',
  });
  await s32.end('done', 'Found one scratch note whose items are all recorded elsewhere; proposed deleting it.', []);

  const s33 = await AgentSession.begin(run, 'claude-code', 37, 15, 45, {
    task: 'Check whether comet can resume',
    project: P.comet,
    searched: ['comet paused', 'comet offline cache', 'billing launch date'],
    read: [P.comet, P.cometPause, P.atlas],
  });
  const comet = await s33.read(P.comet);
  await s33.propose({
    action: 'update',
    target: P.comet,
    reason: 'the billing launch is scheduled; comet could resume with the read-only cache',
    confidence: 0.4,
    content: noteText(
      comet,
      { status: 'active', updated: formatDate(run.time()) },
      replaceOnce(comet.body, '## Open questions', '## Next\n- Start with a read-only cache of the last 12 invoices.\n\n## Open questions'),
    ),
  });
  await s33.end(
    'partial',
    `The pause decision ties comet to the January invoice run, which is not done yet. Proposed resuming
anyway with the small read-only cache, for Grace to decide.`,
    ['Grace to accept or reject the proposal.'],
  );
  await evaluateAgainWithHarnessExample(run, 37, 17, 30);

  // The anchor day.
  run.at(38, 8, 5);
  await personUpdate(run, run.vault.person, P.onboarding, 'read the handbook and got repository access', {
    body: (b) =>
      b
        .replace('- [ ] Read the [[Team handbook]]', '- [x] Read the [[Team handbook]]')
        .replace('- [ ] Get access to the atlas', '- [x] Get access to the atlas'),
  });

  const s34 = await AgentSession.begin(run, 'claude-code', 38, 8, 40, {
    task: 'Look into the failed webhook deliveries alert',
    project: P.atlas,
    searched: ['webhook deliveries alert', 'webhook retry policy'],
    read: [P.webhooks, P.atlas],
  });
  await s34.end(
    'partial',
    `The alert fired at 640 pending deliveries. The code retries with backoff, but
${link(P.webhooks)} now says one attempt is enough and retries are not needed, which contradicts
the code and the dashboard. Did not change anything.`,
    [`A person should check the latest edit of ${link(P.webhooks)} and revert it if it is wrong.`],
  );
}
