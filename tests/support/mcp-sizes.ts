import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Vault } from '../../lib/vault/vault';
import { MCP_VAULT_FILES, type McpPair } from './mcp';

/**
 * What an agent's context pays for Lucid's tools: the tool list a client receives, and each tool's
 * reply to a typical call. Shared by tests/mcp/sizes.spec.ts (the budgets) and scripts/mcp-sizes.ts
 * (the table before and after a change).
 */

/** MCP_VAULT_FILES and a few longer notes, so searches find several notes and reads return a real body. */
export const SIZE_VAULT_FILES: Record<string, string> = {
  ...MCP_VAULT_FILES,
  'notes/webhooks.md': `---
tags:
  - atlas
  - webhooks
---

# Webhooks

Atlas sends a webhook to the merchant's endpoint for every invoice event: created, paid, refunded
and voided. Each delivery is signed with the merchant's secret (HMAC-SHA256 of the raw body) and
carries an idempotency key, so a merchant can drop a delivery it has already processed.

## Retries

A delivery that gets no 2xx answer within 10 seconds is retried with exponential backoff: 1, 2, 4,
8 and 16 minutes, then hourly for a day. After that the event is parked and the merchant is
emailed. The retry worker reads the queue every 30 seconds; see [[decisions/atlas-use-postgres]]
for why the queue lives in the ledger database.

## Known problems

- The webhook test in \`invoice_events_test.ts\` is flaky: it waits for the retry worker with a fixed
  sleep of 2 seconds, and the worker's 30-second poll sometimes starts late on CI.
- Merchants behind slow proxies time out at 10 seconds and get duplicate deliveries; the idempotency
  key covers them, but support gets tickets anyway.
- The signing secret rotates by hand; see [[notes/handbook]] for who may do it.

## How to test locally

1. Start the stub merchant: \`npm run stub-merchant\`.
2. Create an invoice in the dashboard and pay it with the test card.
3. Watch the stub's log for the four events, in order.
`,
  'notes/ci.md': `---
tags:
  - ci
---

# CI

The pipeline runs lint, unit tests, integration tests against a Postgres container, and the webhook
end-to-end test. A flaky test is retried once by the runner, and every retry is reported in the
build summary, so a test that needs its retry is visible before it becomes a habit.

When a test is flaky, follow [[skills/triage-flaky-tests]] and do not raise the retry count.
`,
  'meetings/2026-11-12-atlas-standup.md': `---
date: 2026-11-12
project: "[[projects/atlas]]"
---

# Atlas standup, 12 November

- Grace: the flaky webhook test failed three times this week; she will look at the retry worker's poll.
- Ahmed: Postgres migration for the ledger is done; MySQL is read-only until Friday.
- Decided to keep the 10-second webhook timeout for now.
`,
};

/** A task and a question an agent would bring to the vault. */
export interface SizeScenario {
  task: string;
  query: string;
}

/** The scenario for SIZE_VAULT_FILES. */
export const SIZE_SCENARIO: SizeScenario = { task: 'Fix the flaky webhook test', query: 'flaky webhook test retries' };

/** One measured reply. */
export interface MeasuredCall {
  /** The tool and, in parentheses, which case. */
  label: string;
  tool: string;
  result: CallToolResult;
}

/** The text of a reply's first content block. */
function textBlock(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === 'text' ? first.text : '';
}

/** Characters of the text a model reads from a reply (its text blocks). */
export function textChars(result: CallToolResult): number {
  return result.content.reduce((sum, block) => sum + (block.type === 'text' ? block.text.length : 0), 0);
}

/** Characters of the whole reply as a client receives it (text and structured content). */
export function replyChars(result: CallToolResult): number {
  return JSON.stringify(result).length;
}

/** Characters of the tool list as a client receives it (the result of tools/list). */
export function toolListChars(tools: Tool[]): number {
  return JSON.stringify({ tools }).length;
}

/** One tool's entry in the list, in parts: its description, input schema and output schema. */
export function toolParts(tool: Tool): { name: string; total: number; description: number; input: number; output: number } {
  return {
    name: tool.name,
    total: JSON.stringify(tool).length,
    description: (tool.description ?? '').length,
    input: JSON.stringify(tool.inputSchema).length,
    output: tool.outputSchema ? JSON.stringify(tool.outputSchema).length : 0,
  };
}

/**
 * Runs the memory protocol once, as an agent would on `vault`: start, search, read the first hit,
 * write a project note, edit a section of it, record a decision, propose a change, molt a skill, end; then a person edits
 * the agent's note and the agent starts again (that reply reports the correction). Then the
 * replies a model reads when things go wrong: a stale write (a conflict, with its result) and a
 * read of a missing note (an error sentence).
 */
export async function runTypicalSession(mcp: McpPair, vault: Vault, scenario: SizeScenario): Promise<MeasuredCall[]> {
  const out: MeasuredCall[] = [];
  const call = async (tool: string, label: string, args: Record<string, unknown>) => {
    const result = await mcp.call(tool, args);
    out.push({ tool, label, result });
    return result;
  };
  const must = <T>(result: CallToolResult): T => {
    if (!result.structuredContent) throw new Error(`tool failed: ${textBlock(result)}`);
    return result.structuredContent as T;
  };

  const agent = 'claude-code';
  const { session } = must<{ session: string }>(await call('start_session', 'start_session (first session)', { agent, task: scenario.task }));
  const found = must<{ results: { path: string }[] }>(await call('search_notes', 'search_notes', { query: scenario.query }));
  const first = found.results[0]?.path;
  if (!first) throw new Error(`search_notes found nothing for "${scenario.query}"`);
  const read = must<{ path: string; hash: string; body: string }>(await call('read_note', 'read_note (first hit)', { path: first }));

  const project = `${vault.layout.projects}/webhook-delivery.md`;
  const written = must<{ hash: string }>(
    await call('write_note', 'write_note (create)', {
      session,
      path: project,
      mode: 'create',
      content: `---\ntype: project\nname: Webhook delivery\nstatus: active\n---\n\n# Webhook delivery\n\nDelivering events to merchants: signing, retries with backoff, parking after a day.\n\n## Open questions\n\n- Should the timeout stay at 10 seconds?\n- Who rotates the signing secret?\n`,
      reason: 'a project note for the webhook work',
    }),
  );
  await call('edit_note', 'edit_note (replace_section)', {
    session,
    path: project,
    operation: 'replace_section',
    heading: '## Open questions',
    content: '- Should the timeout stay at 10 seconds?\n- Who rotates the signing secret?\n- Do merchants want a retry header?\n',
    expected_hash: written.hash,
    reason: 'one more open question',
  });
  const decided = must<{ path: string }>(
    await call('record_decision', 'record_decision', {
      session,
      project: 'Webhook delivery',
      title: 'Poll the retry queue every 5 seconds',
      decision: 'The retry worker polls the queue every 5 seconds instead of 30.',
      rationale: 'A 30-second poll made retries late and the webhook test flaky; 5 seconds costs one cheap query.',
    }),
  );
  await call('propose_to_inbox', 'propose_to_inbox (update)', {
    session,
    target: read.path,
    action: 'update',
    content: `${read.body.trimEnd()}\n\nThe retry worker now polls every 5 seconds.\n`,
    reason: 'the poll interval changed',
    confidence: 0.7,
  });
  await call('molt_skill', 'molt_skill (new skill)', {
    session,
    name: 'test-webhook-retries',
    trigger: 'a webhook test fails or a delivery is retried',
    content: '1. Start the stub merchant.\n2. Make it answer 500 once.\n3. Check the retry arrives within the backoff.\n',
    reason: 'how to test retries',
  });
  await call('dream_candidates', 'dream_candidates', {});
  await call('move_note', 'move_note', {
    session,
    from: decided.path,
    to: `${vault.layout.decisions}/webhook-retry-poll-interval.md`,
    reason: 'a name that says what was decided',
  });
  await call('end_session', 'end_session', {
    session,
    summary: 'Found why the webhook test is flaky (a 30-second poll) and recorded the decision to poll every 5 seconds.',
    outcome: 'done',
    next_steps: ['Change the poll interval in the worker', 'Remove the fixed sleep from the test'],
  });

  await vault.edit({
    actor: 'human:Grace',
    op: 'update',
    path: project,
    reason: 'The timeout stays at 10 seconds; Ahmed rotates the secret.',
    changes: [
      {
        path: project,
        content: `---\ntype: project\nname: Webhook delivery\nstatus: active\n---\n\n# Webhook delivery\n\nDelivering events to merchants: signing, retries with backoff, parking after a day.\n\nThe timeout stays at 10 seconds. Ahmed rotates the signing secret.\n`,
      },
    ],
  });
  const again = must<{ session: string }>(
    await call('start_session', "start_session (after a person's edit)", { agent, task: scenario.task, project: 'Webhook delivery' }),
  );
  await call('write_note', 'write_note (conflict)', {
    session: again.session,
    path: project,
    mode: 'replace',
    content: '---\ntype: project\nname: Webhook delivery\nstatus: done\n---\n\n# Webhook delivery\n',
    expected_hash: written.hash,
    reason: 'done',
  });
  await call('read_note', 'read_note (missing: an error)', { path: `${vault.layout.projects}/no-such-note.md` });
  await call('end_session', 'end_session (second)', { session: again.session, summary: 'Nothing more to do.', outcome: 'done' });
  return out;
}
