import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import nodePath from 'node:path';
import { VaultError } from '../vault/errors';
import { composeNote, hashBytes, setFrontmatterFields, splitNote, type FrontmatterData } from '../vault/notes/frontmatter';
import { blobId, runGit } from '../vault/git/repo';
import { formatDate, formatTime, newSessionId, seededIds, type IdSource } from '../vault/ids';
import { inboxNoteText, inboxNotePath, noteLink as link, sessionNoteParts } from '../vault/notes/note-formats';
import { initVault } from '../vault/init';
import { openVault, type Vault } from '../vault/vault';
import { type EditResult, type FileChange, type Op } from '../vault/write/edit-types';

/** How to make a demo vault. */
export interface GenerateDemoOptions {
  /** The folder to fill: new, empty, or an earlier demo (which is replaced). */
  dir: string;
  /** The environment git runs with (the CLI passes its own environment). */
  env: Record<string, string | undefined>;
  /** The last day of the history (local time); only its date counts. */
  anchor: Date;
  /** The person's name when git has no user.name (LUCID_USER, else the OS user). */
  fallbackUser?: string;
}

/** Where the demo's notable notes and edits are, for tours, docs and end-to-end tests. */
export interface DemoHighlights {
  /** The decision that was replaced, and the one that replaced it (one commit). */
  supersededDecision: string;
  replacingDecision: string;
  /** Two skills that say the same thing in other words. */
  duplicateSkills: [string, string];
  /** A skill no session has used, last updated months before the history starts. */
  staleSkill: string;
  /** The skill with the most molts. */
  moltedSkill: string;
  /** An update proposal whose target a person changed after it was made (its base_blob is stale). */
  staleInboxItem: string;
  /** An agent's wrong edit, worth reverting. */
  badEdit: { editId: string; commit: string; path: string };
  /** A note whose body holds pasted `<script>`, `onerror=` and `<iframe>` markup. */
  xssNote: string;
  /** A note whose name has spaces and an emoji. */
  emojiNote: string;
  /** Notes whose names have `%` and non-Latin letters. */
  unusualNames: string[];
}

/** What {@link generateDemoVault} made. */
export interface DemoReport {
  root: string;
  /** The anchor date, `YYYY-MM-DD`. */
  anchor: string;
  commits: number;
  notes: number;
  sessions: number;
  inbox: number;
  highlights: DemoHighlights;
}

/** Written in `.lucid/` (git-ignored) so a later run knows the folder is a demo it may replace. */
const MARKER = '.lucid/demo.json';
/** Days of history before the anchor day (about five and a half weeks). */
const HISTORY_DAYS = 38;

/** The hour by which the anchor day's last demo edit is made (local time). */
const ANCHOR_DAY_DONE_HOUR = 9;

/**
 * The anchor when none is given: today, or yesterday before 9:00, so that no demo commit is dated
 * later than `now` and the last seven days still hold a week of activity.
 */
export function defaultDemoAnchor(now: Date): Date {
  const day = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  if (now.getHours() < ANCHOR_DAY_DONE_HOUR) day.setDate(day.getDate() - 1);
  return day;
}

const ADA = 'human:Ada Lovelace';
const GRACE = 'human:Grace Hopper';
type AgentSlug = 'claude-code' | 'cursor' | 'research-bot';
type Outcome = 'done' | 'partial' | 'abandoned';

const P = {
  ada: 'people/ada-lovelace.md',
  grace: 'people/grace-hopper.md',
  atlas: 'projects/atlas.md',
  beacon: 'projects/beacon.md',
  comet: 'projects/comet.md',
  delta: 'projects/delta.md',
  ledger: 'decisions/atlas-use-postgres-for-ledger.md',
  cents: 'decisions/atlas-store-money-as-integer-cents.md',
  webhooks: 'decisions/atlas-retry-webhooks-with-backoff.md',
  fts5: 'decisions/beacon-use-sqlite-fts5.md',
  opensearch: 'decisions/beacon-move-to-opensearch.md',
  nightly: 'decisions/delta-run-nightly-at-0200-utc.md',
  cometPause: 'decisions/comet-pause-until-billing-launch.md',
  synonyms: 'decisions/beacon-add-synonym-dictionary.md',
  migrations: 'skills/run-db-migrations-safely.md',
  flaky: 'skills/triage-flaky-tests.md',
  intermittent: 'skills/handle-intermittent-ci-failures.md',
  weekly: 'skills/summarize-weekly-activity.md',
  releaseNotes: 'skills/write-release-notes.md',
  reindex: 'skills/reindex-search-cluster.md',
  certificates: 'skills/rotate-staging-certificates.md',
  handbook: 'Notes/Team handbook.md',
  onboarding: 'Notes/Onboarding checklist 🚀.md',
  offsite: 'Notes/東京 offsite.md',
  incident: 'Notes/Incident review – 40% of invoices late.md',
  scratch: 'Notes/Standup scratch.md',
  ticket: 'Notes/Pasted from support ticket.md',
  questions: 'evals/questions/demo.jsonl',
} as const;

function replaceOnce(text: string, from: string, to: string): string {
  if (!text.includes(from)) throw new Error(`demo script: "${from.slice(0, 40)}" not found`);
  return text.replace(from, to);
}

interface Session {
  id: string;
  agent: AgentSlug;
  actor: string;
  task: string;
  project?: string;
  started: Date;
  firstSearch: Date;
  searched: string[];
  read: string[];
  touched: string[];
  inbox: string[];
  skillsUsed: string[];
  firstWrite?: Date;
}

interface EndedSession {
  id: string;
  agent: AgentSlug;
  task: string;
  outcome: Outcome;
  ended: number;
  path: string;
}

interface Event {
  at: number;
  actor: string;
  op: Op;
  path: string;
  reason: string;
  session?: string;
}

/** Seconds added to each pause, so timestamps look like people's and agents' real pace. */
const JITTER = [17, 43, 8, 31, 52, 4, 26, 39, 12, 47, 21, 35];
/** Minutes between consecutive edits of one actor. */
const GAPS = [3, 6, 4, 9, 5, 2, 7, 4, 11, 3];

/**
 * Writes the demo's history through {@link Vault.edit} with a clock it moves itself: every edit
 * is stamped a few minutes after the previous one, and `at` jumps to a scheduled day and time.
 */
class DemoHistory {
  readonly events: Event[] = [];
  readonly ended: EndedSession[] = [];
  private now: number;
  private tick = 0;
  private versions = new Map<string, number>();
  vault!: Vault;

  constructor(
    readonly root: string,
    readonly day0: Date,
    readonly ids: IdSource,
  ) {
    this.now = day0.getTime();
  }

  readonly clock = (): Date => new Date(this.now);

  /** The current time of the history. */
  time(): Date {
    return new Date(this.now);
  }

  /** Midnight-relative local time on day `day` of the history (day 0 is the first). */
  dayAt(day: number, hour = 0, minute = 0): Date {
    return new Date(this.day0.getFullYear(), this.day0.getMonth(), this.day0.getDate() + day, hour, minute, 0);
  }

  date(day: number): string {
    return formatDate(this.dayAt(day));
  }

  /** Jumps to a scheduled moment; the script's moments must come in order. */
  at(day: number, hour: number, minute: number): void {
    const target = this.dayAt(day, hour, minute).getTime() + JITTER[this.tick % JITTER.length] * 1000;
    if (target <= this.now) throw new Error(`demo script: day ${day} ${hour}:${minute} comes before ${new Date(this.now).toISOString()}`);
    this.now = target;
  }

  /** Moves the clock forward by about `minutes`. */
  pause(minutes: number): void {
    this.tick += 1;
    this.now += minutes * 60_000 + JITTER[this.tick % JITTER.length] * 1000;
  }

  /** The current version of a skill the history wrote. */
  versionOf(path: string): number {
    return this.versions.get(path) ?? 0;
  }

  read(path: string): string {
    return readFileSync(nodePath.join(this.root, path), 'utf8');
  }

  /** One edit through the vault's write path, then the clock moves on. */
  async write(request: {
    actor: string;
    op: Op;
    path: string;
    reason: string;
    session?: Session;
    changes: FileChange[];
    trailers?: [string, string][];
  }): Promise<EditResult> {
    const stamp = this.now;
    const result = await this.vault.edit({
      actor: request.actor,
      op: request.op,
      path: request.path,
      reason: request.reason,
      session: request.session?.id,
      changes: request.changes,
      trailers: request.trailers,
    });
    this.events.push({ at: stamp, actor: request.actor, op: request.op, path: request.path, reason: request.reason, session: request.session?.id });
    const s = request.session;
    if (s) {
      s.firstWrite ??= new Date(stamp);
      for (const change of request.changes) {
        if (change.path.startsWith('inbox/')) s.inbox.push(change.path);
        else if (!change.path.startsWith('sessions/') && !s.touched.includes(change.path)) s.touched.push(change.path);
      }
    }
    this.pause(GAPS[this.tick % GAPS.length]);
    return result;
  }

  /** Creates a note; Lucid sets `created` (time) and `updated` (date). */
  async create(
    actor: string,
    path: string,
    data: FrontmatterData,
    body: string,
    reason: string,
    options: { session?: Session; op?: Op; also?: FileChange[]; trailers?: [string, string][] } = {},
  ): Promise<EditResult> {
    const text = this.compose(data, body);
    if (data.type === 'skill') this.versions.set(path, Number(data.version));
    return this.write({
      actor,
      op: options.op ?? 'create',
      path,
      reason,
      session: options.session,
      changes: [{ path, content: text, expectedHash: null }, ...(options.also ?? [])],
      trailers: options.trailers,
    });
  }

  compose(data: FrontmatterData, body: string): string {
    return composeNote({ ...data, created: formatTime(this.time()), updated: formatDate(this.time()) }, body);
  }

  /** The new text of a note: fields changed line by line, `updated` set, the body rewritten by `body`. */
  revise(path: string, fields: FrontmatterData, body?: (current: string) => string): { text: string; change: FileChange } {
    const current = this.read(path);
    let text = setFrontmatterFields(current, { ...fields, updated: formatDate(this.time()) });
    if (body) {
      const parts = splitNote(text);
      text = text.slice(0, parts.bodyStart) + body(parts.body);
    }
    return { text, change: { path, content: text, expectedHash: hashBytes(Buffer.from(current, 'utf8')) } };
  }

  async update(
    actor: string,
    path: string,
    reason: string,
    edit: { fields?: FrontmatterData; body?: (current: string) => string; session?: Session; op?: Op },
  ): Promise<EditResult> {
    const { change } = this.revise(path, edit.fields ?? {}, edit.body);
    return this.write({ actor, op: edit.op ?? 'update', path, reason, session: edit.session, changes: [change] });
  }

  async append(actor: string, path: string, section: string, reason: string, session?: Session): Promise<EditResult> {
    return this.update(actor, path, reason, { body: (body) => `${body.replace(/\n*$/, '\n')}\n${section}`, session, op: 'append' });
  }

  /** A molt: version + 1, `last_updated` today, the `Lucid-Molt` trailer. */
  async molt(actor: string, path: string, body: string, reason: string, session: Session, fields: FrontmatterData = {}): Promise<EditResult> {
    const from = this.versions.get(path);
    if (from === undefined) throw new Error(`demo script: ${path} is not a skill`);
    const name = nodePath.basename(path, '.md');
    const { change } = this.revise(path, { ...fields, version: from + 1, last_updated: formatDate(this.time()) }, () => `\n${body}`);
    const result = await this.write({ actor, op: 'molt', path, reason, session, changes: [change], trailers: [['Lucid-Molt', `${name} ${from}->${from + 1}`]] });
    this.versions.set(path, from + 1);
    return result;
  }

  /** Starts an agent session at a scheduled moment; it searches first, then works. */
  begin(agent: AgentSlug, day: number, hour: number, minute: number, spec: { task: string; project?: string; searched: string[]; read: string[]; skills?: string[] }): Session {
    this.at(day, hour, minute);
    const started = this.time();
    const session: Session = {
      id: newSessionId(started, agent, this.ids),
      agent,
      actor: `agent:${agent}`,
      task: spec.task,
      project: spec.project,
      started,
      firstSearch: new Date(started.getTime() + 38_000),
      searched: spec.searched,
      read: spec.read,
      touched: [],
      inbox: [],
      skillsUsed: spec.skills ?? [],
    };
    this.pause(4);
    return session;
  }

  /** Ends a session: writes its note to `sessions/` (op create, with the session's trailer). */
  async end(s: Session, outcome: Outcome, summary: string, next: string[], reason: string): Promise<EditResult> {
    this.pause(3);
    const ended = this.time();
    const path = `sessions/${s.id}.md`;
    const { data, body } = sessionNoteParts({
      agent: s.agent,
      task: s.task,
      started: s.started,
      ended,
      outcome,
      project: s.project,
      searched: s.searched,
      read: s.read,
      touched: s.touched,
      inbox: s.inbox,
      skillsUsed: s.skillsUsed,
      firstSearch: s.firstSearch,
      firstWrite: s.firstWrite,
      summary,
      nextSteps: next,
    });
    const result = await this.create(s.actor, path, data, body, reason, { session: s });
    this.ended.push({ id: s.id, agent: s.agent, task: s.task, outcome, ended: ended.getTime(), path });
    return result;
  }

  /** A proposal in `inbox/`, in the format of VAULT-FORMAT's Inbox section. */
  async propose(
    s: Session,
    spec: { action: 'create' | 'update' | 'append' | 'delete'; target: string; reason: string; confidence: number; explanation: string; content: string; title: string },
  ): Promise<{ path: string; result: EditResult }> {
    const now = this.time();
    const path = inboxNotePath('inbox', now, spec.title);
    const baseBlob = spec.action === 'create' ? undefined : blobId(readFileSync(nodePath.join(this.root, spec.target)));
    const text = inboxNoteText({
      proposedBy: s.actor,
      action: spec.action,
      target: spec.target,
      reason: spec.reason,
      now,
      session: s.id,
      confidence: spec.confidence,
      baseBlob,
      explanation: spec.explanation,
      content: spec.content,
    });
    const result = await this.write({ actor: s.actor, op: 'create', path, reason: spec.reason, session: s, changes: [{ path, content: text, expectedHash: null }] });
    return { path, result };
  }
}

function isDemo(root: string): boolean {
  try {
    const marker = JSON.parse(readFileSync(nodePath.join(root, MARKER), 'utf8')) as { lucidDemo?: unknown };
    return marker.lucidDemo === 1 && existsSync(nodePath.join(root, '.git'));
  } catch {
    return false;
  }
}

/** Refuses a folder that holds anything but an earlier demo; empties an earlier demo. */
function prepareFolder(root: string): void {
  if (existsSync(root)) {
    if (!statSync(root).isDirectory()) throw new VaultError('invalid_path', `${root} is a file, not a folder.`);
    const entries = readdirSync(root);
    if (entries.length > 0) {
      if (!isDemo(root)) {
        throw new VaultError('invalid_input', `${root} is not empty and is not a Lucid demo vault. Give a new or empty folder; the demo never writes over other files.`);
      }
      for (const entry of entries) rmSync(nodePath.join(root, entry), { recursive: true, force: true });
    }
  }
  mkdirSync(root, { recursive: true });
}

/**
 * Makes a demo vault in `dir`: about five and a half weeks of a small software team's history
 * (two people, three agents, four projects) ending on `anchor`'s date, written entirely through
 * {@link Vault.edit} with a stepping clock and seeded ids, so it is exactly what Lucid itself
 * writes and the same anchor always gives the same bytes. It has sessions, decisions (one
 * superseding another), skills that molted (two that duplicate each other, one stale), pending
 * inbox proposals of every action (one whose target a person changed since), an agent edit
 * worth reverting, people's own notes with unusual names and pasted HTML, recall questions and
 * weekly reports. `dir` must be new, empty, or an earlier demo (which is replaced); anything
 * else is refused with `invalid_input`. Its own git repository is always created, even inside
 * another repository.
 */
export async function generateDemoVault(options: GenerateDemoOptions): Promise<DemoReport> {
  const anchorDay = new Date(options.anchor.getFullYear(), options.anchor.getMonth(), options.anchor.getDate());
  if (Number.isNaN(anchorDay.getTime())) throw new VaultError('invalid_input', 'The anchor date is not a valid date.');
  const root = nodePath.resolve(options.dir);
  prepareFolder(root);
  await runGit({ root, env: options.env }, ['init', '-q', '-b', 'main']);

  const anchor = formatDate(anchorDay);
  const ids = seededIds(Number(anchor.replace(/-/g, '')));
  const day0 = new Date(anchorDay.getFullYear(), anchorDay.getMonth(), anchorDay.getDate() - HISTORY_DAYS);
  const h = new DemoHistory(root, day0, ids);

  h.at(0, 8, 30);
  await initVault({ dir: root, env: options.env, clock: h.clock, ids, fallbackUser: options.fallbackUser });
  mkdirSync(nodePath.join(root, nodePath.dirname(MARKER)), { recursive: true });
  writeFileSync(nodePath.join(root, MARKER), `${JSON.stringify({ lucidDemo: 1, anchor })}\n`);
  h.vault = await openVault({ root, env: options.env, clock: h.clock, ids, fallbackUser: options.fallbackUser });
  try {
    const highlights = await writeHistory(h);
    const commits = Number((await runGit(h.vault.repo, ['rev-list', '--count', 'HEAD'])).trim());
    const notes = (await h.vault.listFiles()).filter((f) => f.path.endsWith('.md'));
    return {
      root: h.vault.root,
      anchor,
      commits,
      notes: notes.length,
      sessions: notes.filter((f) => f.path.startsWith('sessions/')).length,
      inbox: notes.filter((f) => f.path.startsWith('inbox/')).length,
      highlights,
    };
  } finally {
    h.vault.close();
  }
}

async function writeHistory(h: DemoHistory): Promise<DemoHighlights> {
  const day = (n: number) => h.date(n);
  const person = h.vault.person;

  // Day 0: the team sets up the vault.
  h.at(0, 9, 5);
  await h.create(ADA, P.ada, {
    type: 'person',
    name: 'Ada Lovelace',
    role: 'Engineering lead, billing and data',
    projects: [link(P.atlas), link(P.delta)],
    email: 'ada@example.com',
  }, `# Ada Lovelace

Leads the billing and data work. Ask her about invoices, the ledger and the warehouse.

## Working with Ada
- She wants a decision written down before any change to the ledger's schema.
- She reviews the inbox every morning before standup.
`, 'added myself');
  await h.create(ADA, P.atlas, {
    type: 'project',
    name: 'Atlas',
    status: 'active',
    owner: link(P.ada),
    repo: 'https://github.com/example-team/atlas',
    summary: 'Billing service: subscriptions, invoices, payments and outgoing webhooks.',
    tags: ['billing', 'service'],
  }, `# Atlas

Atlas bills our customers. It keeps their subscriptions, issues an invoice every month, takes
payments through the payment provider, and tells customers' own systems about each event through
webhooks.

## Where things are
- Code: \`services/atlas\`; the ledger schema is in \`db/migrations\`.
- Dashboards: "Atlas / invoices" and "Atlas / webhooks" in Grafana.

## Current focus
- Tax calculation for EU customers, before the January invoice run.
- Webhook delivery: customers report missing events.
`, 'added the atlas project');
  await h.create(ADA, P.delta, {
    type: 'project',
    name: 'Delta',
    status: 'active',
    owner: link(P.ada),
    repo: 'https://github.com/example-team/delta',
    summary: 'The nightly data pipeline from the product databases into the warehouse.',
    tags: ['data', 'pipeline'],
  }, `# Delta

Delta copies what happened in atlas and beacon into the warehouse every night, where finance and
product read it. It owns the extraction jobs, the warehouse schema and the finance dashboards.

## Current focus
- Backfill last month's events after the schema change.
- Document when the pipeline runs and what it must not overlap with.
`, 'added the delta project');

  h.at(0, 10, 2);
  await h.create(GRACE, P.grace, {
    type: 'person',
    name: 'Grace Hopper',
    role: 'Staff engineer, search and mobile',
    projects: [link(P.beacon), link(P.comet)],
    email: 'grace@example.com',
  }, `# Grace Hopper

Owns search (beacon) and the mobile app (comet). Pages for search incidents.

## Working with Grace
- Prefers a short proposal in the inbox over a large change.
- Likes numbers: a load test beats an opinion.
`, 'added myself');
  await h.create(GRACE, P.beacon, {
    type: 'project',
    name: 'Beacon',
    status: 'active',
    owner: link(P.grace),
    repo: 'https://github.com/example-team/beacon',
    summary: 'Search across help-center articles, invoices and customer notes.',
    tags: ['search', 'service'],
  }, `# Beacon

Beacon is the search box in the customer dashboard and in the support tool. It indexes
help-center articles, invoices and, from next quarter, customer notes.

## Current focus
- First release: help-center articles and invoices.
- Choose the search engine (see the sessions of this week).
`, 'added the beacon project');
  await h.create(GRACE, P.comet, {
    type: 'project',
    name: 'Comet',
    status: 'active',
    owner: link(P.grace),
    repo: 'https://github.com/example-team/comet',
    summary: 'The customer mobile app (iOS and Android, React Native).',
    tags: ['mobile', 'app'],
  }, `# Comet

Comet is the customer app: invoices, payment methods and notifications on the phone.

## Current focus
- Offline mode: show the last invoices without a connection.
- Push notifications for failed payments.
`, 'added the comet project');
  await h.create(GRACE, P.onboarding, {
    tags: ['onboarding', 'team'],
    aliases: ['Onboarding'],
  }, `# Onboarding checklist 🚀

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
`, 'onboarding checklist for new joiners');
  await h.create(GRACE, P.handbook, {
    tags: ['team', 'handbook'],
  }, `# Team handbook

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
`, 'first version of the handbook');

  h.at(0, 11, 20);
  await h.create(ADA, P.certificates, {
    type: 'skill',
    name: 'rotate-staging-certificates',
    version: 2,
    trigger: 'the staging TLS certificate expires within 14 days',
    last_updated: formatDate(new Date(h.dayAt(0).getTime() - 170 * 86_400_000)),
    status: 'active',
  }, `# Rotate staging certificates

Imported from the agents' old prompt library. Staging used self-managed TLS certificates before it
moved behind the managed load balancer.

## Steps
1. Generate a new key and certificate signing request with \`openssl req -new -newkey rsa:2048\`.
2. Ask the internal CA for a certificate valid for 90 days.
3. Upload the certificate and key to the staging secrets store as \`staging-tls\`.
4. Restart the ingress pods one at a time and check the expiry date with \`openssl s_client\`.
`, 'imported from the old prompt library');

  // S1
  const s1 = h.begin('claude-code', 0, 14, 5, {
    task: 'Read the atlas code and record how the ledger is stored',
    project: P.atlas,
    searched: ['atlas ledger storage', 'ledger decision'],
    read: [P.atlas, P.ada],
  });
  await h.create(s1.actor, P.ledger, {
    type: 'decision',
    date: day(0),
    project: link(P.atlas),
    status: 'accepted',
    people: [link(P.ada)],
  }, `# Use Postgres for the atlas ledger

## Context
Atlas records every charge, refund and credit note. The records must never be lost or counted
twice, and finance reconciles them against the payment provider every month.

## Decision
The ledger lives in Postgres, in the \`ledger_entries\` table, written in the same transaction as
the invoice it belongs to. Entries are append-only: a correction is a new entry that reverses the
old one.

## Why
- One transaction covers the invoice and its ledger entries; no two-phase writes.
- The team already runs Postgres for atlas, with backups and point-in-time recovery.
- Append-only entries make the monthly reconciliation a sum, not an investigation.

## Consequences
- Schema changes to \`ledger_entries\` follow [[skills/run-db-migrations-safely]].
- Reports read from the replica, never from the primary.
`, 'recorded the existing ledger design (Ada confirmed it in chat)', { session: s1 });
  await h.create(s1.actor, P.migrations, {
    type: 'skill',
    name: 'run-db-migrations-safely',
    version: 1,
    trigger: 'changing a Postgres schema in atlas or delta',
    last_updated: day(0),
    status: 'active',
  }, migrationsSkill(1), 'wrote down how atlas migrations are run today', { session: s1 });
  await h.end(s1, 'done', `Read atlas's \`db/\` folder and the migration history. The ledger is an append-only Postgres
table written in the invoice's transaction; recorded it as ${link(P.ledger)} and wrote the
migration routine down as a skill.`, ['Ask Ada whether credit notes should get their own table.'], 'recorded the ledger decision and the migration routine');

  // S2
  const s2 = h.begin('research-bot', 1, 9, 40, {
    task: "Compare search engines for beacon's first release",
    project: P.beacon,
    searched: ['beacon search engine', 'full text search options', 'postgres full text'],
    read: [P.beacon, P.grace],
  });
  await h.create(s2.actor, P.fts5, {
    type: 'decision',
    date: day(1),
    project: link(P.beacon),
    status: 'proposed',
    people: [link(P.grace)],
  }, `# Use SQLite FTS5 for beacon's first release

## Context
Beacon's first release searches about 300,000 help-center articles and invoices. The team wants
nothing new to operate before the atlas EU launch.

## Options considered
- SQLite FTS5 inside the beacon service: no new infrastructure, BM25 ranking built in.
- Postgres full-text search: already operated, but weaker ranking, and it would load atlas's database.
- OpenSearch: the best relevance tools, but a cluster to run and pay for.

## Decision
Ship the first release on SQLite FTS5, one index file per region, rebuilt every night from
[[projects/delta|delta]]'s exports.

## Why
- No new infrastructure, and queries answer in under 20 ms at 300,000 documents.
- Beacon's API hides the engine, so we can move to a search cluster later.
`, 'proposed FTS5 for the first release, with the options compared', { session: s2 });
  await h.end(s2, 'done', `Compared SQLite FTS5, Postgres full-text search and OpenSearch for the first release and
proposed FTS5 in ${link(P.fts5)} (status proposed, for Grace to accept).`, ['Load test FTS5 at the size of the customer-notes import.'], 'search options compared, FTS5 proposed');

  h.at(1, 11, 25);
  await h.update(GRACE, P.fts5, "accepted in Tuesday's design review", { fields: { status: 'accepted' } });

  // S3
  const s3 = h.begin('cursor', 1, 15, 10, {
    task: 'Introduce a Money type with integer cents in atlas',
    project: P.atlas,
    searched: ['atlas money rounding', 'invoice off by one cent'],
    read: [P.atlas, P.ledger],
  });
  await h.create(s3.actor, P.cents, {
    type: 'decision',
    date: day(1),
    project: link(P.atlas),
    status: 'accepted',
    people: [link(P.ada)],
  }, `# Store money as integer cents in atlas

## Context
Invoice totals were computed with floating-point numbers in two places, and one customer's invoice
was off by one cent after tax.

## Decision
Every amount in atlas is an integer number of the currency's minor unit (cents for EUR and USD),
with the currency code beside it, in a \`Money\` type. Rounding happens once, when tax is applied,
with banker's rounding.

## Why
- Integers add exactly; floating-point numbers do not (0.1 + 0.2).
- One rounding rule in one place, which finance can check.

## Consequences
- The API still shows decimal strings ("12.30"); the conversion happens at the edge.
- Currencies with three decimals (KWD) need a minor-unit table, not a hard-coded 100.
`, 'recorded the Money type decision Ada approved in the PR', { session: s3 });
  await h.end(s3, 'done', `Added the \`Money\` type and replaced the two floating-point total calculations. Ada approved the PR;
the rule is in ${link(P.cents)}.`, ['Add the minor-unit table before the first KWD customer.'], 'Money type merged, decision recorded');

  // S4
  const s4 = h.begin('claude-code', 2, 10, 15, {
    task: 'Fix the flaky invoice PDF snapshot test',
    project: P.atlas,
    searched: ['flaky test invoice pdf', 'snapshot test fails sometimes'],
    read: [P.atlas],
  });
  await h.create(s4.actor, P.flaky, {
    type: 'skill',
    name: 'triage-flaky-tests',
    version: 1,
    trigger: 'a test passes and fails on the same code',
    last_updated: day(2),
    status: 'active',
  }, flakySkill(1), 'wrote down how the PDF snapshot flake was found', { session: s4 });
  await h.end(s4, 'done', `The PDF snapshot differed when the test ran after midnight UTC: the invoice date came from the
real clock. Froze the date in the test. Wrote the routine down as ${link(P.flaky)}.`, [], 'flaky PDF test fixed');

  h.at(2, 12, 40);
  await h.create(ADA, P.scratch, { tags: ['scratch'] }, `# Standup scratch

- atlas: Money type PR in review
- beacon: FTS5 index builds in 4 min locally
- delta: backfill script still TODO
- ask Grace about comet offline sync
- ask Grace about the offsite dates
`, 'notes from standup');

  h.at(2, 16, 5);
  await h.create(GRACE, P.offsite, {
    tags: ['team', 'offsite'],
    aliases: ['Tokyo offsite'],
  }, `# 東京 offsite

The team meets in Tokyo (東京) for three days in the spring.

## Agenda
1. Day one: the atlas EU launch, looking back ([[projects/atlas]])
2. Day two: beacon's search roadmap ([[projects/beacon]])
3. Day three: what next for mobile ([[projects/comet]])

## Practical
- We stay near Shibuya (渋谷); ask Grace for the booking reference.
- ありがとう (arigatō) means thank you; すみません (sumimasen) gets a waiter's attention.
`, 'offsite plan');

  // S5
  const s5 = h.begin('cursor', 3, 9, 30, {
    task: 'Prototype offline sync for comet',
    project: P.comet,
    searched: ['comet offline mode', 'sync library react native'],
    read: [P.comet, P.grace],
  });
  await h.append(s5.actor, P.comet, `## Open questions
- Offline sync needs a conflict-free data library; the smallest one that works with our API adds
  2.1 MB to the app, more than the rest of comet together.
- Invoices change rarely; a read-only cache of the last 12 invoices may be enough.
`, 'added what the offline sync prototype showed', s5);
  await h.end(s5, 'abandoned', `Tried two sync libraries. Both need changes to atlas's API and one doubles the app's size. Stopped
and wrote the open questions into ${link(P.comet)} for Grace.`, ['Grace to decide between full sync and a read-only cache.'], 'offline sync prototype stopped');

  // S6
  const s6 = h.begin('research-bot', 3, 13, 45, {
    task: 'Document when and how the nightly pipeline runs',
    project: P.delta,
    searched: ['delta schedule', 'nightly pipeline window', 'warehouse load time'],
    read: [P.delta, P.ada],
  });
  await h.create(s6.actor, P.nightly, {
    type: 'decision',
    date: day(3),
    project: link(P.delta),
    status: 'accepted',
    people: [link(P.ada)],
  }, `# Run the delta pipeline nightly at 02:00 UTC

## Context
Delta's jobs were started by hand or by three different cron entries, and twice a load ran while
finance was reading the dashboards.

## Decision
The delta pipeline runs once a night at 02:00 UTC: extract from the atlas and beacon replicas, load
into the warehouse, then rebuild the finance dashboards. A run must finish by 06:00 UTC, when the
European finance team starts.

## Why
- The replicas are quietest between 01:00 and 05:00 UTC.
- One run a night is enough for finance; nobody has asked for fresher data.

## Consequences
- Backfills run as separate jobs outside that window (see [[skills/run-db-migrations-safely]]).
- A run still going at 06:00 UTC pages the data on-call.
`, 'wrote down the schedule Ada described', { session: s6 });
  await h.end(s6, 'done', `Collected the three cron entries into one schedule and recorded it as ${link(P.nightly)}.`, [], 'delta schedule recorded');

  // S7
  const s7 = h.begin('claude-code', 4, 10, 5, {
    task: 'Retry failed outgoing webhooks in atlas',
    project: P.atlas,
    searched: ['atlas webhooks missing events', 'webhook retry', 'migration lock'],
    read: [P.atlas, P.migrations, P.ledger],
    skills: [P.migrations],
  });
  await h.create(s7.actor, P.webhooks, {
    type: 'decision',
    date: day(4),
    project: link(P.atlas),
    status: 'accepted',
    people: [link(P.ada)],
  }, `# Retry failed outgoing webhooks with exponential backoff

## Context
Atlas sends customers a webhook for every invoice and payment event. About 2% of deliveries fail on
the first try (timeouts, customers deploying), and failed ones were dropped.

## Decision
A failed delivery is retried with exponential backoff: after 1 minute, 5 minutes, 30 minutes,
2 hours and 12 hours; then it is marked failed and shown in the customer's dashboard. Every delivery
carries an \`Idempotency-Key\` header, so a customer can ignore repeats.

## Why
- Most failures are short: in last month's logs, 94% of failed deliveries would have succeeded
  within 30 minutes.
- Customers reconcile invoices from these webhooks; a dropped one becomes a support ticket.
- Idempotency keys make retries safe for customers who receive an event twice.

## Consequences
- Deliveries are stored in a \`webhook_deliveries\` table.
- The "Atlas / webhooks" dashboard shows the retry queue; an alert fires above 500 pending deliveries.
`, 'recorded the retry policy agreed with Ada', { session: s7 });
  await h.molt(s7.actor, P.migrations, migrationsSkill(2), 'the webhook_deliveries migration waited 4 minutes on a lock and blocked invoice writes: set lock_timeout first', s7);
  await h.end(s7, 'done', `Added the \`webhook_deliveries\` table and the retry worker. The migration blocked invoice writes for
four minutes on staging while it waited for a lock, so the migration skill now sets
\`lock_timeout\` first.`, ['Watch the retry queue on the dashboard after the deploy.'], 'webhook retries shipped');

  h.at(4, 17, 10);
  await h.update(ADA, P.handbook, 'how we work with the agents', {
    body: (b) =>
      replaceOnce(b, '## New here?', `## Working with agents
1. Agents search this vault before they assume anything. Keep \`decisions/\` current.
2. When an agent is unsure, it proposes a change in the inbox. Review the inbox daily: accept,
   edit, or reject with a reason.
3. Never paste secrets into notes. Lucid refuses them, and they would stay in git history.
4. Every change is a commit. If an agent got something wrong, revert its edit from the history
   instead of fixing it silently, so the agent sees what was undone.

## New here?`),
  });

  // Week 2
  const s8 = h.begin('research-bot', 7, 8, 30, {
    task: 'Write the weekly report',
    searched: ['changelog last week', 'sessions last week'],
    read: ['changelog.md'],
  });
  await h.create(s8.actor, P.weekly, {
    type: 'skill',
    name: 'summarize-weekly-activity',
    version: 1,
    trigger: 'Monday morning, or when someone asks what happened last week',
    last_updated: day(7),
    status: 'active',
  }, weeklySkill(1), 'wrote down how the weekly report is made', { session: s8 });
  s8.skillsUsed.push(P.weekly);
  await writeReport(h, s8, 0, 6);
  await h.end(s8, 'done', `Wrote the first weekly report from the changelog and the session notes, and wrote the routine down
as ${link(P.weekly)}.`, [], 'weekly report written');

  const s9 = h.begin('cursor', 7, 11, 0, {
    task: 'Stop beacon integration tests failing on CI',
    project: P.beacon,
    searched: ['ci failing retry', 'beacon integration tests red'],
    read: [P.beacon],
  });
  await h.create(s9.actor, P.intermittent, {
    type: 'skill',
    name: 'handle-intermittent-ci-failures',
    version: 1,
    trigger: 'a CI job fails intermittently without a code change',
    last_updated: day(7),
    status: 'active',
  }, intermittentSkill(1), 'wrote down how the beacon CI failures were handled', { session: s9 });
  await h.end(s9, 'done', `The integration tests shared one index file and failed when two jobs ran on the same runner. Each
job now gets its own temp folder. Wrote the steps down as ${link(P.intermittent)}.`, [], 'beacon CI fixed');

  const s10 = h.begin('claude-code', 8, 14, 20, {
    task: 'Fix the flaky tax rounding test',
    project: P.atlas,
    searched: ['flaky test', 'tax rounding test fails at month end'],
    read: [P.flaky, P.cents],
    skills: [P.flaky],
  });
  await h.molt(s10.actor, P.flaky, flakySkill(2), 'the tax rounding test failed only on the last day of a month: freeze the clock and the seed', s10);
  await h.end(s10, 'done', `Followed ${link(P.flaky)}. The test failed only on the last day of a month, when the
proration used the real date. Froze the clock in the test and added that step to the skill.`, [], 'tax rounding test fixed');

  h.at(9, 10, 0);
  const pauseNote = h.compose({
    type: 'decision',
    date: day(9),
    project: link(P.comet),
    status: 'accepted',
    people: [link(P.grace), link(P.ada)],
  }, `# Pause comet until the billing launch ships

## Context
The offline sync prototype ([[sessions/${s5.id}|cursor's session]]) showed that full sync needs a
library larger than the rest of the app, and atlas's tax work needs every hand until the EU launch.

## Decision
Comet is paused: no new features; only crash fixes and OS updates are released. We look at it
again after the January invoice run, starting with a read-only cache of recent invoices.

## Why
- The EU launch has a legal date; comet's features do not.
- A read-only cache may give customers most of what offline mode promised, at a fraction of the cost.
`);
  const cometPaused = h.revise(P.comet, { status: 'paused' });
  await h.write({
    actor: GRACE,
    op: 'create',
    path: P.cometPause,
    reason: 'pausing comet until the billing launch ships',
    changes: [{ path: P.cometPause, content: pauseNote, expectedHash: null }, cometPaused.change],
  });

  const s11 = h.begin('cursor', 10, 9, 15, {
    task: "Backfill last month's events into the warehouse",
    project: P.delta,
    searched: ['delta backfill', 'backfill batch size', 'migration'],
    read: [P.delta, P.nightly, P.migrations],
    skills: [P.migrations],
  });
  await h.molt(s11.actor, P.migrations, migrationsSkill(3), 'the backfill ran inside the migration transaction and timed out: backfill in batches, in its own job', s11);
  await h.end(s11, 'partial', `The first attempt ran the backfill inside the schema migration and timed out after an hour. Split it
into a job of 10,000-row batches; 60% of the month is loaded.`, ['Load the remaining 40% tonight, outside the 02:00–06:00 UTC window.'], 'backfill 60% done');

  const s12 = h.begin('claude-code', 11, 13, 30, {
    task: 'Load test the beacon index at 2 million documents',
    project: P.beacon,
    searched: ['beacon fts5 performance', 'search load test'],
    read: [P.fts5, P.beacon],
  });
  await h.append(s12.actor, P.fts5, `## Load test (added later)
At 2 million documents (the size after the customer-notes import) the p95 query latency rose to
900 ms, and the nightly rebuild took 3 h 40 min, longer than its window. FTS5 is fine for the
first release but will not carry the customer-notes import.
`, 'added the load test results', s12);
  await h.end(s12, 'partial', `Loaded 2 million synthetic documents. p95 latency 900 ms, rebuild 3 h 40 min. Added the numbers to
${link(P.fts5)}.`, ['Compare OpenSearch at the same size before the customer-notes import.'], 'load test results recorded');

  h.at(12, 9, 40);
  await h.create(ADA, P.incident, { tags: ['incident', 'atlas'] }, `# Incident review – 40% of invoices late

**Impact:** about 40% of the monthly invoices went out 6 to 9 hours late. No amount was wrong.

## Timeline
- 01:30 UTC: the second half of the delta backfill starts, earlier than planned.
- 02:00 UTC: the invoice run starts and competes with the backfill for the atlas replica.
- 07:10 UTC: Ada sees the invoice queue on the dashboard and pauses the backfill.
- 11:45 UTC: the last invoice is sent.

## What we changed
- The invoice run now starts at 07:00 UTC, after [[projects/delta|delta]] finishes (see [[decisions/delta-run-nightly-at-0200-utc]]).
- Backfills follow [[skills/run-db-migrations-safely]] and never run between 01:00 and 07:00 UTC.

%% Times from the #incident channel, rounded to five minutes. %%
`, 'review of the late invoices');

  // Week 3
  const s13 = h.begin('research-bot', 14, 8, 40, {
    task: 'Write the weekly report',
    searched: ['changelog last week', 'people edits last week'],
    read: ['changelog.md', P.weekly],
    skills: [P.weekly],
  });
  await h.molt(s13.actor, P.weekly, weeklySkill(2), "people's corrections matter most: count their edits apart from the agents'", s13);
  await writeReport(h, s13, 7, 13);
  await h.end(s13, 'done', 'Wrote the weekly report. People\'s edits now have their own section.', [], 'weekly report written');

  const s14 = h.begin('cursor', 15, 10, 10, {
    task: 'Prepare the release notes for atlas 1.4',
    project: P.atlas,
    searched: ['release notes', 'atlas changes since 1.3'],
    read: [P.atlas, P.cents, P.webhooks],
  });
  await h.create(s14.actor, P.releaseNotes, {
    type: 'skill',
    name: 'write-release-notes',
    version: 1,
    trigger: 'a release of atlas or beacon is tagged',
    last_updated: day(15),
    status: 'active',
  }, releaseNotesSkill(1), 'wrote down how the 1.4 notes were made', { session: s14 });
  await h.end(s14, 'done', `Wrote the atlas 1.4 release notes (Money type, webhook retries) and the routine as ${link(P.releaseNotes)}.`, [], 'atlas 1.4 release notes');

  const s15 = h.begin('claude-code', 16, 15, 0, {
    task: 'Quarantine the flaky beacon ranking test',
    project: P.beacon,
    searched: ['flaky ranking test', 'quarantine test'],
    read: [P.flaky, P.beacon],
    skills: [P.flaky],
  });
  await h.molt(s15.actor, P.flaky, flakySkill(3), 'the ranking flake could not be fixed in a day: quarantine it with an issue instead of retrying', s15);
  await h.end(s15, 'done', `The ranking test depends on BM25 ties that FTS5 breaks differently between builds. Quarantined it
(tag \`@flaky\`, nightly job) with an issue, as the updated ${link(P.flaky)} says.`, ['Fix the tie-breaking when beacon moves engines.'], 'ranking test quarantined');

  const s16 = h.begin('research-bot', 17, 9, 50, {
    task: 'Evaluate OpenSearch against SQLite FTS5',
    project: P.beacon,
    searched: ['opensearch evaluation', 'beacon latency 2 million documents'],
    read: [P.fts5, P.beacon],
  });
  await h.append(s16.actor, P.beacon, `## Search engine evaluation
At 2 million documents, on the same queries:

| Engine | p95 latency | Full rebuild | Incremental updates |
|---|---|---|---|
| SQLite FTS5 | 900 ms | 3 h 40 min | no |
| OpenSearch (3 nodes) | 45 ms | 50 min | yes |

Details of the FTS5 run: [[decisions/beacon-use-sqlite-fts5#Load test (added later)]].
`, 'added the engine comparison', s16);
  await h.end(s16, 'done', `Ran the FTS5 load test's queries against a three-node OpenSearch cluster and added the comparison to
${link(P.beacon)}.`, ['Grace to decide on the move; claude-code to record it.'], 'OpenSearch evaluated');

  const s17 = h.begin('cursor', 18, 11, 30, {
    task: 'Write the release notes for atlas 1.5',
    project: P.atlas,
    searched: ['release notes skill'],
    read: [P.releaseNotes],
    skills: [P.releaseNotes],
  });
  await h.molt(s17.actor, P.releaseNotes, releaseNotesSkill(2), 'customers missed the migration note in 1.4: put required actions first, leave out refactors', s17);
  await h.end(s17, 'done', 'Wrote the atlas 1.5 notes with the required customer action at the top.', [], 'atlas 1.5 release notes');

  h.at(18, 16, 40);
  await h.update(GRACE, P.handbook, 'added the on-call rota', {
    body: (b) =>
      replaceOnce(b, '## New here?', `## On call
One person is on call each week, Monday to Monday. The agents never page anyone; they write to
the inbox.

- Billing incidents: read the [incident review](${encodeURIComponent(nodePath.basename(P.incident))}) first.
- Search incidents: page [[people/grace-hopper|Grace]].

## New here?`),
  });

  // Week 4
  const s18 = h.begin('research-bot', 21, 8, 35, {
    task: 'Write the weekly report',
    searched: ['changelog last week', 'skill molts last week'],
    read: ['changelog.md', P.weekly],
    skills: [P.weekly],
  });
  await h.molt(s18.actor, P.weekly, weeklySkill(3), 'readers asked why skills changed: list each molt with its reason', s18);
  await writeReport(h, s18, 14, 20);
  await h.end(s18, 'done', 'Wrote the weekly report, now with the skills that changed and why.', [], 'weekly report written');

  const s19 = h.begin('claude-code', 22, 10, 20, {
    task: "Record the move of beacon's search to OpenSearch",
    project: P.beacon,
    searched: ['beacon search engine decision', 'opensearch evaluation'],
    read: [P.fts5, P.beacon, P.grace],
  });
  const replacing = h.compose({
    type: 'decision',
    date: day(22),
    project: link(P.beacon),
    status: 'accepted',
    replaces: link(P.fts5),
    people: [link(P.grace)],
  }, `# Move beacon's search to OpenSearch

## Context
The load test in [[decisions/beacon-use-sqlite-fts5]] showed that FTS5 cannot carry the
customer-notes import: a p95 latency of 900 ms and a nightly rebuild longer than its window at
2 million documents. The evaluation in [[projects/beacon#Search engine evaluation]] measured
OpenSearch at the same size.

## Decision
Beacon moves to a three-node OpenSearch cluster, updated incrementally from delta's change feed
instead of rebuilt every night. Beacon's HTTP API does not change.

## Why
- p95 latency of 45 ms at 2 million documents in the evaluation.
- Incremental updates remove the nightly rebuild window.
- Synonyms and per-field boosts, which support has asked for since launch.

## Consequences
- A cluster to operate: reindexing needs a written procedure.
- About three small nodes of cost; Grace approved the budget.
`);
  const superseded = h.revise(P.fts5, { status: 'superseded', superseded_by: link(P.opensearch) });
  await h.write({
    actor: s19.actor,
    op: 'create',
    path: P.opensearch,
    reason: 'OpenSearch replaces FTS5 after the load test; Grace approved',
    session: s19,
    changes: [{ path: P.opensearch, content: replacing, expectedHash: null }, superseded.change],
  });
  await h.update(s19.actor, P.beacon, 'the engine changed', {
    fields: { summary: 'Search across help-center articles, invoices and customer notes, on OpenSearch.' },
    body: (b) => replaceOnce(b, '- Choose the search engine (see the sessions of this week).', '- Move to OpenSearch: see [[decisions/beacon-move-to-opensearch]].'),
    session: s19,
  });
  await h.end(s19, 'done', `Recorded ${link(P.opensearch)}; ${link(P.fts5)} is now superseded by it. Updated the project note.`, ['Write the reindex procedure once the cluster is up.'], 'OpenSearch decision recorded');

  h.at(22, 14, 0);
  await h.append(GRACE, P.opensearch, `## Review
Approved in the architecture review. Migration plan: write to both engines for a week, compare the
top 10 results of the 500 most common queries, then switch reads. — Grace
`, 'added the review outcome and the migration plan');

  const s20 = h.begin('cursor', 23, 9, 5, {
    task: 'Comet CI is red again',
    project: P.comet,
    searched: ['ci fails sometimes comet', 'intermittent'],
    read: [P.intermittent, P.comet],
    skills: [P.intermittent],
  });
  await h.molt(s20.actor, P.intermittent, intermittentSkill(2), 'the comet simulator test could not be fixed in a day: move it to nightly with an issue', s20);
  await h.end(s20, 'done', `The iOS simulator test times out when the runner is busy. Moved it to the nightly job with an issue,
as the updated ${link(P.intermittent)} says.`, [], 'comet CI green again');

  const s21 = h.begin('claude-code', 24, 13, 10, {
    task: 'Add the tax calculation module to atlas',
    project: P.atlas,
    searched: ['atlas tax', 'add not null column postgres', 'money rounding'],
    read: [P.cents, P.migrations, P.atlas],
    skills: [P.migrations],
  });
  await h.molt(s21.actor, P.migrations, migrationsSkill(4), 'adding tax_rate NOT NULL rewrote the invoices table: add nullable, backfill, then validate the constraint', s21);
  await h.end(s21, 'partial', `Added the tax module behind a flag. Adding \`tax_rate\` as NOT NULL locked \`invoices\` on staging;
redid it in three steps and added them to ${link(P.migrations)}.`, ['Finish the reverse-charge rules for B2B customers.'], 'tax module behind a flag');

  const s22 = h.begin('research-bot', 25, 10, 30, {
    task: 'Write down how to reindex the OpenSearch cluster',
    project: P.beacon,
    searched: ['reindex opensearch', 'beacon index alias'],
    read: [P.opensearch, P.beacon],
  });
  await h.create(s22.actor, P.reindex, {
    type: 'skill',
    name: 'reindex-search-cluster',
    version: 1,
    trigger: "beacon's index mapping, analyzer or synonyms change",
    last_updated: day(25),
    status: 'active',
  }, reindexSkill(1), 'the reindex procedure the OpenSearch decision asked for', { session: s22 });
  await h.end(s22, 'done', `Wrote ${link(P.reindex)}: a new index behind the \`beacon\` alias, checked, then switched.`, [], 'reindex procedure written');

  // Week 5
  const s23 = h.begin('research-bot', 28, 8, 30, {
    task: 'Write the weekly report',
    searched: ['changelog last week', 'open inbox proposals'],
    read: ['changelog.md', P.weekly],
    skills: [P.weekly],
  });
  await h.molt(s23.actor, P.weekly, weeklySkill(4), 'proposals waited a week unnoticed: end the report with the oldest open ones', s23);
  await writeReport(h, s23, 21, 27);
  await h.end(s23, 'done', 'Wrote the weekly report, ending with open inbox proposals.', [], 'weekly report written');

  const s24 = h.begin('claude-code', 29, 14, 15, {
    task: 'Reindex beacon after the synonym change',
    project: P.beacon,
    searched: ['reindex beacon', 'synonyms not applied'],
    read: [P.reindex, P.opensearch],
    skills: [P.reindex],
  });
  await h.molt(s24.actor, P.reindex, reindexSkill(2), 'closing and reopening the index did not apply the new synonyms: a full reindex is needed, throttled by day', s24);
  await h.end(s24, 'done', `Closing and reopening the index did not apply the new synonyms with our analyzer; a full reindex did.
Added that and the throttle to ${link(P.reindex)}.`, [], 'synonyms live');

  const s25 = h.begin('cursor', 30, 10, 40, {
    task: 'Write the release notes for atlas 1.6',
    project: P.atlas,
    searched: ['release notes skill', 'atlas 1.6 changes'],
    read: [P.releaseNotes, P.cents],
    skills: [P.releaseNotes],
  });
  await h.molt(s25.actor, P.releaseNotes, releaseNotesSkill(3), 'an example in the 1.5 notes showed 1230 instead of 12.30: check amounts in examples', s25);
  await h.end(s25, 'done', 'Wrote the atlas 1.6 notes; checked every example amount against the API format.', [], 'atlas 1.6 release notes');

  const s26 = h.begin('claude-code', 31, 9, 20, {
    task: 'Roll back and redo the tax migration',
    project: P.atlas,
    searched: ['tax migration rollback', 'down migration'],
    read: [P.migrations, P.atlas],
    skills: [P.migrations],
  });
  await h.molt(s26.actor, P.migrations, migrationsSkill(5), 'the tax migration had never been rolled back and its down step failed: write and run the down migration first', s26);
  await h.end(s26, 'done', `The down migration of the tax change had a typo and had never run. Fixed it, ran up, down, up on a
staging copy, and made that a step of ${link(P.migrations)}.`, [], 'tax migration redone');

  h.at(31, 16, 30);
  await h.update(ADA, P.delta, 'the pipeline is finished; only maintenance from now on', {
    fields: { status: 'done' },
    body: (b) => replaceOnce(b, "- Backfill last month's events after the schema change.\n- Document when the pipeline runs and what it must not overlap with.\n", '- Nothing new: the pipeline is finished. Maintenance only.\n'),
  });

  const s27 = h.begin('research-bot', 32, 11, 0, {
    task: 'Write recall questions for the vault',
    searched: ['decisions', 'skills', 'projects'],
    read: [P.ledger, P.cents, P.opensearch, P.nightly, P.cometPause, P.migrations, P.flaky],
  });
  await h.write({
    actor: s27.actor,
    op: 'create',
    path: P.questions,
    reason: 'twelve recall questions whose answers are in the vault',
    session: s27,
    changes: [{ path: P.questions, content: recallQuestions(), expectedHash: null }],
  });
  await h.end(s27, 'done', `Wrote 12 recall questions to \`${P.questions}\`, each with the notes that answer it, to measure how well
agents find things here.`, ['Run the evaluation after the next dream pass.'], 'recall questions written');

  const s28 = h.begin('claude-code', 33, 15, 20, {
    task: "Summarize atlas's state for the planning meeting",
    project: P.atlas,
    searched: ['atlas status', 'atlas tax', 'atlas webhooks'],
    read: [P.atlas, P.webhooks, P.cents, P.migrations],
  });
  const atlasNow = h.read(P.atlas);
  const atlasProposed = setFrontmatterFields(atlasNow, {
    summary: 'Billing service: subscriptions, invoices, payments, EU tax and outgoing webhooks.',
    updated: formatDate(h.time()),
  });
  const atlasProposedText = replaceOnce(
    atlasProposed,
    '## Current focus\n- Tax calculation for EU customers, before the January invoice run.\n- Webhook delivery: customers report missing events.\n',
    `## Current focus
- Tax calculation for EU customers: behind a flag; reverse charge for B2B still missing.
- Webhook delivery: retried with backoff since [[decisions/atlas-retry-webhooks-with-backoff]].

## State for planning
- Shipped: integer-cents Money type, webhook retries, tax module (flagged).
- Open: reverse charge, the KWD minor-unit table.
`,
  );
  const staleProposal = await h.propose(s28, {
    action: 'update',
    target: P.atlas,
    reason: "bring the atlas note up to date for planning",
    confidence: 0.7,
    title: 'update atlas state',
    explanation: `claude-code suggests updating ${link(P.atlas)} with what shipped since it was written, for the
planning meeting. Accept to apply it, edit it first, or reject it with a reason.`,
    content: atlasProposedText,
  });
  await h.end(s28, 'partial', `Collected what shipped on atlas and proposed an update of the project note (in the inbox, since
Ada owns the note).`, ['Ada to review the proposal before planning.'], 'atlas summary proposed');

  // Week 6
  const s29 = h.begin('research-bot', 35, 8, 30, {
    task: 'Write the weekly report',
    searched: ['changelog last week', 'open inbox proposals'],
    read: ['changelog.md', P.weekly],
    skills: [P.weekly],
  });
  await writeReport(h, s29, 28, 34);
  await h.end(s29, 'done', 'Wrote the weekly report.', [], 'weekly report written');

  const s30 = h.begin('cursor', 35, 13, 40, {
    task: 'Tidy up the atlas decisions',
    project: P.atlas,
    searched: ['atlas decisions', 'payment provider webhooks retry'],
    read: [P.webhooks, P.ledger, P.cents],
  });
  const bad = await h.update(s30.actor, P.webhooks, 'tidied the rationale and removed outdated consequences', {
    body: (b) => {
      const start = b.indexOf('## Why');
      if (start < 0) throw new Error('demo script: no Why section');
      return `${b.slice(0, start)}## Why
- Customers' endpoints are reliable, so one attempt is enough; retries only add load on atlas.
- The payment provider already retries its webhooks, so ours do not need to.
`;
    },
    session: s30,
  });
  await h.end(s30, 'done', `Shortened the rationale of ${link(P.webhooks)} and removed its consequences section, which looked
outdated.`, [], 'atlas decisions tidied');

  h.at(36, 9, 50);
  await h.update(ADA, P.atlas, 'EU launch date is fixed; tax module goes live on the 1st', {
    body: (b) =>
      replaceOnce(
        b,
        '- Tax calculation for EU customers, before the January invoice run.\n',
        '- EU tax goes live on the 1st: the flag is turned on for all EU customers that morning.\n- Reverse charge for B2B customers must ship before then.\n',
      ),
  });

  h.at(36, 11, 30);
  await h.create(GRACE, P.ticket, { tags: ['support', 'beacon'] }, `# Pasted from support ticket 4821

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
`, 'pasted a support ticket about HTML in search previews');

  const s31 = h.begin('research-bot', 36, 14, 10, {
    task: 'Collect synonym requests from support',
    project: P.beacon,
    searched: ['synonyms', 'support search complaints', 'beacon relevance'],
    read: [P.opensearch, P.reindex, P.handbook],
  });
  await h.propose(s31, {
    action: 'create',
    target: P.synonyms,
    reason: 'support keeps asking for the same synonyms; worth a decision',
    confidence: 0.6,
    title: 'decision beacon synonyms',
    explanation: `research-bot suggests a new decision for beacon: a synonym dictionary owned by support. It is a
proposal because it gives support a new responsibility.`,
    content: composeNote({
      type: 'decision',
      date: day(36),
      project: link(P.beacon),
      status: 'proposed',
      people: [link(P.grace)],
    }, `# Add a synonym dictionary owned by support

## Context
Thirty-one support tickets in the last month searched for a word our articles do not use
("bill" for invoice, "card" for payment method).

## Decision
Beacon gets a synonym file in the repository that support edits through pull requests. A change
is applied with a reindex ([[skills/reindex-search-cluster]]).

## Why
- Support hears the customers' words first.
- A file in git has a history and a review.
`),
  });
  await h.propose(s31, {
    action: 'append',
    target: P.handbook,
    reason: 'new joiners ask how to search the vault well',
    confidence: 0.8,
    title: 'handbook search tips',
    explanation: `research-bot suggests adding a short section on searching this vault to the ${link(P.handbook)}.`,
    content: `## Search tips
- Search with the words you would use in a question: "why did we pick OpenSearch".
- Filter by project with \`--project beacon\` on the command line.
- Decisions marked superseded link to the one that replaced them.
`,
  });
  await h.end(s31, 'done', 'Proposed a synonym decision and a handbook section; both wait in the inbox.', [], 'two proposals sent to the inbox');

  const s32 = h.begin('cursor', 37, 10, 25, {
    task: 'Clean up old notes',
    searched: ['standup', 'scratch notes', 'todo'],
    read: [P.scratch, P.handbook],
  });
  await h.propose(s32, {
    action: 'delete',
    target: P.scratch,
    reason: 'every line is done or recorded in a session or decision',
    confidence: 0.5,
    title: 'delete standup scratch',
    explanation: `cursor suggests deleting ${link(P.scratch)}: the Money type, FTS5, the backfill and the comet question are
all recorded in decisions and session notes. It is Ada's note, so only she can decide.`,
    content: '',
  });
  await h.end(s32, 'done', 'Found one scratch note whose items are all recorded elsewhere; proposed deleting it.', [], 'cleanup proposal sent');

  const s33 = h.begin('claude-code', 37, 15, 45, {
    task: 'Check whether comet can resume',
    project: P.comet,
    searched: ['comet paused', 'comet offline cache', 'billing launch date'],
    read: [P.comet, P.cometPause, P.atlas],
  });
  await h.propose(s33, {
    action: 'update',
    target: P.comet,
    reason: 'the billing launch is scheduled; comet could resume with the read-only cache',
    confidence: 0.4,
    title: 'update comet status',
    explanation: `claude-code suggests setting ${link(P.comet)} back to active, starting with the read-only invoice cache.
The pause decision says to wait for the January invoice run, so this may be too early.`,
    content: replaceOnce(
      setFrontmatterFields(h.read(P.comet), { status: 'active', updated: formatDate(h.time()) }),
      '## Open questions',
      '## Next\n- Start with a read-only cache of the last 12 invoices.\n\n## Open questions',
    ),
  });
  await h.end(s33, 'partial', `The pause decision ties comet to the January invoice run, which is not done yet. Proposed resuming
anyway with the small read-only cache, for Grace to decide.`, ['Grace to accept or reject the proposal.'], 'comet resume proposed');

  // The anchor day.
  h.at(38, 8, 5);
  await h.update(person, P.onboarding, 'read the handbook and got repository access', {
    body: (b) =>
      b
        .replace('- [ ] Read the [[Team handbook]]', '- [x] Read the [[Team handbook]]')
        .replace('- [ ] Get access to the atlas', '- [x] Get access to the atlas'),
  });

  const s34 = h.begin('claude-code', 38, 8, 40, {
    task: 'Look into the failed webhook deliveries alert',
    project: P.atlas,
    searched: ['webhook deliveries alert', 'webhook retry policy'],
    read: [P.webhooks, P.atlas],
  });
  await h.end(s34, 'partial', `The alert fired at 640 pending deliveries. The code retries with backoff, but
${link(P.webhooks)} now says one attempt is enough and retries are not needed, which contradicts
the code and the dashboard. Did not change anything.`, [
    `A person should check the latest edit of ${link(P.webhooks)} and revert it if it is wrong.`,
  ], 'webhook alert: the decision note contradicts the code');

  return {
    supersededDecision: P.fts5,
    replacingDecision: P.opensearch,
    duplicateSkills: [P.flaky, P.intermittent],
    staleSkill: P.certificates,
    moltedSkill: P.migrations,
    staleInboxItem: staleProposal.path,
    badEdit: { editId: bad.editId, commit: bad.commit, path: P.webhooks },
    xssNote: P.ticket,
    emojiNote: P.onboarding,
    unusualNames: [P.incident, P.offsite],
  };
}

/** A weekly report of days `from`..`to` (inclusive), from what the history recorded. */
async function writeReport(h: DemoHistory, s: Session, from: number, to: number): Promise<EditResult> {
  const start = h.dayAt(from).getTime();
  const end = h.dayAt(to + 1).getTime();
  const inPeriod = h.events.filter((e) => e.at >= start && e.at < end);
  const sessions = h.ended.filter((e) => e.ended >= start && e.ended < end);
  const periodStart = h.date(from);
  const periodEnd = h.date(to);
  const path = `reports/week-ending-${periodEnd}.md`;
  const lines: string[] = [`# What happened from ${periodStart} to ${periodEnd}`, ''];
  const byAgent = new Map<string, EndedSession[]>();
  for (const e of sessions) byAgent.set(e.agent, [...(byAgent.get(e.agent) ?? []), e]);
  lines.push(`${sessions.length} agent sessions and ${inPeriod.length} edits.`, '', '## Sessions', '');
  for (const [agent, list] of [...byAgent].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`- **${agent}**: ${list.map((e) => `[[${e.path.replace(/\.md$/, '')}|${e.task}]] (${e.outcome})`).join('; ')}`);
  }
  const decisions = inPeriod.filter((e) => e.path.startsWith('decisions/') && e.op === 'create');
  if (decisions.length > 0) {
    lines.push('', '## Decisions', '');
    for (const e of decisions) lines.push(`- ${link(e.path)}: ${e.reason}`);
  }
  const people = inPeriod.filter((e) => e.actor.startsWith('human:'));
  lines.push('', "## People's edits", '');
  if (people.length === 0) lines.push('- None.');
  for (const e of people) lines.push(`- ${e.actor.slice(6)}: ${e.op} ${e.path.endsWith('.md') ? link(e.path) : e.path} (${e.reason})`);
  const molts = inPeriod.filter((e) => e.op === 'molt');
  if (molts.length > 0) {
    lines.push('', '## Skills that changed', '');
    for (const e of molts) lines.push(`- ${link(e.path)}: ${e.reason}`);
  }
  if (h.versionOf(P.weekly) >= 4) {
    const open = h.events.filter((e) => e.op === 'create' && e.path.startsWith('inbox/') && e.at < end);
    lines.push('', '## Open inbox proposals', '');
    if (open.length === 0) lines.push('- None.');
    for (const e of open) {
      const waiting = Math.floor((h.time().getTime() - e.at) / 86_400_000);
      lines.push(`- ${link(e.path)}: ${e.reason} (waiting ${waiting === 1 ? '1 day' : `${waiting} days`})`);
    }
  }
  lines.push('');
  return h.create(
    s.actor,
    path,
    { type: 'report', period_start: periodStart, period_end: periodEnd, author: s.actor },
    lines.join('\n'),
    `weekly report ${periodStart} to ${periodEnd}`,
    { session: s, op: 'report' },
  );
}

function skillNote(title: string, intro: string, steps: string[], notes: string[] = []): string {
  const out = [`# ${title}`, '', intro, '', '## Steps', ...steps.map((s, i) => `${i + 1}. ${s}`), ''];
  if (notes.length > 0) out.push('## Notes', ...notes.map((n) => `- ${n}`), '');
  return out.join('\n');
}

function migrationsSkill(v: number): string {
  const steps = [
    'Read the migration and check the size of every table it touches (`\\dt+` in psql).',
    v >= 5
      ? 'Write the down migration first. On a fresh copy of staging run up, down, then up again, and time each run.'
      : 'Run it on a fresh copy of staging and time it.',
  ];
  if (v >= 4) {
    steps.push('To add a NOT NULL column: add it as nullable, backfill it, add the constraint with `NOT VALID`, then `VALIDATE CONSTRAINT` in a separate migration.');
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

function flakySkill(v: number): string {
  const steps = [
    'Run the failing test alone 20 times (`--repeat 20`) to confirm it is flaky rather than broken.',
    'Look for shared state: the clock, random seeds, the order of tests, the network, files in a shared folder.',
  ];
  if (v >= 2) steps.push('Freeze the clock and the random seed in the test; try the last day of a month and a date after midnight UTC.');
  steps.push('Fix the cause. Do not add automatic retries: they hide real failures.');
  if (v >= 3) steps.push('If it cannot be fixed today: quarantine it (tag `@flaky`, run it in the nightly job), open an issue, and link the issue in the test.');
  return skillNote('Triage flaky tests', 'For a test that passes and fails on the same code.', steps);
}

function intermittentSkill(v: number): string {
  const steps = [
    'Re-run the job on the same commit. If it passes, write down the job and the test name.',
    'Reproduce it locally by running the test in a loop, at least 20 times.',
    'Look for timing, ordering or shared-state problems and fix them. Do not paper over them with retries.',
  ];
  if (v >= 2) steps.push('If the fix takes longer than a day, move the test to the nightly job behind a `flaky` tag and open an issue for it.');
  return skillNote('Handle intermittent CI failures', 'When a CI job goes red and then green again without a code change.', steps);
}

function weeklySkill(v: number): string {
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

function releaseNotesSkill(v: number): string {
  const steps = ['Collect the merged pull requests since the last tag (`git log v1.3..HEAD --merges`).'];
  if (v >= 2) steps.push('Put anything customers must do (a migration, a changed field) at the top, in bold.');
  steps.push('Group the rest under Added, Changed and Fixed, written for customers, not for us.');
  if (v >= 2) steps.push('Leave out internal refactors and test changes.');
  if (v >= 3) steps.push('Check every amount in an example: the API shows decimal strings ("12.30"), never cents.');
  return skillNote('Write release notes', 'When a release of atlas or beacon is tagged.', steps);
}

function reindexSkill(v: number): string {
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
  return skillNote('Reindex the search cluster', "Beacon's search runs on OpenSearch behind the `beacon` alias, so a reindex never takes search down.", steps, notes);
}

function recallQuestions(): string {
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
