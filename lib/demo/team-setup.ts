import { formatDate, noteLink as link } from '../vault';
import { ADA, GRACE, personCreate } from './people';
import { P } from './paths';
import type { DemoRun } from './run';

/**
 * Day 0: the two people set up the vault with themselves, their projects, the handbook and the
 * onboarding checklist, and import one skill from an old prompt library (the stale one).
 */
export async function setUpTeam(run: DemoRun): Promise<void> {
  run.at(0, 9, 5);
  await personCreate(
    run,
    ADA,
    P.ada,
    {
      type: 'person',
      name: 'Ada Lovelace',
      role: 'Engineering lead, billing and data',
      projects: [link(P.atlas), link(P.delta)],
      email: 'ada@example.com',
    },
    `# Ada Lovelace

Leads the billing and data work. Ask her about invoices, the ledger and the warehouse.

## Working with Ada
- She wants a decision written down before any change to the ledger's schema.
- She reviews the inbox every morning before standup.
`,
    'added myself',
  );
  await personCreate(
    run,
    ADA,
    P.atlas,
    {
      type: 'project',
      name: 'Atlas',
      status: 'active',
      owner: link(P.ada),
      repo: 'https://github.com/example-team/atlas',
      summary: 'Billing service: subscriptions, invoices, payments and outgoing webhooks.',
      tags: ['billing', 'service'],
    },
    `# Atlas

Atlas bills our customers. It keeps their subscriptions, issues an invoice every month, takes
payments through the payment provider, and tells customers' own systems about each event through
webhooks.

## Where things are
- Code: \`services/atlas\`; the ledger schema is in \`db/migrations\`.
- Dashboards: "Atlas / invoices" and "Atlas / webhooks" in Grafana.

## Current focus
- Tax calculation for EU customers, before the January invoice run.
- Webhook delivery: customers report missing events.
`,
    'added the atlas project',
  );
  await personCreate(
    run,
    ADA,
    P.delta,
    {
      type: 'project',
      name: 'Delta',
      status: 'active',
      owner: link(P.ada),
      repo: 'https://github.com/example-team/delta',
      summary: 'The nightly data pipeline from the product databases into the warehouse.',
      tags: ['data', 'pipeline'],
    },
    `# Delta

Delta copies what happened in atlas and beacon into the warehouse every night, where finance and
product read it. It owns the extraction jobs, the warehouse schema and the finance dashboards.

## Current focus
- Backfill last month's events after the schema change.
- Document when the pipeline runs and what it must not overlap with.
`,
    'added the delta project',
  );

  run.at(0, 10, 2);
  await personCreate(
    run,
    GRACE,
    P.grace,
    {
      type: 'person',
      name: 'Grace Hopper',
      role: 'Staff engineer, search and mobile',
      projects: [link(P.beacon), link(P.comet)],
      email: 'grace@example.com',
    },
    `# Grace Hopper

Owns search (beacon) and the mobile app (comet). Pages for search incidents.

## Working with Grace
- Prefers a short proposal in the inbox over a large change.
- Likes numbers: a load test beats an opinion.
`,
    'added myself',
  );
  await personCreate(
    run,
    GRACE,
    P.beacon,
    {
      type: 'project',
      name: 'Beacon',
      status: 'active',
      owner: link(P.grace),
      repo: 'https://github.com/example-team/beacon',
      summary: 'Search across help-center articles, invoices and customer notes.',
      tags: ['search', 'service'],
    },
    `# Beacon

Beacon is the search box in the customer dashboard and in the support tool. It indexes
help-center articles, invoices and, from next quarter, customer notes.

## Current focus
- First release: help-center articles and invoices.
- Choose the search engine (see the sessions of this week).
`,
    'added the beacon project',
  );
  await personCreate(
    run,
    GRACE,
    P.comet,
    {
      type: 'project',
      name: 'Comet',
      status: 'active',
      owner: link(P.grace),
      repo: 'https://github.com/example-team/comet',
      summary: 'The customer mobile app (iOS and Android, React Native).',
      tags: ['mobile', 'app'],
    },
    `# Comet

Comet is the customer app: invoices, payment methods and notifications on the phone.

## Current focus
- Offline mode: show the last invoices without a connection.
- Push notifications for failed payments.
`,
    'added the comet project',
  );
  await personCreate(
    run,
    GRACE,
    P.onboarding,
    {
      tags: ['onboarding', 'team'],
      aliases: ['Onboarding'],
    },
    `# Onboarding checklist 🚀

Welcome! Work through this list in your first week and tick things off as you go.

## Day one
- [ ] Read the [[Team handbook]]
- [ ] Get access to the atlas, beacon, comet and delta repositories
- [ ] Say hello to [[people/ada-lovelace|Ada]] and [[people/grace-hopper|Grace]]

## First week
- [ ] Read the project notes: [[projects/atlas]], [[projects/beacon]], [[projects/comet]], [[projects/delta]]
- [ ] Read the latest weekly report in \`reports/\`
- [ ] Pair with an agent for one task, then read its session note
- [ ] Review one inbox proposal together with Ada or Grace

> [!tip] Ask early
> Nobody expects you to know where things are. Ask in #team-eng.
`,
    'onboarding checklist for new joiners',
  );
  await personCreate(
    run,
    GRACE,
    P.handbook,
    {
      tags: ['team', 'handbook'],
    },
    `# Team handbook

How our small team works: four projects, two people, and three agents that share this vault as
their memory.

> [!note] This vault is the team's memory
> Agents read it before they start and write down what they did. If something here is wrong,
> fix it: your edit is what the agents follow next time.

## Projects

| Project | What it is | Owner |
|---|---|---|
| [[projects/atlas\\|Atlas]] | billing service | [[people/ada-lovelace\\|Ada]] |
| [[projects/beacon\\|Beacon]] | search | [[people/grace-hopper\\|Grace]] |
| [[projects/comet\\|Comet]] | mobile app | [[people/grace-hopper\\|Grace]] |
| [[projects/delta\\|Delta]] | data pipeline | [[people/ada-lovelace\\|Ada]] |

New to billing? Start with the [atlas project note](../projects/atlas.md).

## Agents
- **claude-code** works on the atlas and beacon code.
- **cursor** pairs with whoever is in the editor, and keeps CI green.
- **research-bot** compares options, writes decisions down and sends the weekly report.

## New here?

![[Onboarding checklist 🚀]]

%%Grace: move the agent list into its own note once we have more than three agents. Template: [[projects/beacon]].%%

#team #handbook
`,
    'first version of the handbook',
  );

  run.at(0, 11, 20);
  await personCreate(
    run,
    ADA,
    P.certificates,
    {
      type: 'skill',
      name: 'rotate-staging-certificates',
      version: 2,
      trigger: 'the staging TLS certificate expires within 14 days',
      last_updated: formatDate(new Date(run.dayAt(0).getTime() - 170 * 86_400_000)),
      status: 'active',
    },
    `# Rotate staging certificates

Imported from the agents' old prompt library. Staging used self-managed TLS certificates before it
moved behind the managed load balancer.

## Steps
1. Generate a new key and certificate signing request with \`openssl req -new -newkey rsa:2048\`.
2. Ask the internal CA for a certificate valid for 90 days.
3. Upload the certificate and key to the staging secrets store as \`staging-tls\`.
4. Restart the ingress pods one at a time and check the expiry date with \`openssl s_client\`.
`,
    'imported from the old prompt library',
  );
}
