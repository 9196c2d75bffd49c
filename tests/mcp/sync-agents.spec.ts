import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCommitMessage } from '../../lib/vault/git/commit-message';
import { isVaultError, syncVault, type Vault } from '../../lib/vault/index';
import { spawnStdioServer, type StdioServer } from '../support/mcp';
import { makeSyncVaults, type SyncClone, type SyncVaults } from '../support/sync-vaults';

/**
 * Two people on two clones of one bare repository, each with an agent writing through `lucid mcp`
 * over stdio, syncing while the agents write. At the end both clones hold every edit exactly once
 * with its trailers, the changelog lists every edit once, and the note both agents changed keeps one
 * version while the other waits in the inbox as a conflict.
 */

const ROUNDS = 6;
const SHARED = 'notes/shared.md';
const ORIGINAL = '# Shared\n\nThe plan as it was.\n';

let sv: SyncVaults | null = null;
const servers: StdioServer[] = [];
const vaults: Vault[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.client.close().catch(() => undefined);
  for (const v of vaults.splice(0)) await v.close();
  sv?.cleanup();
  sv = null;
});

type Structured = Record<string, unknown>;
const data = (result: { structuredContent?: Structured; isError?: boolean }): Structured => {
  if (result.isError || !result.structuredContent) throw new Error(`tool failed: ${JSON.stringify(result)}`);
  return result.structuredContent;
};

/** A sync that retries while the other clone's push keeps winning the race (the engine says so with a conflict or io_error). */
async function syncSoon(vault: Vault): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await syncVault(vault);
      return;
    } catch (error) {
      if (attempt >= 5 || !(isVaultError(error, 'conflict') || isVaultError(error, 'io_error'))) throw error;
      await new Promise((r) => setTimeout(r, 50 * attempt));
    }
  }
}

/** Every commit reachable from HEAD: its sha, parents and trailers. */
function history(clone: SyncClone): { sha: string; parents: string[]; trailers: Record<string, string> }[] {
  const out = clone.git(['log', '--format=%H %P%x00%B%x01']);
  return out
    .split('\x01')
    .map((chunk) => chunk.replace(/^\n/, ''))
    .filter((chunk) => chunk.includes('\x00'))
    .map((chunk) => {
      const [head, message] = chunk.split('\x00');
      const [sha, ...parents] = head.trim().split(' ');
      return { sha, parents, trailers: parseCommitMessage(message).trailers };
    });
}

/** Edit ids of every changelog line, in changelog.md and the monthly archives. */
function changelogIds(clone: SyncClone): string[] {
  const files = ['changelog.md', ...fs.readdirSync(path.join(clone.root, 'changelog')).map((f) => `changelog/${f}`)].filter((f) => f.endsWith('.md'));
  return files.flatMap((f) =>
    clone
      .read(f)
      .split('\n')
      .map((line) => /^- .* \^(e[a-z2-7]{12})\s*$/.exec(line)?.[1])
      .filter((id): id is string => id !== undefined),
  );
}

/** Files of HEAD holding a merge-conflict marker line (git grep exits 1 when none does). */
function conflictMarkers(clone: SyncClone): string[] {
  try {
    return clone.git(['grep', '-I', '-l', '-E', '^(<{7}|>{7})( |$)', 'HEAD', '--']).split('\n').filter(Boolean);
  } catch (error) {
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}

describe('two clones, an agent each, syncing while they write', () => {
  it('ends with every edit once in both clones with its trailers, the changelog complete, and the note both changed in the inbox', async () => {
    sv = await makeSyncVaults(2, { 'notes/welcome.md': '# Welcome\n', [SHARED]: ORIGINAL });
    const clones = sv.clones;
    const machines = ['laptop-one', 'laptop-two'];
    for (const [i, clone] of clones.entries()) {
      servers.push(await spawnStdioServer({ root: clone.root, env: sv.env }, { env: { LUCID_MACHINE: machines[i] } }));
      vaults.push(await clone.open({ machine: machines[i] }));
    }
    const agents = ['agent:writer-one', 'agent:writer-two'];
    const sessions: string[] = [];
    for (const [i, server] of servers.entries()) {
      sessions.push(data(await server.call('start_session', { agent: agents[i].slice(6), task: 'write the plan down' })).session as string);
      data(await server.call('search_notes', { session: sessions[i], query: 'plan' }));
    }

    // Both agents change the shared note before either syncs: one of them will find the other's version.
    const sharedVersions: string[] = [];
    const editIds: string[][] = [[], []];
    for (const [i, server] of servers.entries()) {
      const read = data(await server.call('read_note', { session: sessions[i], path: SHARED }));
      const text = `# Shared\n\nThe plan as ${agents[i]} sees it.\n`;
      sharedVersions.push(text);
      const written = data(
        await server.call('write_note', { session: sessions[i], path: SHARED, mode: 'replace', content: text, expected_hash: read.hash, reason: 'my plan' }),
      );
      expect(written.status).toBe('written');
      editIds[i].push(written.edit_id as string);
    }

    // From one start, each agent writes its notes while its clone syncs, interleaved with the other clone.
    let release: () => void = () => undefined;
    const barrier = new Promise<void>((resolve) => {
      release = resolve;
    });
    const agentWork = servers.map(async (server, i) => {
      await barrier;
      for (let r = 0; r < ROUNDS; r += 1) {
        const written = data(
          await server.call('write_note', {
            session: sessions[i],
            path: `notes/${agents[i].slice(6)}-${r}.md`,
            mode: 'create',
            content: `# Note ${r} of ${agents[i]}\n\nWritten on ${machines[i]}.\n`,
            reason: `note ${r}`,
          }),
        );
        expect(written.status).toBe('written');
        editIds[i].push(written.edit_id as string);
      }
    });
    const syncWork = vaults.map(async (vault) => {
      await barrier;
      for (let r = 0; r < 3; r += 1) await syncSoon(vault);
    });
    release();
    await Promise.all([...agentWork, ...syncWork]);
    for (const [i, server] of servers.entries()) {
      data(await server.call('end_session', { session: sessions[i], summary: 'Wrote the plan and my notes.', outcome: 'done' }));
    }
    // Settle: each clone syncs until both hold the bare repository's branch.
    for (let round = 0; round < 3; round += 1) for (const vault of vaults) await syncSoon(vault);
    const tip = sv.bareGit(['rev-parse', 'main']).trim();
    for (const clone of clones) expect(clone.head()).toBe(tip);

    for (const clone of clones) {
      const commits = history(clone);
      // Every agent edit is in exactly one commit, with the agent, the session and the machine it was made on.
      for (const [i, ids] of editIds.entries()) {
        for (const id of ids) {
          const carrying = commits.filter((c) => c.trailers['Lucid-Edit'] === id);
          expect(carrying, `edit ${id}`).toHaveLength(1);
          expect(carrying[0].trailers).toMatchObject({ 'Lucid-Actor': agents[i], 'Lucid-Session': sessions[i], 'Lucid-Machine': machines[i] });
        }
      }
      // No edit id twice in the history, and every Lucid edit once in the changelog (sync merges included).
      const lucidIds = commits.map((c) => c.trailers['Lucid-Edit']).filter((id): id is string => id !== undefined);
      expect(new Set(lucidIds).size).toBe(lucidIds.length);
      const logged = changelogIds(clone);
      expect(new Set(logged).size).toBe(logged.length);
      for (const id of [...editIds.flat(), ...commits.filter((c) => c.trailers['Lucid-Op'] === 'sync').map((c) => c.trailers['Lucid-Edit'])]) {
        expect(logged, `changelog line of ${id}`).toContain(id);
      }
      expect(commits.some((c) => c.parents.length === 2 && c.trailers['Lucid-Op'] === 'sync')).toBe(true);
      // Both agents' notes are here, as written.
      for (const [i, agent] of agents.entries()) {
        for (let r = 0; r < ROUNDS; r += 1) expect(clone.read(`notes/${agent.slice(6)}-${r}.md`)).toContain(`Written on ${machines[i]}.`);
      }
      expect(clone.git(['status', '--porcelain', '--', ':!.lucid'])).toBe('');
      expect(conflictMarkers(clone)).toEqual([]);
    }

    // The shared note keeps one agent's version; the other's is one conflict proposal, with the base it started from.
    const kept = clones[0].read(SHARED);
    expect(sharedVersions).toContain(kept);
    const lost = sharedVersions.find((v) => v !== kept) as string;
    const inbox = fs.readdirSync(path.join(clones[0].root, 'inbox')).filter((f) => f.endsWith('.md'));
    const conflicts = inbox.map((f) => clones[0].read(`inbox/${f}`)).filter((t) => /^flag: conflict$/m.test(t) && t.includes(`target: ${SHARED}`));
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toContain(lost.trim());
    const first = clones[0].git(['rev-list', '--max-parents=0', 'HEAD']).trim();
    const baseBlob = clones[0].git(['rev-parse', `${first}:${SHARED}`]).trim();
    expect(conflicts[0]).toContain(`base_blob: ${baseBlob}`);
  }, 240_000);
});
