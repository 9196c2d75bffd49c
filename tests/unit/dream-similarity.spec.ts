import { describe, expect, it } from 'vitest';
import { mergeProcedures, mergeTriggers } from '../../lib/vault/dream/merge-text';
import { findSimilarPairs, type SkillText } from '../../lib/vault/dream/similarity';
import { extractSteps, normalizeWords, stem } from '../../lib/vault/dream/words';

/** The finder on skill pairs written here: paraphrases found, same-topic near misses not. */

const skill = (path: string, trigger: string, steps: string[], numbered = true): SkillText => ({
  path,
  name: path.replace(/^skills\//, '').replace(/\.md$/, ''),
  trigger,
  body: `\n${steps.map((s, i) => `${numbered ? `${i + 1}.` : '-'} ${s}`).join('\n')}\n`,
});

// Other skills, so that words have a document frequency as in a real set.
const BACKGROUND: SkillText[] = [
  skill('skills/deploy-frontend.md', 'when a frontend release is ready', [
    'Merge the release branch into main',
    'Wait for the build pipeline to publish the bundle',
    'Purge the CDN cache for the app domain',
    'Smoke test the login page in a private window',
  ]),
  skill('skills/oncall-handover.md', 'at the end of an on-call week', [
    'Write the open incidents into the handover note',
    'Walk the next engineer through the alerts that fired',
    'Transfer the pager in the scheduling tool',
  ]),
  skill('skills/new-laptop.md', 'when an engineer gets a new laptop', [
    'Install the password manager and sign in',
    'Clone the main repositories with the setup script',
    'Enroll the laptop in device management',
  ]),
  skill('skills/rotate-api-keys.md', 'when an API key leaks or is older than a year', [
    'Create a new API key in the provider console',
    'Store the new key in the secret manager',
    'Roll the services so they read the new key',
    'Delete the old key in the provider console',
  ]),
];

const FLAKY = skill('skills/flaky-ci.md', 'when CI fails intermittently on the main branch', [
  'Open the failing CI run and copy the failing test name',
  'Re-run only the failing job to confirm the failure is intermittent',
  'Search the test log for timeouts and race conditions',
  'Mark the test as flaky in the quarantine list',
  'Open an issue with the log excerpt and assign the test owner',
]);

// The same procedure in other words: synonyms, another order, two steps merged, one step added, another name.
const FLAKY_PARAPHRASE = skill(
  'skills/retry-intermittent-tests.md',
  'whenever continuous integration fails now and then on main',
  [
    'Open the failed CI run and write down the name of the failing test',
    'Run the failing job again to verify the failure is intermittent',
    'Grep the test log for race conditions and timeouts, then add the test to the quarantine list as flaky',
    'Tell the team in the CI channel which test was quarantined',
    'File an issue with the log excerpt and assign the test owner',
  ],
  false,
);

const PG_BACKUP = skill('skills/postgres-backup.md', 'before a risky migration of the postgres database', [
  'Announce the postgres maintenance window in the ops channel',
  'Stop writes to the postgres primary',
  'Take a pg_dump of the postgres database to the backup bucket',
  'Check the dump checksum against the bucket copy',
  'Resume writes to the postgres primary',
]);

// Same topic (postgres, dumps, the bucket), another procedure.
const PG_RESTORE = skill('skills/postgres-restore.md', 'when the postgres database is lost or corrupted', [
  'Announce the postgres outage in the ops channel',
  'Stop the postgres service on every node',
  'Download the newest dump from the backup bucket',
  'Load the dump with pg_restore into an empty postgres database',
  'Start the postgres service and watch the log for errors',
]);

// The same procedure as the key rotation, on another subject: not the same skill.
const ROTATE_TOKENS = skill('skills/rotate-bot-tokens.md', 'when a chat bot token leaks', [
  'Create a new bot token in the chat admin page',
  'Store the new bot token in the secret manager',
  'Restart the bot so it reads the new token',
  'Revoke the old bot token in the chat admin page',
]);

const pairsOf = (skills: SkillText[]) => findSimilarPairs(skills).map((p) => [p.a, p.b].sort().join(' ~ '));

describe('findSimilarPairs', () => {
  it('finds a paraphrased duplicate, with its score and evidence', () => {
    const pairs = findSimilarPairs([...BACKGROUND, FLAKY, FLAKY_PARAPHRASE]);
    expect(pairs.map((p) => [p.a, p.b])).toEqual([[FLAKY.path, FLAKY_PARAPHRASE.path]]);
    const [pair] = pairs;
    expect(pair.score).toBeGreaterThan(0.6);
    expect(pair.score).toBeLessThanOrEqual(1);
    expect(pair.evidence[0]).toMatch(/^\d of 5 steps of skills\/flaky-ci\.md match steps of skills\/retry-intermittent-tests\.md/);
    expect(pair.evidence.some((e) => e.startsWith('shared step: "Re-run only the failing job'))).toBe(true);
    expect(pair.evidence.some((e) => /^text similarity 0\.\d\d \(TF-IDF cosine\)$/.test(e))).toBe(true);
    expect(pair.evidence.some((e) => e.startsWith('trigger overlap'))).toBe(true);
  });

  it('does not pair near misses: the same topic with another procedure, or the same procedure on another subject', () => {
    expect(pairsOf([...BACKGROUND, PG_BACKUP, PG_RESTORE, ROTATE_TOKENS])).toEqual([]);
  });

  it('finds the duplicate among near misses, and only it', () => {
    expect(pairsOf([...BACKGROUND, FLAKY, FLAKY_PARAPHRASE, PG_BACKUP, PG_RESTORE, ROTATE_TOKENS])).toEqual([
      'skills/flaky-ci.md ~ skills/retry-intermittent-tests.md',
    ]);
  });

  it('scores an identical copy 1 and reports nothing for an empty or single set', () => {
    const copy = { ...FLAKY, path: 'skills/flaky-ci-copy.md', name: 'flaky-ci-copy' };
    expect(findSimilarPairs([...BACKGROUND, FLAKY, copy])[0]).toMatchObject({ a: FLAKY.path, b: copy.path });
    expect(findSimilarPairs([...BACKGROUND, FLAKY, copy])[0].score).toBeGreaterThan(0.9);
    expect(findSimilarPairs([])).toEqual([]);
    expect(findSimilarPairs([FLAKY])).toEqual([]);
  });
});

describe('the words of a skill', () => {
  it('stems forms of a word alike and joins common synonyms', () => {
    expect(stem('running')).toBe(stem('run'));
    expect(stem('stopped')).toBe(stem('stops'));
    expect(stem('configured')).toBe(stem('configure'));
    expect(normalizeWords('Verify the backups')).toEqual(normalizeWords('check the snapshot'));
    expect(normalizeWords('Delete the old files')).toEqual(normalizeWords('remove old file'));
  });

  it('takes list items as steps, a code block belonging to the item above it, else sentences', () => {
    expect(extractSteps('# Title\n\nIntro.\n\n1. First step\n   ```sh\n   make test\n   ```\n2. Second step\n')).toEqual([
      'First step    make test',
      'Second step',
    ]);
    expect(extractSteps('Do this. Then that!\nAnd more')).toEqual(['Do this.', 'Then that!', 'And more']);
  });
});

describe('mergeProcedures', () => {
  it("keeps the survivor's text and inserts the other's missing steps after the step that matched the one before, renumbered", () => {
    const survivor = '\n# Flaky CI\n\n1. Open the run\n2. Re-run the job\n3. Open an issue for the owner\n';
    const other = '\n- Open the run\n- Re-run the job\n- Tell the team in the channel\n  with the test name\n- Open an issue for the owner\n';
    const merged = mergeProcedures(survivor, other, 'other-skill');
    expect(merged.added).toBe(1);
    expect(merged.body).toBe(
      '\n# Flaky CI\n\n1. Open the run\n2. Re-run the job\n3. Tell the team in the channel\n  with the test name\n4. Open an issue for the owner\n',
    );
  });

  it('is the survivor unchanged when the other adds nothing, and is the same on every run', () => {
    const survivor = '\n1. Stop the service\n2. Take a backup\n';
    expect(mergeProcedures(survivor, '\n- Halt the service\n- Take a backup\n', 'x')).toEqual({ body: survivor, added: 0 });
    const other = '\n1. Copy the dump offsite\n```sh\nrsync dump host:\n```\n';
    expect(mergeProcedures(survivor, other, 'x')).toEqual(mergeProcedures(survivor, other, 'x'));
  });

  it("adds the other's steps under a heading when the survivor has no list", () => {
    const merged = mergeProcedures('\nJust restart it.\n', '\n- Restart the worker\n- Watch the queue drain\n', 'drain-queue');
    expect(merged.body).toBe('\nJust restart it.\n\n## Steps from drain-queue\n\n- Restart the worker\n- Watch the queue drain\n');
  });

  it("joins triggers only when the other's says something new", () => {
    expect(mergeTriggers('when CI fails', 'when the CI fails')).toBe('when CI fails');
    expect(mergeTriggers('when CI fails', 'before a release')).toBe('when CI fails; or before a release');
  });
});
