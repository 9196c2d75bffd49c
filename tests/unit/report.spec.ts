import { describe, expect, it } from 'vitest';
import { type ActivitySummary, renderReport } from '../../lib/vault';

const since = new Date(2026, 10, 23).getTime();
const until = new Date(2026, 10, 30).getTime();

/** A week as summarizeActivity would describe it: two agents, a person correcting them. */
function week(): ActivitySummary {
  return {
    range: { since, until },
    edits: 9,
    byDay: [],
    actors: ['agent:claude-code', 'agent:cursor', 'human:Ada'],
    types: ['decision', 'session'],
    sessions: {
      total: 3,
      byOutcome: { done: 1, partial: 0, abandoned: 1, open: 1 },
      list: [
        { id: '20261127-101500-cursor-ab2c', path: null, agent: 'cursor', task: 'Tidy decisions', outcome: 'open', edits: 1 },
        {
          id: '20261125-090000-claude-code-k3tq',
          path: 'sessions/20261125-090000-claude-code-k3tq.md',
          agent: 'claude-code',
          task: 'Fix [[x]] | y',
          outcome: 'abandoned',
          edits: 0,
        },
        {
          id: '20261124-080000-claude-code-m4pz',
          path: 'sessions/20261124-080000-claude-code-m4pz.md',
          agent: 'claude-code',
          task: 'Switch to Postgres',
          outcome: 'done',
          edits: 2,
        },
      ],
    },
    inbox: {
      accepted: 2,
      edited: 1,
      rejected: 1,
      pending: 3,
      rejections: [{ path: 'inbox/2026-11-26-101010-rename.md', reason: 'we keep the old name', actor: 'human:Ada' }],
    },
    reverts: {
      total: 1,
      list: [{ sha: 'a'.repeat(40), actor: 'human:Ada', path: 'decisions/use-mysql.md', reason: 'wrong database', reverted: 'e7f3a9c2kq1mz' }],
    },
    molts: {
      total: 1,
      list: [{ skill: 'triage', from: 2, to: 3, actor: 'agent:claude-code', session: '20261124-080000-claude-code-m4pz', reason: 'ask first' }],
    },
    protocolFailed: {
      total: 1,
      sessions: [{ id: '20261125-090000-claude-code-k3tq', path: 'sessions/20261125-090000-claude-code-k3tq.md', failed: ['read-before-write', 'ended'] }],
    },
    topNotes: [],
    byActor: [
      {
        actor: 'agent:claude-code',
        edits: 5,
        notes: [
          'decisions/use-postgres.md',
          'decisions/use-mysql.md',
          'notes/a#b.md',
          'sessions/20261124-080000-claude-code-m4pz.md',
          'inbox/2026-11-26-101010-rename.md',
        ],
      },
      { actor: 'human:Ada', edits: 3, notes: ['decisions/use-mysql.md'] },
      { actor: 'agent:cursor', edits: 1, notes: ['decisions/atlas.md'] },
    ],
  };
}

const EXPECTED = `# What the agents did in 2026-W48

2026-11-23 to 2026-11-29 (Monday to Sunday).

## Totals

- Sessions: 3 (1 done, 1 abandoned, 1 still open)
- Edits by agents: 6
- Inbox proposals: 2 accepted, 1 accepted after a person edited them, 1 rejected; 3 from this week still pending
- Reverts by people: 1
- Skill molts: 1
- Sessions that failed the protocol check: 1

## claude-code

Sessions (2):

- [[sessions/20261125-090000-claude-code-k3tq|Fix ((x)) / y]]: abandoned, 0 edits
- [[sessions/20261124-080000-claude-code-m4pz|Switch to Postgres]]: done, 2 edits

5 edits (its session notes and inbox proposals included). Notes changed (3):

- [[decisions/use-postgres]]
- \`decisions/use-mysql.md\`
- [a#b](notes/a%23b.md)

## cursor

Sessions (1):

- Tidy decisions: still open, 1 edit

1 edit (its session notes and inbox proposals included). Notes changed (1):

- [[decisions/atlas]]

## People's corrections

- human:Ada reverted \`decisions/use-mysql.md\` (edit e7f3a9c2kq1mz): wrong database
- human:Ada rejected the proposal \`inbox/2026-11-26-101010-rename.md\`: we keep the old name
- 1 proposal was edited by a person before being accepted.

## Skills molted

- [[skills/triage]] 2 → 3 by agent:claude-code in [[sessions/20261124-080000-claude-code-m4pz|session]]: ask first

## Protocol checks failed

- [[sessions/20261125-090000-claude-code-k3tq|Fix ((x)) / y]]: read-before-write, ended

3 proposals from this week wait in the inbox for a person.
`;

describe('renderReport', () => {
  it('renders the week as plain text with Obsidian links, only agents counted, gone notes as paths', () => {
    const gone = new Set(['decisions/use-mysql.md']);
    const report = renderReport(week(), '2026-W48', { exists: (p) => !gone.has(p) });
    expect(report.path).toBe('reports/2026-W48.md');
    expect(report.frontmatter).toEqual({ type: 'report', period_start: '2026-11-23', period_end: '2026-11-29' });
    expect(report.body).toBe(EXPECTED);
  });

  it('gives the same bytes for the same summary, and none of its links is broken by a task', () => {
    const a = renderReport(week(), '2026-W48');
    const b = renderReport(structuredClone(week()), '2026-W48');
    expect(a.body).toBe(b.body);
    // Every wikilink closes where it should: no `|` or `]` from a task leaks into a link target.
    const links = [...a.body.matchAll(/\[\[([^\]]*)\]\]/g)].map((m) => m[1]);
    for (const l of links) expect(l.split('|').length, l).toBeLessThanOrEqual(2);
    expect(links).toContain('sessions/20261125-090000-claude-code-k3tq|Fix ((x)) / y');
  });

  it('uses the layout of the vault for the path and every link', () => {
    const layout = { reports: 'Shared/Reports', sessions: 'Agents/Sessions', skills: 'Agents/Skills', inbox: 'Inbox' };
    const summary = week();
    summary.sessions.list[2].path = 'Agents/Sessions/20261124-080000-claude-code-m4pz.md';
    const report = renderReport(summary, '2026-W48', { layout });
    expect(report.path).toBe('Shared/Reports/2026-W48.md');
    expect(report.body).toContain('- [[Agents/Skills/triage]] 2 → 3 by agent:claude-code in [[Agents/Sessions/20261124-080000-claude-code-m4pz|session]]');
    // With this layout, sessions/ and inbox/ paths are ordinary notes the agent changed.
    expect(report.body).toContain('- [[sessions/20261124-080000-claude-code-m4pz]]');
  });

  it('says what to do next when no agent did anything', () => {
    const empty: ActivitySummary = {
      ...week(),
      sessions: { total: 0, byOutcome: { done: 0, partial: 0, abandoned: 0, open: 0 }, list: [] },
      inbox: { accepted: 0, edited: 0, rejected: 0, pending: 0, rejections: [] },
      reverts: { total: 0, list: [] },
      molts: { total: 0, list: [] },
      protocolFailed: { total: 0, sessions: [] },
      byActor: [{ actor: 'human:Ada', edits: 1, notes: ['reports/2026-W48.md'] }],
    };
    const body = renderReport(empty, '2026-W48').body;
    expect(body).toContain('- Edits by agents: 0\n');
    expect(body).toContain('No agent activity this week. To connect an agent, print its MCP configuration with `lucid mcp --print-config claude-code`');
    expect(body).toContain("## People's corrections\n\n- None.\n");
    expect(body).not.toContain('## Skills molted');
    expect(body).not.toContain('human:Ada');
  });

  it('cuts long lists and says how many it left out', () => {
    const summary = week();
    summary.byActor[0].notes = Array.from({ length: 25 }, (_, i) => `notes/n${String(i).padStart(2, '0')}.md`);
    const body = renderReport(summary, '2026-W48').body;
    expect(body).toContain('- [[notes/n19]]\n- … and 5 more\n');
    expect(body).not.toContain('[[notes/n20]]');
  });
});
