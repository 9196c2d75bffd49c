import { afterEach, describe, expect, it } from 'vitest';
import { endSession, initVault, startSession, writeNote, writeReport, type Vault } from '../../lib/vault/index';
import { makeTempVault, steppingClock, TEST_PERSON, type TempVault } from '../support/temp-vault';

/** The weekly report written through the one write path, on fresh temp repositories. */

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

const WEEK = '2026-W48';
const REPORT = `reports/${WEEK}.md`;
const PERSON = `human:${TEST_PERSON}`;

/** An installed vault whose clock starts on Tuesday of 2026-W48 and moves a minute per read. */
async function installed(): Promise<{ tv: TempVault; vault: Vault }> {
  const tv = makeTempVault({ 'notes/a.md': '# A\n' });
  vaults.push(tv);
  await initVault({ dir: tv.root, env: tv.env });
  const vault = await tv.open({ clock: steppingClock(new Date(2026, 10, 24, 10, 0)) });
  opened.push(vault);
  return { tv, vault };
}

/** A session of `agent` that creates `path` and ends. */
async function agentCreates(vault: Vault, agent: string, path: string, task = `write ${path}`): Promise<string> {
  const { session } = await startSession(vault, { agent, task });
  await writeNote(vault, { session, path, mode: 'create', content: `# ${path}\n\nwritten by ${agent}\n`, reason: `wrote ${path}` });
  await endSession(vault, { session, summary: 'done', outcome: 'done' });
  return session;
}

const count = (tv: TempVault) => tv.commitCount();
const commitsOf = (tv: TempVault, path: string) => tv.git(['log', '--format=%H', '--', path]).trim().split('\n').filter(Boolean);

describe('writeReport', () => {
  it('writes the report as one commit with op report and its changelog line, naming each agent and its notes', async () => {
    const { tv, vault } = await installed();
    const session = await agentCreates(vault, 'claude-code', 'decisions/use-postgres.md', 'Pick | a [database]');
    await agentCreates(vault, 'cursor', 'notes/tidy.md');
    const before = count(tv);

    const result = await writeReport(vault, WEEK, PERSON);

    expect(result).toMatchObject({ path: REPORT, created: true, unchanged: false, replacedVersion: null });
    expect(count(tv)).toBe(before + 1);
    expect(tv.head()).toBe(result.commit);
    const message = tv.git(['log', '-1', '--format=%B']);
    expect(message).toContain(`Lucid-Op: report\n`);
    expect(message).toContain(`Lucid-Actor: ${PERSON}\n`);
    expect(message).toContain(`Lucid-Edit: ${result.editId}\n`);
    expect(tv.git(['show', '--name-only', '--format=', 'HEAD']).trim().split('\n').sort()).toEqual(['changelog.md', REPORT]);
    expect(tv.git(['show', 'HEAD:changelog.md'])).toContain(` · ${PERSON} · report [[reports/${WEEK}]] · report of ${WEEK} ^${result.editId}`);

    const text = tv.read(REPORT);
    expect(text).toMatch(
      /^---\ntype: report\nperiod_start: 2026-11-23\nperiod_end: 2026-11-29\nauthor: human:Test Person\ncreated: 2026-11-24T\S+\nupdated: 2026-11-24\n---\n\n# What the agents did in 2026-W48\n/,
    );
    expect(text.endsWith(result.body)).toBe(true);
    expect(text).toContain('## claude-code');
    expect(text).toContain(`- [[sessions/${session}|Pick / a (database)]]: done, 1 edit`);
    expect(text).toContain('- [[decisions/use-postgres]]');
    expect(text).toContain('## cursor');
    expect(text).toContain('- [[notes/tidy]]');
    expect(text).toContain('- Edits by agents: 4');
  });

  it('exports again: no commit while nothing changed, one more commit on the same note after new edits', async () => {
    const { tv, vault } = await installed();
    await agentCreates(vault, 'claude-code', 'decisions/one.md');
    const first = await writeReport(vault, WEEK, PERSON);
    const head = tv.head();

    const again = await writeReport(vault, WEEK, PERSON);
    expect(again).toMatchObject({ unchanged: true, commit: first.commit, editId: first.editId, created: false });
    expect(tv.head()).toBe(head);
    expect(tv.git(['status', '--porcelain'])).toBe('');

    await agentCreates(vault, 'claude-code', 'decisions/two.md');
    const before = count(tv);
    const third = await writeReport(vault, WEEK, PERSON);
    expect(third).toMatchObject({ unchanged: false, created: false, path: REPORT });
    expect(count(tv)).toBe(before + 1);
    expect(commitsOf(tv, REPORT)).toEqual([third.commit, first.commit]);
    expect(tv.git(['log', '-1', '--format=%(trailers:key=Lucid-Op,valueonly)']).trim()).toBe('report');
    expect(tv.read(REPORT)).toContain('- [[decisions/two]]');
    expect(tv.read(REPORT)).toMatch(/\ncreated: 2026-11-24T/);
  });

  it("commits a person's uncommitted edit of the report as theirs first, then replaces it; their version stays in history", async () => {
    const { tv, vault } = await installed();
    await agentCreates(vault, 'claude-code', 'decisions/one.md');
    await writeReport(vault, WEEK, PERSON);
    const edited = tv.read(REPORT).replace('# What the agents did', 'My own words.\n\n# What the agents did');
    tv.write(REPORT, edited);
    const before = count(tv);

    const result = await writeReport(vault, WEEK, PERSON);

    expect(count(tv)).toBe(before + 2);
    expect(result.replacedVersion).toBe(tv.git(['rev-parse', 'HEAD~1']).trim());
    expect(tv.git(['log', '-1', '--format=%B', 'HEAD~1'])).toMatch(/Lucid-Actor: human:Test Person\nLucid-Op: update\n/);
    expect(tv.git(['show', `HEAD~1:${REPORT}`])).toBe(edited);
    expect(tv.read(REPORT)).not.toContain('My own words.');
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  it("replaces a person's committed edit of the body, keeps the properties they added, and says which commit holds theirs", async () => {
    const { tv, vault } = await installed();
    await agentCreates(vault, 'claude-code', 'decisions/one.md');
    await writeReport(vault, WEEK, PERSON);
    const generated = tv.read(REPORT);
    tv.write(REPORT, generated.replace('type: report\n', 'type: report\ntags:\n  - weekly\n').replace('## Totals', 'Shared in #team.\n\n## Totals'));
    tv.git(['commit', '-qam', 'my notes on the report']);
    const theirs = tv.head();

    const result = await writeReport(vault, WEEK, PERSON);

    expect(result).toMatchObject({ unchanged: false, replacedVersion: theirs });
    const text = tv.read(REPORT);
    expect(text).not.toContain('Shared in #team.');
    expect(text).toContain('tags:\n  - weekly\n');
    expect(text.slice(text.indexOf('\n---\n'))).toBe(generated.slice(generated.indexOf('\n---\n')));
  });

  it('keeps a front-matter-only edit without a commit (the report itself is unchanged)', async () => {
    const { tv, vault } = await installed();
    await agentCreates(vault, 'claude-code', 'decisions/one.md');
    await writeReport(vault, WEEK, PERSON);
    const tagged = tv.read(REPORT).replace('type: report\n', 'type: report\ntags: [weekly]\n');
    tv.write(REPORT, tagged);
    const head = tv.head();
    expect(await writeReport(vault, WEEK, PERSON)).toMatchObject({ unchanged: true });
    expect(tv.head()).toBe(head);
    expect(tv.read(REPORT)).toBe(tagged);
  });

  it('refuses a report whose front matter does not parse, and a week that does not exist, changing nothing', async () => {
    const { tv, vault } = await installed();
    tv.write(REPORT, '---\ntype: report\nperiod_start: [unclosed\n---\n\nmine\n');
    tv.git(['add', '.']);
    tv.git(['commit', '-qm', 'broken report']);
    const head = tv.head();
    await expect(writeReport(vault, WEEK, PERSON)).rejects.toMatchObject({ code: 'invalid_frontmatter' });
    await expect(writeReport(vault, '2026-W54', PERSON)).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringContaining('YYYY-Www') });
    expect(tv.head()).toBe(head);
    expect(tv.read(REPORT)).toContain('mine');
  });

  it('uses the reports folder of lucid.json', async () => {
    const tv = makeTempVault({ 'lucid.json': JSON.stringify({ version: 1, paths: { reports: 'Shared/Weekly' } }) });
    vaults.push(tv);
    await initVault({ dir: tv.root, env: tv.env });
    const vault = await tv.open({ clock: steppingClock(new Date(2026, 10, 24, 10, 0)) });
    opened.push(vault);
    const result = await writeReport(vault, WEEK, PERSON);
    expect(result.path).toBe('Shared/Weekly/2026-W48.md');
    expect(tv.git(['show', '--name-only', '--format=', 'HEAD'])).toContain('Shared/Weekly/2026-W48.md');
  });
});
