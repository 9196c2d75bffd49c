import fs from 'node:fs';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { changelogLines, stdioServersEachTest } from '../support/mcp';
import { reportFigure, scale, stressTimeout } from '../support/stress';
import { findTempFiles } from '../support/temp-vault';

// Several `lucid mcp` processes writing to one vault at once (moved from stdio.spec.ts): 10 appends
// per server in `npm test`, 50 under `npm run test:stress`.

const PER_WORKER = scale(10, 50);

const { tempVault, spawnServer } = stdioServersEachTest();

function ok(result: CallToolResult & { structuredContent?: Record<string, unknown> }): Record<string, unknown> {
  if (result.isError) throw new Error(`tool failed: ${result.content[0]?.type === 'text' ? result.content[0].text : ''}`);
  return result.structuredContent ?? {};
}

describe('lucid mcp processes side by side', () => {
  it(
    `four server processes each append ${PER_WORKER} unique tokens to overlapping notes from a start barrier: every token exactly once`,
    async () => {
      const tv = tempVault();
      const notes = ['notes/log-a.md', 'notes/log-b.md', 'notes/log-c.md'];
      for (const note of notes) tv.write(note, `# ${note}\n`);
      tv.git(['add', '-A']);
      tv.git(['commit', '-q', '-m', 'logs']);
      const before = tv.commitCount();
      const workers = ['w1', 'w2', 'w3', 'w4'];
      const perWorker = PER_WORKER;
      const connected = await Promise.all(workers.map(() => spawnServer(tv)));
      const sessions = await Promise.all(
        connected.map(async (s, i) => ok(await s.call('start_session', { agent: `worker-${i + 1}`, task: 'append tokens' })).session as string),
      );
      let go!: () => void;
      const barrier = new Promise<void>((resolve) => {
        go = resolve;
      });
      const runs = connected.map(async (server, w) => {
        await barrier;
        for (let i = 0; i < perWorker; i += 1) {
          const token = `token-${workers[w]}-${String(i).padStart(3, '0')}`;
          const result = await server.call('write_note', {
            session: sessions[w],
            path: notes[(i + w) % notes.length],
            mode: 'append',
            content: token,
            reason: `append ${token}`,
          });
          expect(result.isError, `${token}: ${JSON.stringify(result.content)}`).toBeFalsy();
        }
        ok(await server.call('end_session', { session: sessions[w], summary: `appended ${perWorker} tokens` }));
      });
      go();
      await Promise.all(runs);

      const all = notes.flatMap((note) => tv.read(note).split('\n'));
      for (const worker of workers) {
        for (let i = 0; i < perWorker; i += 1) {
          const token = `token-${worker}-${String(i).padStart(3, '0')}`;
          expect(
            all.filter((line) => line === token),
            token,
          ).toHaveLength(1);
        }
      }
      expect(all.filter((line) => line.startsWith('token-'))).toHaveLength(workers.length * perWorker);
      const total = workers.length * perWorker;
      expect(tv.commitCount()).toBe(before + total + workers.length);
      const ops = tv
        .git(['log', `-${total + workers.length}`, '--format=%(trailers:key=Lucid-Op,valueonly)'])
        .split('\n')
        .filter(Boolean);
      expect(ops.filter((op) => op === 'append')).toHaveLength(total);
      expect(changelogLines(tv)).toHaveLength(total + workers.length);
      expect(tv.git(['status', '--porcelain'])).toBe('');
      expect(findTempFiles(tv.root)).toEqual([]);
      expect(fs.existsSync(path.join(tv.root, '.lucid', 'vault.lock'))).toBe(false);
      reportFigure('4 MCP servers appending', 'tokens lost or doubled', 0);
    },
    stressTimeout(120_000),
  );
});
