import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endSession, initVault, startSession, writeNote } from '../../lib/vault/index';
import { testGitEnv } from '../support/fixtures';
import { makeTempVault, steppingClock, TEST_PERSON, type TempVault } from '../support/temp-vault';

/** `lucid report`: the real CLI, run from another folder as a user would. */

const BIN = path.resolve('bin/lucid');
let tv: TempVault;
let session: string;

function lucid(args: string[]) {
  const result = spawnSync(BIN, args, {
    cwd: tv.tempDir('cwd'),
    encoding: 'utf8',
    env: { ...testGitEnv() } as unknown as NodeJS.ProcessEnv,
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The ISO week of a date, computed here rather than by the code under test. */
function isoWeek(date: Date): string {
  const thursday = new Date(Date.UTC(date.getFullYear(), date.getMonth(), date.getDate()));
  thursday.setUTCDate(thursday.getUTCDate() + 3 - ((thursday.getUTCDay() + 6) % 7));
  const year = thursday.getUTCFullYear();
  const week = 1 + Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / 86_400_000 / 7);
  return `${year}-W${String(week).padStart(2, '0')}`;
}

beforeAll(async () => {
  tv = makeTempVault({ 'notes/a.md': '# A\n' });
  await initVault({ dir: tv.root, env: tv.env });
  const vault = await tv.open({ clock: steppingClock(new Date(2026, 10, 24, 10, 0)) });
  try {
    ({ session } = await startSession(vault, { agent: 'claude-code', task: 'Pick a database' }));
    await writeNote(vault, { session, path: 'decisions/use-postgres.md', mode: 'create', content: '# Use Postgres\n', reason: 'picked it' });
    await endSession(vault, { session, summary: 'done', outcome: 'done' });
  } finally {
    vault.close();
  }
});
afterAll(() => tv.cleanup());

describe('lucid report', () => {
  it('prints the week with Obsidian links and changes nothing', () => {
    const head = tv.head();
    const printed = lucid(['report', '--vault', tv.root, '--week', '2026-W48']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain('# What the agents did in 2026-W48\n\n2026-11-23 to 2026-11-29 (Monday to Sunday).\n');
    expect(printed.stdout).toContain(`- [[sessions/${session}|Pick a database]]: done, 1 edit\n`);
    expect(printed.stdout).toContain('- [[decisions/use-postgres]]\n');
    expect(tv.head()).toBe(head);
    expect(tv.exists('reports/2026-W48.md')).toBe(false);
  });

  it('prints this week by default', () => {
    const printed = lucid(['report', '--vault', tv.root]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain(`# What the agents did in ${isoWeek(new Date())}\n`);
  });

  it('--write commits the note once, then says nothing changed', () => {
    const before = tv.commitCount();
    const written = lucid(['report', '--vault', tv.root, '--week', '2026-W48', '--write']);
    expect(written.code, written.stderr).toBe(0);
    const head = tv.head();
    const editId = tv.git(['log', '-1', '--format=%(trailers:key=Lucid-Edit,valueonly)']).trim();
    expect(written.stdout).toBe(`Wrote reports/2026-W48.md (commit ${head.slice(0, 7)}, edit ${editId}).\n`);
    expect(tv.commitCount()).toBe(before + 1);
    expect(tv.git(['log', '-1', '--format=%(trailers:key=Lucid-Op,valueonly)%(trailers:key=Lucid-Actor,valueonly)']).trim()).toBe(
      `report\nhuman:${TEST_PERSON}`,
    );
    expect(tv.read('reports/2026-W48.md')).toContain(`author: human:${TEST_PERSON}\n`);

    const again = lucid(['report', '--vault', tv.root, '--week', '2026-W48', '--write', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ week: '2026-W48', path: 'reports/2026-W48.md', unchanged: true, commit: head });
    expect(tv.head()).toBe(head);
  });

  it('refuses a week that is not YYYY-Www with a usage error', () => {
    for (const week of ['2026-48', '2026-W54', 'last week']) {
      const bad = lucid(['report', '--vault', tv.root, '--week', week]);
      expect(bad.code, week).toBe(2);
      expect(bad.stderr).toContain(`--week must be an ISO week such as 2026-W48, not "${week}"`);
      expect(bad.stdout).toBe('');
    }
    const help = lucid(['report', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('lucid report [--week YYYY-Www] [--write]');
  });
});
