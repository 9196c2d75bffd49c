/**
 * A small team's typed notes, literal, with known answers for every generator template: a person,
 * her project, a decision superseded by another, two sessions on one topic, a skill and an archived one.
 */
export const TEAM: Record<string, string> = {
  'people/ada.md': '---\ntype: person\nname: Ada Lovelace\nprojects: ["[[projects/atlas]]"]\n---\n# Ada Lovelace\n\nLeads billing.\n',
  'projects/atlas.md':
    '---\ntype: project\nname: Atlas\nstatus: active\nowner: "[[people/ada]]"\nsummary: "Billing service: subscriptions, invoices, payments and webhooks."\n---\n# Atlas\n\nAtlas bills customers.\n',
  'decisions/atlas-use-mysql.md':
    '---\ntype: decision\ndate: 2026-10-01\nproject: "[[projects/atlas]]"\nstatus: superseded\nsuperseded_by: "[[decisions/atlas-use-postgres]]"\n---\n# Use MySQL for the ledger\n\n## Decision\nThe ledger lives in MySQL replicas next to the reporting warehouse.\n',
  'decisions/atlas-use-postgres.md':
    '---\ntype: decision\ndate: 2026-10-20\nproject: "[[projects/atlas]]"\nstatus: accepted\nreplaces: "[[decisions/atlas-use-mysql]]"\n---\n# Use Postgres for the ledger\n\n## Decision\nEvery invoice entry is appended to an append-only table, written inside the invoice transaction.\n\n## Why\nAppend-only entries make audits simple; the transaction keeps invoice and entries together.\n',
  'sessions/20261020-090000-cursor-aaaa.md':
    '---\ntype: session\nagent: cursor\ntask: Retry outgoing webhooks with backoff\nstarted: 2026-10-20T09:00:00+00:00\nended: 2026-10-20T10:00:00+00:00\noutcome: done\nproject: "[[projects/atlas]]"\n---\n# Retry outgoing webhooks with backoff\n',
  'sessions/20261025-090000-claude-code-bbbb.md':
    '---\ntype: session\nagent: claude-code\ntask: Alert on webhook retries that give up\nstarted: 2026-10-25T09:00:00+00:00\nended: 2026-10-25T10:00:00+00:00\noutcome: done\nproject: "[[projects/atlas]]"\n---\n# Alert on webhook retries that give up\n',
  'skills/rotate-certificates.md':
    '---\ntype: skill\nname: rotate-certificates\nversion: 1\ntrigger: When the staging TLS certificate expires within 14 days.\nlast_updated: 2026-10-01\n---\n# rotate-certificates\n\n1. Renew.\n',
  'skills/archive/old-way.md':
    '---\ntype: skill\nname: old-way\nversion: 2\ntrigger: when anything at all happens to the servers\nlast_updated: 2026-09-01\nstatus: archived\n---\n# old-way\n',
};

/** Notes without types: headings to ask about and a sentence around a link. */
export const UNTYPED: Record<string, string> = {
  'Guides/Recurring Tasks.md': '# Recurring Tasks\n\nTasks can come back.\n\n## Installing the plugin\n\nOpen the settings.\n',
  'Home.md': '# Home\n\nA task comes back on its own once you give it a rule, see [[Recurring Tasks]] for the details.\n',
  'notes/broken.md': '---\ntitle: [unclosed\n---\n# Broken\n\n## A heading nobody can ask about here\n',
};
