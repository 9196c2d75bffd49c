import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoVault, type DemoReport } from '../../lib/demo/demo';
import { isVaultError } from '../../lib/vault/errors';
import { openVault } from '../../lib/vault/vault';
import { hashTree } from '../support/fixtures';

const ANCHOR = '2026-11-30';
const anchorDate = new Date(2026, 10, 30);
const PERSON = 'Demo Visitor';
const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: process.env.HOME, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const base = mkdtempSync(path.join(os.tmpdir(), 'lucid-demo-'));
// The first demo is made inside another repository, as `lucid start` does inside the package.
const outer = path.join(base, 'outer');
const root = path.join(outer, 'demo');
let report: DemoReport;
let generationMs = 0;

function git(args: string[], cwd = root): string {
  return execFileSync('git', args, { cwd, env: env as NodeJS.ProcessEnv, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

function read(rel: string): string {
  return readFileSync(path.join(root, rel), 'utf8');
}

/** One property of a note's front matter, read with a regex (not with the library under test). */
function field(text: string, key: string): string | undefined {
  const front = /^---\n([\s\S]*?)\n---\n/.exec(text)?.[1] ?? '';
  return new RegExp(`^${key}: (.*)$`, 'm').exec(front)?.[1]?.replace(/^"(.*)"$/, '$1');
}

function commits(cwd = root): { sha: string; time: number; body: string; trailers: Map<string, string> }[] {
  return git(['log', '--reverse', '--format=%H%x00%at%x00%B%x01'], cwd)
    .split('\x01')
    .map((chunk) => chunk.replace(/^\n/, ''))
    .filter((chunk) => chunk.trim() !== '')
    .map((chunk) => {
      const [sha, time, body] = chunk.split('\0');
      const trailers = new Map<string, string>();
      for (const m of body.matchAll(/^(Lucid-[A-Za-z-]+): (.+)$/gm)) trailers.set(m[1], m[2]);
      return { sha, time: Number(time), body, trailers };
    });
}

beforeAll(async () => {
  mkdirSync(outer);
  git(['init', '-q'], outer);
  const started = Date.now();
  report = await generateDemoVault({ dir: root, env, anchor: anchorDate, fallbackUser: PERSON });
  generationMs = Date.now() - started;
}, 120_000);

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('lucid demo', () => {
  it('makes its own repository, even inside another one', () => {
    expect(git(['rev-parse', '--show-toplevel']).trim()).toBe(report.root);
    expect(spawnSync('git', ['rev-parse', 'HEAD'], { cwd: outer, env: env as NodeJS.ProcessEnv }).status).not.toBe(0);
    expect(report.anchor).toBe(ANCHOR);
    console.info(`demo: ${report.commits} commits, ${report.notes} notes in ${generationMs} ms`);
  });

  it('passes lint with no violations, no unparseable notes and no broken links', async () => {
    const vault = await openVault({ root, env });
    try {
      const lint = await vault.lint();
      expect(lint.violations).toEqual([]);
      expect(lint.unparseable).toEqual([]);
      expect(lint.brokenLinks).toEqual([]);
      expect(lint.notes).toBe(report.notes);
    } finally {
      vault.close();
    }
  });

  it('gives every commit its trailers and its changelog line, in time order', () => {
    const log = commits();
    expect(log.length).toBe(report.commits);
    expect(git(['status', '--porcelain'])).toBe('');
    const changelog = [read('changelog.md'), ...readdirSync(path.join(root, 'changelog')).map((f) => read(`changelog/${f}`))].join('\n');
    const lines = changelog.split('\n').filter((l) => / \^e[a-z2-7]{12}$/.test(l));
    expect(lines.length).toBe(log.length);
    for (const commit of log) {
      const actor = commit.trailers.get('Lucid-Actor');
      const op = commit.trailers.get('Lucid-Op');
      const editId = commit.trailers.get('Lucid-Edit');
      expect(actor, commit.body).toMatch(/^(agent:[a-z0-9-]+|human:.+)$/);
      expect(op, commit.body).toBeTruthy();
      expect(editId, commit.body).toMatch(/^e[a-z2-7]{12}$/);
      const line = lines.filter((l) => l.endsWith(` ^${editId}`));
      expect(line, editId).toHaveLength(1);
      expect(line[0]).toContain(` · ${actor} · ${op} [[`);
      // The line links the commit's session exactly when the commit names one.
      const session = commit.trailers.get('Lucid-Session') ?? null;
      expect(/\[\[sessions\/([^|\]]+)\|session\]\]/.exec(line[0])?.[1] ?? null, editId).toBe(session);
    }
    for (let i = 1; i < log.length; i += 1) expect(log[i].time, log[i].body).toBeGreaterThan(log[i - 1].time);
  });

  it('has three agents, the two people and the vault person as actors', () => {
    const actors = new Set(commits().map((c) => c.trailers.get('Lucid-Actor')));
    expect([...actors].filter((a) => a?.startsWith('agent:')).sort()).toEqual(['agent:claude-code', 'agent:cursor', 'agent:research-bot']);
    for (const person of ['human:Ada Lovelace', 'human:Grace Hopper', `human:${PERSON}`]) expect(actors).toContain(person);
    const visitorEdits = commits().filter((c) => c.trailers.get('Lucid-Actor') === `human:${PERSON}` && c.trailers.get('Lucid-Op') !== 'init');
    expect(visitorEdits.length).toBeGreaterThanOrEqual(1);
  });

  it('ends on the anchor day, with activity in the week before it', () => {
    expect(git(['log', '-1', '--format=%aI']).slice(0, 10)).toBe(ANCHOR);
    const weekBefore = new Date(2026, 10, 23).getTime() / 1000;
    const anchorStart = anchorDate.getTime() / 1000;
    const times = commits().map((c) => c.time);
    expect(times.filter((t) => t >= weekBefore && t < anchorStart).length).toBeGreaterThanOrEqual(10);
    const first = git(['log', '--reverse', '--format=%aI']).split('\n')[0].slice(0, 10);
    const days = (anchorDate.getTime() - new Date(`${first}T00:00:00`).getTime()) / 86_400_000;
    expect(days).toBeGreaterThanOrEqual(35);
    expect(days).toBeLessThanOrEqual(42);
  });

  it('has at least 20 sessions, each created with its session trailer, with mixed outcomes', () => {
    const files = readdirSync(path.join(root, 'sessions')).filter((f) => f.endsWith('.md'));
    expect(files.length).toBeGreaterThanOrEqual(20);
    expect(files.length).toBe(report.sessions);
    const outcomes = new Set<string>();
    const agents = new Set<string>();
    for (const file of files) {
      const id = file.slice(0, -3);
      const text = read(`sessions/${file}`);
      for (const key of ['agent', 'task', 'started', 'ended', 'outcome', 'first_search']) expect(field(text, key), `${file} ${key}`).toBeTruthy();
      for (const key of ['searched', 'read', 'touched']) expect(text, `${file} ${key}`).toMatch(new RegExp(`^${key}:`, 'm'));
      outcomes.add(field(text, 'outcome')!);
      agents.add(field(text, 'agent')!);
      const created = git(['log', '--diff-filter=A', '--format=%B', '--', `sessions/${file}`]);
      expect(created).toContain('Lucid-Op: create');
      expect(created).toContain(`Lucid-Session: ${id}`);
    }
    expect([...outcomes].sort()).toEqual(['abandoned', 'done', 'partial']);
    expect(agents.size).toBe(3);
  });

  it('has a skill that molted at least three times, one version per molt', () => {
    const skill = report.highlights.moltedSkill;
    const molts = git(['log', '--reverse', '--format=%B', '--', skill]).match(/^Lucid-Molt: .+$/gm) ?? [];
    // molt_skill also creates a skill, as its molt 0->1.
    expect(molts.length).toBeGreaterThanOrEqual(4);
    const name = path.basename(skill, '.md');
    for (const [i, m] of molts.entries()) expect(m).toBe(`Lucid-Molt: ${name} ${i}->${i + 1}`);
    expect(field(read(skill), 'version')).toBe(String(molts.length));
  });

  it('has duplicate skills and a stale skill no session uses', () => {
    const [a, b] = report.highlights.duplicateSkills;
    expect(existsSync(path.join(root, a)) && existsSync(path.join(root, b))).toBe(true);
    const stale = read(report.highlights.staleSkill);
    expect(field(stale, 'last_updated')! < '2026-10-01').toBe(true);
    const staleLink = `[[${report.highlights.staleSkill.replace(/\.md$/, '')}]]`;
    for (const file of readdirSync(path.join(root, 'sessions'))) expect(read(`sessions/${file}`)).not.toContain(staleLink);
  });

  it('supersedes a decision in the same commit that records its replacement', () => {
    const { supersededDecision: old, replacingDecision: replacing } = report.highlights;
    expect(field(read(old), 'status')).toBe('superseded');
    expect(field(read(old), 'superseded_by')).toBe(`[[${replacing.replace(/\.md$/, '')}]]`);
    expect(field(read(replacing), 'replaces')).toBe(`[[${old.replace(/\.md$/, '')}]]`);
    const sha = git(['log', '--diff-filter=A', '--format=%H', '--', replacing]).trim();
    expect(git(['show', '--name-only', '--format=', sha]).split('\n')).toEqual(expect.arrayContaining([old, replacing]));
  });

  it('has pending inbox proposals of every action; only one has a stale base', () => {
    const files = readdirSync(path.join(root, 'inbox')).filter((f) => f.endsWith('.md'));
    expect(files.length).toBe(report.inbox);
    const actions = new Set<string>();
    const stale: string[] = [];
    for (const file of files) {
      expect(file).toMatch(/^\d{4}-\d{2}-\d{2}-\d{6}-[a-z0-9-]+\.md$/);
      const text = read(`inbox/${file}`);
      const action = field(text, 'action')!;
      actions.add(action);
      expect(field(text, 'type')).toBe('inbox');
      expect(text).toMatch(/\n(`{4,})markdown\n[\s\S]*\n?\1\n$/);
      const target = field(text, 'target')!;
      if (action === 'create') {
        expect(existsSync(path.join(root, target))).toBe(false);
        continue;
      }
      const current = git(['hash-object', '--', target]).trim();
      if (field(text, 'base_blob') !== current) stale.push(`inbox/${file}`);
    }
    expect([...actions].sort()).toEqual(['append', 'create', 'delete', 'update']);
    expect(stale).toEqual([report.highlights.staleInboxItem]);
    const item = read(report.highlights.staleInboxItem);
    expect(field(item, 'action')).toBe('update');
    const target = field(item, 'target')!;
    const [author, when] = git(['log', '-1', '--format=%an%x00%aI', '--', target]).trim().split('\0');
    expect(author).toMatch(/^(Ada Lovelace|Grace Hopper)$/);
    expect(when > field(item, 'created')!).toBe(true);
    const base = field(item, 'base_blob')!;
    expect(
      git(['log', '--format=%H', '--', target])
        .split('\n')
        .some((sha) => sha && git(['rev-parse', `${sha}:${target}`]).trim() === base),
    ).toBe(true);
  });

  it('records a bad agent edit worth reverting', () => {
    const { editId, commit, path: target } = report.highlights.badEdit;
    const body = git(['log', '-1', '--format=%B', commit]);
    expect(body).toContain(`Lucid-Edit: ${editId}`);
    expect(body).toMatch(/^Lucid-Actor: agent:/m);
    const before = git(['show', `${commit}~1:${target}`]);
    const after = git(['show', `${commit}:${target}`]);
    expect(before).toContain('## Consequences');
    expect(after).not.toContain('## Consequences');
  });

  it("has a person's revert of an agent's edit, made as the revert operation makes it", () => {
    const all = commits();
    const reverts = all.filter((c) => c.trailers.get('Lucid-Op') === 'revert');
    expect(reverts.length).toBeGreaterThanOrEqual(1);
    for (const revert of reverts) {
      expect(revert.trailers.get('Lucid-Actor')).toMatch(/^human:/);
      const editId = revert.trailers.get('Lucid-Reverts');
      const reverted = all.find((c) => c.trailers.get('Lucid-Edit') === editId);
      expect(reverted, revert.body).toBeDefined();
      expect(reverted?.trailers.get('Lucid-Actor')).toMatch(/^agent:/);
      // The note is back to what it was before the reverted edit, and the revert changed nothing else but the changelog.
      const files = git(['show', '--format=', '--name-only', revert.sha]).split('\n').filter(Boolean);
      const notes = files.filter((f) => f !== 'changelog.md');
      expect(notes.length).toBeGreaterThanOrEqual(1);
      for (const note of notes) expect(git(['rev-parse', `${revert.sha}:${note}`])).toBe(git(['rev-parse', `${reverted?.sha}~1:${note}`]));
      expect(revert.body).toContain(`undid ${reverted?.trailers.get('Lucid-Actor')}'s`);
    }
    // The edit worth reverting is still there to revert.
    expect(reverts.map((r) => r.trailers.get('Lucid-Reverts'))).not.toContain(report.highlights.badEdit.editId);
  });

  it("keeps people's own notes with unusual names, Obsidian syntax and pasted HTML", () => {
    const handbook = read('Notes/Team handbook.md');
    for (const piece of ['> [!note]', '%%', '![[Onboarding checklist 🚀]]', '](../projects/atlas.md)', '[[projects/atlas\\|Atlas]]', '#team', '## On call']) {
      expect(handbook).toContain(piece);
    }
    expect(existsSync(path.join(root, report.highlights.emojiNote))).toBe(true);
    for (const name of report.highlights.unusualNames) expect(existsSync(path.join(root, name))).toBe(true);
    const xss = read(report.highlights.xssNote);
    for (const piece of ['<script>', 'onerror=', '<iframe']) expect(xss).toContain(piece);
  });

  it('has recall questions whose gold notes exist, and weekly reports', () => {
    const questions = read('evals/questions/demo.jsonl')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; gold: string[]; answers: string[]; kind: string; split: string });
    expect(questions.length).toBeGreaterThanOrEqual(10);
    for (const q of questions) {
      expect(['template', 'mined', 'hand']).toContain(q.kind);
      expect(['dev', 'test']).toContain(q.split);
      for (const gold of q.gold) expect(existsSync(path.join(root, gold)), `${q.id}: ${gold}`).toBe(true);
      expect(
        q.gold.some((g) => q.answers.every((a) => read(g).includes(a))),
        q.id,
      ).toBe(true);
    }
    const reports = readdirSync(path.join(root, 'reports')).filter((f) => f.endsWith('.md'));
    expect(reports.length).toBeGreaterThanOrEqual(1);
    for (const r of reports) expect(field(read(`reports/${r}`), 'type')).toBe('report');
  });

  it('refuses a folder that is neither empty nor a demo, and changes nothing in it', async () => {
    const dir = path.join(base, 'mine');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'notes.md'), '# mine\n');
    const error = await generateDemoVault({ dir, env, anchor: anchorDate }).catch((e: unknown) => e);
    expect(isVaultError(error, 'invalid_input')).toBe(true);
    expect(readdirSync(dir)).toEqual(['notes.md']);
    expect(readFileSync(path.join(dir, 'notes.md'), 'utf8')).toBe('# mine\n');
  });

  it('is reproducible: regenerating over a copy of the demo gives the same bytes and commits, whatever git variables a hook left set', async () => {
    const copy = path.join(base, 'copy');
    cpSync(root, copy, { recursive: true });
    writeFileSync(path.join(copy, 'Notes', 'left over.md'), '# from an earlier run\n');
    // A caller's GIT_DIR, GIT_INDEX_FILE and GIT_WORK_TREE (set inside a git hook) must reach none of the demo's git commands.
    const decoy = path.join(base, 'decoy');
    mkdirSync(decoy);
    spawnSync('git', ['init', '-q', '-b', 'trunk'], { cwd: decoy, env: env as NodeJS.ProcessEnv });
    const decoyBefore = hashTree(path.join(decoy, '.git'));
    const hostile = { ...env, GIT_DIR: path.join(decoy, '.git'), GIT_INDEX_FILE: path.join(decoy, '.git', 'index'), GIT_WORK_TREE: decoy };
    const again = await generateDemoVault({ dir: copy, env: hostile, anchor: anchorDate, fallbackUser: PERSON });
    expect(hashTree(path.join(decoy, '.git'))).toEqual(decoyBefore);
    expect(git(['symbolic-ref', 'HEAD'], copy).trim()).toBe('refs/heads/main');
    expect(existsSync(path.join(copy, 'Notes', 'left over.md'))).toBe(false);
    expect(again.commits).toBe(report.commits);
    expect(git(['rev-parse', 'HEAD'], copy)).toBe(git(['rev-parse', 'HEAD']));
    expect(hashTree(copy)).toEqual(hashTree(root));
    expect(again.highlights).toEqual(report.highlights);
  }, 120_000);

  it('the CLI refuses a missing folder and an invalid anchor date', () => {
    const bin = path.resolve('bin/lucid');
    const run = (args: string[]) => spawnSync(bin, args, { cwd: base, env: env as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 });
    const noDir = run(['demo']);
    expect(noDir.status).toBe(2);
    for (const bad of ['2026-02-30', '30/11/2026', 'tomorrow']) {
      const result = run(['demo', path.join(base, 'cli-demo'), '--anchor', bad]);
      expect(result.status, bad).toBe(2);
      expect(result.stderr).toContain('--anchor');
    }
    expect(existsSync(path.join(base, 'cli-demo'))).toBe(false);
  });
});
