import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initVault, openVault, upgradeInstall } from '../../lib/vault/index';
import { testGitEnv } from '../support/fixtures';

/** The changelog merges by union, so a person's plain `git revert` of an older edit never conflicts on it. */

const env = testGitEnv();
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

async function installed(files: Record<string, string> = { 'notes/a.md': '# A\n' }): Promise<{ root: string; git: (...args: string[]) => string }> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-union-')));
  made.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8', env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Owner');
  git('config', 'user.email', 'owner@example.invalid');
  git('add', '-A');
  git('commit', '-q', '-m', 'Initial commit');
  await initVault({ dir: root, env });
  return { root, git };
}

/** Three agent edits of three notes, each one commit with its changelog line at the top. */
async function threeEdits(root: string): Promise<string[]> {
  const vault = await openVault({ root, env });
  const commits: string[] = [];
  try {
    for (const name of ['one', 'two', 'three']) {
      const result = await vault.edit({
        actor: 'agent:test-agent',
        op: 'create',
        path: `notes/${name}.md`,
        reason: `wrote ${name}`,
        changes: [{ path: `notes/${name}.md`, content: `# ${name}\n` }],
      });
      commits.push(result.commit);
    }
  } finally {
    vault.close();
  }
  return commits;
}

const lines = (root: string) =>
  fs
    .readFileSync(path.join(root, 'changelog.md'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('- '));

describe("the changelog's merge=union", () => {
  it('lucid init writes it, so a plain git revert of an older agent edit applies and the changelog keeps every line', async () => {
    const { root, git } = await installed();
    expect(fs.readFileSync(path.join(root, '.gitattributes'), 'utf8')).toContain('/changelog.md merge=union\n/changelog/*.md merge=union\n');
    expect(git('check-attr', 'merge', '--', 'changelog.md', 'changelog/2026-01.md', 'notes/changelog.md')).toBe(
      'changelog.md: merge: union\nchangelog/2026-01.md: merge: union\nnotes/changelog.md: merge: unspecified\n',
    );
    const [first] = await threeEdits(root);
    const before = lines(root);
    git('revert', '--no-edit', first);
    expect(fs.existsSync(path.join(root, 'notes/one.md'))).toBe(false);
    const after = lines(root);
    for (const line of before) expect(after).toContain(line);
    expect(fs.readFileSync(path.join(root, 'changelog.md'), 'utf8')).not.toMatch(/^(<<<<<<<|=======|>>>>>>>)/m);
    expect(git('status', '--porcelain')).toBe('');
  });

  it('without it the same revert conflicts on the changelog (why the file exists)', async () => {
    const { root, git } = await installed();
    git('rm', '-q', '.gitattributes');
    git('commit', '-q', '-m', 'an install from before the attributes');
    const [first] = await threeEdits(root);
    expect(() => git('revert', '--no-edit', first)).toThrow();
    expect(git('diff', '--name-only', '--diff-filter=U')).toBe('changelog.md\n');
    git('revert', '--abort');
  });

  it('upgrades an earlier install once, in one commit by the person, and keeps what the file had', async () => {
    const { root, git } = await installed();
    fs.writeFileSync(path.join(root, '.gitattributes'), '*.png binary');
    git('commit', '-q', '-am', 'an install from before the attributes, with a line of my own');
    const vault = await openVault({ root, env });
    try {
      const commits = Number(git('rev-list', '--count', 'HEAD').trim());
      expect(await upgradeInstall(vault)).toEqual(['.gitattributes']);
      expect(Number(git('rev-list', '--count', 'HEAD').trim())).toBe(commits + 1);
      expect(git('show', '-s', '--format=%B', 'HEAD')).toMatch(/Lucid-Actor: human:Owner\nLucid-Op: init\n/);
      expect(git('show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['.gitattributes', 'changelog.md']);
      const text = fs.readFileSync(path.join(root, '.gitattributes'), 'utf8');
      expect(text.startsWith('*.png binary\n\n# Lucid:')).toBe(true);
      expect(git('check-attr', 'merge', '--', 'changelog.md').trim()).toBe('changelog.md: merge: union');

      // Once: a person who then takes the lines out is not overruled.
      fs.writeFileSync(path.join(root, '.gitattributes'), '*.png binary\n');
      git('commit', '-q', '-am', 'I merge my changelog myself');
      expect(await upgradeInstall(vault)).toEqual([]);
      expect(fs.readFileSync(path.join(root, '.gitattributes'), 'utf8')).toBe('*.png binary\n');
    } finally {
      vault.close();
    }
  });

  it('covers the names lucid.json maps the changelog to, and leaves a vault without Lucid alone', async () => {
    const { root, git } = await installed({ 'changelog.md': '# My release notes\n', 'notes/a.md': '# A\n' });
    const layout = JSON.parse(fs.readFileSync(path.join(root, 'lucid.json'), 'utf8')) as { paths: { changelog: string; changelogArchive: string } };
    expect(layout.paths.changelog).toBe('lucid-changelog.md');
    expect(git('check-attr', 'merge', '--', 'lucid-changelog.md', 'changelog.md').trim()).toBe(
      'lucid-changelog.md: merge: union\nchangelog.md: merge: unspecified',
    );

    const plain = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-plain-')));
    made.push(plain);
    execFileSync('git', ['init', '-q'], { cwd: plain, env: env as NodeJS.ProcessEnv });
    const vault = await openVault({ root: plain, env, fallbackUser: 'Owner' });
    try {
      expect(await upgradeInstall(vault)).toEqual([]);
      expect(fs.existsSync(path.join(plain, '.gitattributes'))).toBe(false);
    } finally {
      vault.close();
    }
  });
});
