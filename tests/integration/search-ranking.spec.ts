import { afterEach, describe, expect, it } from 'vitest';
import { searchNotes } from '../../lib/vault/agents/read-ops';
import type { Vault } from '../../lib/vault/index';
import { makeTempVault, type TempVault } from '../support/temp-vault';

/** Issue 12: search through the vault puts the answer first, in score order, whole words for agents. */

let vault: TempVault;
let v: Vault | undefined;
afterEach(() => {
  v?.close();
  v = undefined;
  vault?.cleanup();
});

const filler = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i % 37}`).join(' ');

async function paths(query: string, options?: Parameters<Vault['search']>[1]): Promise<string[]> {
  return (await (v as Vault).search(query, options)).map((hit) => hit.path);
}

function expectDescending(scores: number[]): void {
  for (let i = 1; i < scores.length; i++) expect(scores[i], `score ${i} of ${scores.join(', ')}`).toBeLessThanOrEqual(scores[i - 1]);
}

describe('search through the vault', () => {
  it('returns hits in descending score order, for the library and for agents', async () => {
    vault = makeTempVault({
      'decisions/queue.md': '# Use a durable queue\n\nInvoices are retried from a durable queue after a failed payment.\n',
      'notes/payments.md': `# Payments\n\n${filler(200, 'ledger')} invoices ${filler(100, 'audit')} payment retried once.\n`,
      'notes/queue-ops.md': '# Queue operations\n\nDraining the queue at night.\n',
      'notes/invoices.md': '# Invoices\n\nInvoices go out on the first of the month.\n',
      'notes/retries.md': '# Retries\n\nEvery retry waits twice as long as the one before. Retried jobs are logged.\n',
      'sessions/2026-11-01-retry.md':
        '---\ntype: session\nagent: a\ntask: retry invoices\nstarted: 2026-11-01T10:00:00Z\nended: 2026-11-01T11:00:00Z\noutcome: done\n---\n# Retry work\n\nRetried the failed invoices from the queue.\n',
    });
    v = await vault.open();
    for (const question of ['why are invoices retried from a queue?', 'invoices', 'durable queue payment', 'retried jobs logged', 'queue']) {
      const hits = await v.search(question, { limit: 50 });
      expect(hits.length, question).toBeGreaterThan(0);
      expectDescending(hits.map((h) => h.score));
      const forAgents = await searchNotes(v, { query: question, limit: 50 });
      expect(forAgents.results.map((r) => r.path)).toEqual(hits.map((h) => h.path));
      expectDescending(forAgents.results.map((r) => r.score));
    }
  });

  it('matches whole words for agents and the CLI ("reps" never finds "repo"), prefixes only when the dashboard asks', async () => {
    vault = makeTempVault({ 'projects/tooling.md': '# Tooling\n\nThe repo lives on the build server.\n' });
    v = await vault.open();
    expect((await searchNotes(v, { query: 'reps' })).results).toEqual([]);
    expect((await searchNotes(v, { query: 'where is the repo' })).results.map((r) => r.path)).toEqual(['projects/tooling.md']);
    expect(await paths('reps')).toEqual([]);
    expect(await paths('reps', { prefix: true })).toEqual(['projects/tooling.md']);
    // The dashboard types word by word: the unfinished last word is a prefix, a finished one is not.
    expect(await paths('build ser', { prefix: true })).toEqual(['projects/tooling.md']);
    expect(await paths('ser', { prefix: true })).toEqual(['projects/tooling.md']);
    expect(await paths('ser ', { prefix: true })).toEqual([]);
    expect(await paths('ser')).toEqual([]);
  });

  it('leaves AGENTS.md, the changelog and the inbox out unless asked for by type, folder or includeSystem', async () => {
    vault = makeTempVault({
      'AGENTS.md': '# Memory protocol\n\nSearch before writing about the zeppelin.\n',
      'changelog.md': '# Changelog\n\n- 2026-11-01 agent:a updated notes/zeppelin.md: zeppelin budget\n',
      'changelog/2026-10.md': '# Changelog 2026-10\n\n- zeppelin hangar\n',
      'inbox/2026-11-01-100000-zeppelin.md':
        '---\ntype: inbox\nproposed_by: agent:a\naction: create\ntarget: notes/zeppelin-2.md\nreason: zeppelin\ncreated: 2026-11-01T10:00:00Z\n---\nA zeppelin proposal.\n',
      'notes/zeppelin.md': '# Zeppelin\n\nThe airship budget.\n',
    });
    v = await vault.open();
    expect(await paths('zeppelin')).toEqual(['notes/zeppelin.md']);
    expect((await searchNotes(v, { query: 'zeppelin' })).results.map((r) => r.path)).toEqual(['notes/zeppelin.md']);
    expect((await paths('zeppelin', { includeSystem: true })).sort()).toEqual([
      'AGENTS.md',
      'changelog.md',
      'changelog/2026-10.md',
      'inbox/2026-11-01-100000-zeppelin.md',
      'notes/zeppelin.md',
    ]);
    expect((await searchNotes(v, { query: 'zeppelin', includeSystem: true })).results).toHaveLength(5);
    expect(await paths('zeppelin', { type: 'inbox' })).toEqual(['inbox/2026-11-01-100000-zeppelin.md']);
    expect(await paths('zeppelin', { folder: 'inbox' })).toEqual(['inbox/2026-11-01-100000-zeppelin.md']);
    expect(await paths('zeppelin', { folder: 'changelog' })).toEqual(['changelog/2026-10.md']);
  });

  it('leaves out the AGENTS.md that lucid.json names', async () => {
    vault = makeTempVault({
      'lucid.json': JSON.stringify({ version: 1, paths: { agents: 'Memory Protocol.md' } }),
      'Memory Protocol.md': '# Memory protocol\n\nThe zeppelin rules.\n',
      'AGENTS.md': '# Agents\n\nA person’s own note about zeppelin agents.\n',
    });
    v = await vault.open();
    expect(await paths('zeppelin')).toEqual(['AGENTS.md']);
    expect((await paths('zeppelin', { includeSystem: true })).sort()).toEqual(['AGENTS.md', 'Memory Protocol.md']);
  });

  it('ranks a note titled with the question above a long note that mentions its words', async () => {
    vault = makeTempVault({
      'notes/release-steps.md': '# Deploy checklist\n\nBuild, tag, ship, then watch the error rate for an hour.\n',
      'notes/meeting-2026-10.md': `# Weekly meeting\n\n${filler(150, 'topic')} We went over the deploy checklist. ${filler(150, 'item')} The deploy went fine and the checklist was updated.\n`,
      ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`notes/other-${i}.md`, `# Other ${i}\n\n${filler(30 + i, 'misc')}\n`])),
    });
    v = await vault.open();
    expect(await paths('what is on the deploy checklist?')).toEqual(['notes/release-steps.md', 'notes/meeting-2026-10.md']);
    expect((await searchNotes(v, { query: 'deploy checklist' })).results.map((r) => r.path)).toEqual(['notes/release-steps.md', 'notes/meeting-2026-10.md']);
  });

  it('ranks a note found by its file name like one found by its title', async () => {
    vault = makeTempVault({
      'How To/Show tasks in a calendar.md': '# How to show tasks on a timeline\n\nUse another plugin.\n',
      'notes/calendar.md': `# Misc\n\n${filler(120, 'word')} calendar ${filler(60, 'other')}\n`,
    });
    v = await vault.open();
    expect(await paths('calendar')).toEqual(['How To/Show tasks in a calendar.md', 'notes/calendar.md']);
  });

  it('ranks a session note below an ordinary note of equal relevance', async () => {
    const fields = 'agent: a\ntask: tune the cache\nstarted: 2026-11-01T10:00:00Z\nended: 2026-11-01T11:00:00Z\noutcome: done\n';
    const body = '# Cache tuning\n\nThe cache eviction policy is LRU with a ten minute TTL.\n';
    vault = makeTempVault({
      'sessions/cache.md': `---\ntype: session\n${fields}---\n${body}`,
      'notes/cache.md': `---\n${fields}---\n${body}`,
    });
    v = await vault.open();
    const hits = await v.search('cache eviction policy');
    expect(hits.map((h) => h.path)).toEqual(['notes/cache.md', 'sessions/cache.md']);
    expect(hits[1].score).toBeLessThan(hits[0].score);
    // Still found, and first when it is the only note that answers.
    expect(await paths('cache eviction', { type: 'session' })).toEqual(['sessions/cache.md']);
  });
});
