import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import nodePath from 'node:path';
import { VaultError, formatDate, initVault, openVault, seededIds } from '../vault';
import { markAsDemo, prepareFolder } from './folder';
import { P } from './paths';
import { DemoRun } from './run';
import { setUpTeam } from './team-setup';
import { weeksOneAndTwo } from './timeline-weeks-1-2';
import { weeksThreeAndFour } from './timeline-weeks-3-4';
import { weeksFiveAndSix } from './timeline-weeks-5-6';
import type { DemoHighlights, DemoReport, GenerateDemoOptions } from './types';

export type { DemoReport, GenerateDemoOptions } from './types';

/** The first machine's name (the vault's own person works there), so the same anchor gives the same bytes on any host. */
const DEMO_MACHINE = 'workstation';
/** The second person's machine and git identity: their own clone's view of the vault. */
const SECOND = { machine: 'grace-desktop', name: 'Grace Hopper', email: 'grace@example.com' };

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

/**
 * Makes a demo vault in `dir`: about five and a half weeks of a small software team's history
 * (two people, three agents, four projects) ending on `anchor`'s date, written through the
 * operations a real agent calls (start_session … end_session) and, for the people, the vault's
 * write path, with a stepping clock and seeded ids, so it is exactly what Lucid itself writes and the same anchor always gives the same bytes. It has sessions, decisions (one
 * superseding another), skills that molted (two that duplicate each other, one stale), pending
 * inbox proposals of every action (one whose target a person changed since), an agent edit a
 * person reverted and one worth reverting, people's own notes with unusual names and pasted HTML, recall questions and
 * weekly reports. `dir` must be new, empty, or an earlier demo (which is replaced); anything
 * else is refused with `invalid_input`. Its own git repository is always created, even inside
 * another repository.
 */
export async function generateDemoVault(options: GenerateDemoOptions): Promise<DemoReport> {
  const anchorDay = new Date(options.anchor.getFullYear(), options.anchor.getMonth(), options.anchor.getDate());
  if (Number.isNaN(anchorDay.getTime())) throw new VaultError('invalid_input', 'The anchor date is not a valid date.');
  const root = nodePath.resolve(options.dir);
  prepareFolder(root);

  const anchor = formatDate(anchorDay);
  const ids = seededIds(Number(anchor.replace(/-/g, '')));
  const run = new DemoRun(new Date(anchorDay.getFullYear(), anchorDay.getMonth(), anchorDay.getDate() - HISTORY_DAYS));

  run.at(0, 8, 30);
  await initVault({ dir: root, env: options.env, clock: run.clock, ids, fallbackUser: options.fallbackUser, ownRepository: true, machine: DEMO_MACHINE });
  markAsDemo(root, anchor);
  run.vault = await openVault({ root, env: options.env, clock: run.clock, ids, fallbackUser: options.fallbackUser, machine: DEMO_MACHINE });
  // The second person's git identity, as their own global git config gives it on their machine.
  const second = mkdtempSync(nodePath.join(tmpdir(), 'lucid-demo-'));
  writeFileSync(nodePath.join(second, 'gitconfig'), `[user]\n\tname = ${SECOND.name}\n\temail = ${SECOND.email}\n`);
  try {
    run.elsewhere = await openVault({
      root,
      env: { ...options.env, GIT_CONFIG_GLOBAL: nodePath.join(second, 'gitconfig') },
      clock: run.clock,
      ids,
      machine: SECOND.machine,
    });
    await setUpTeam(run);
    await weeksOneAndTwo(run);
    await weeksThreeAndFour(run);
    await weeksFiveAndSix(run);
    const notes = (await run.vault.listFiles()).filter((f) => f.path.endsWith('.md'));
    return {
      root: run.vault.root,
      anchor,
      commits: (await run.vault.commits()).count(),
      notes: notes.length,
      sessions: notes.filter((f) => f.path.startsWith('sessions/')).length,
      inbox: notes.filter((f) => f.path.startsWith('inbox/')).length,
      highlights: highlightsOf(run),
    };
  } finally {
    run.vault.close();
    run.elsewhere?.close();
    rmSync(second, { recursive: true, force: true });
    // The agents' searches built a search index keyed on the files' mtimes, which differ between
    // runs; it is a cache that the first search of the served vault rebuilds.
    const state = nodePath.join(root, '.lucid');
    for (const name of readdirSync(state)) if (name.startsWith('search.sqlite')) rmSync(nodePath.join(state, name), { force: true });
  }
}

function highlightsOf(run: DemoRun): DemoHighlights {
  const { staleInboxItem, badEdit } = run.highlights;
  if (!staleInboxItem || !badEdit) throw new Error('demo script: the stale proposal or the bad edit is missing');
  return {
    supersededDecision: P.fts5,
    replacingDecision: P.opensearch,
    duplicateSkills: [P.flaky, P.intermittent],
    staleSkill: P.certificates,
    moltedSkill: P.migrations,
    staleInboxItem,
    badEdit,
    xssNote: P.ticket,
    emojiNote: P.onboarding,
    unusualNames: [P.incident, P.offsite],
  };
}
