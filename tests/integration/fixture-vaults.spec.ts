import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { createLinkResolver, initVault, isExternalTarget, openVault, parseFrontmatter, parseLinks } from '../../lib/vault/index';
import { copyFixture, FIXTURE_VAULTS, haveFixtures, hashTree, testGitEnv } from '../support/fixtures';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const env = { ...testGitEnv(), GIT_AUTHOR_NAME: 'x' };

function linkTargets(root: string, files: string[]): Map<string, string | null> {
  const resolver = createLinkResolver(files);
  const out = new Map<string, string | null>();
  for (const file of files.filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(path.join(root, file), 'utf8');
    const parsed = parseFrontmatter(text);
    for (const link of parseLinks(parsed.parts.body, parsed.ok ? parsed.data : undefined)) {
      if (!link.target || isExternalTarget(link.target)) continue;
      out.set(`${file} -> ${link.raw}`, resolver.resolve(link.target, file, link.kind));
    }
  }
  return out;
}

describe.skipIf(!haveFixtures)('the real vaults in ../shared/fixtures', () => {
  const cleanups: (() => void)[] = [];
  afterAll(() => {
    for (const cleanup of cleanups) cleanup();
  });

  for (const name of FIXTURE_VAULTS) {
    it(`${name}: init keeps every file byte-identical and every link resolving where it did`, async () => {
      const { root, cleanup } = copyFixture(name);
      cleanups.push(cleanup);
      const before = hashTree(root);
      const linksBefore = linkTargets(
        root,
        [...before.keys()].filter((p) => !p.startsWith('.obsidian/')),
      );

      const report = await initVault({ dir: root, env: { ...env, LUCID_USER: 'tester' }, fallbackUser: 'tester' });
      expect(report.commit).toMatch(/^[0-9a-f]{40}$/);

      const after = hashTree(root);
      for (const [file, hash] of before) expect(after.get(file), file).toBe(hash);
      const afterFiles = [...after.keys()].filter((p) => !p.startsWith('.obsidian/') && !p.startsWith('.lucid/'));
      const linksAfter = linkTargets(root, afterFiles);
      for (const [link, target] of linksBefore) expect(linksAfter.get(link), link).toBe(target);

      const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
      const again = await initVault({ dir: root, env, fallbackUser: 'tester' });
      expect(again.commit).toBeNull();
      expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim()).toBe(head);
      expect(execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' })).toBe('');
    });

    // A cold index of the largest fixture parses its markdown for tens of seconds on a loaded machine.
    it(`${name}: every note is listed, and lint and search run`, async () => {
      const { root, cleanup } = copyFixture(name);
      cleanups.push(cleanup);
      const mdFiles = [...hashTree(root).keys()].filter((p) => p.endsWith('.md') && !p.startsWith('.'));
      await initVault({ dir: root, env, fallbackUser: 'tester' });
      const vault = await openVault({ root, env, fallbackUser: 'tester' });
      try {
        const listed = (await vault.listNotes()).map((n) => n.path);
        for (const file of mdFiles) expect(listed).toContain(file);
        const report = await vault.lint();
        expect(report.notes).toBe(listed.length);
        const notes = await vault.listNotes();
        // AGENTS.md and the changelog are Lucid's own files, which ordinary search leaves out; a note whose
        // front matter does not parse still has its body searched.
        const searchable = (n: (typeof notes)[number]) => !n.problem || n.problem === 'invalid_frontmatter';
        const sample =
          notes.find((n) => searchable(n) && /[A-Za-z]{9,}/.test(n.body) && !n.path.startsWith('changelog') && n.path !== vault.layout.agents) ?? notes[0];
        const word = (sample.body.match(/[A-Za-z]{9,}/g) ?? [sample.title])[0];
        const hits = await vault.search(word, { limit: 200 });
        expect(
          hits.map((h) => h.path),
          `searching "${word}"`,
        ).toContain(sample.path);
      } finally {
        vault.close();
      }
    }, 240_000);
  }

  it('agent-memory-template: each of its ten notes is reported as unparseable front matter', async () => {
    const { root, cleanup } = copyFixture('agent-memory-template');
    cleanups.push(cleanup);
    const originals = [...hashTree(root).keys()].filter((p) => p.endsWith('.md'));
    expect(originals).toHaveLength(10);
    await initVault({ dir: root, env, fallbackUser: 'tester' });
    const vault = await openVault({ root, env, fallbackUser: 'tester' });
    try {
      const report = await vault.lint();
      expect(report.unparseable.map((u) => u.path).sort()).toEqual(originals.sort());
      for (const u of report.unparseable) expect(u.problem).toBe('invalid_frontmatter');
    } finally {
      vault.close();
    }
  });

  it('obsidian-tasks-docs: init picks another changelog name so [[Changelog]] keeps reaching its note', async () => {
    const { root, cleanup } = copyFixture('obsidian-tasks-docs');
    cleanups.push(cleanup);
    const report = await initVault({ dir: root, env, fallbackUser: 'tester' });
    expect(report.layout.changelog).not.toBe('changelog.md');
    const config = JSON.parse(readFileSync(path.join(root, 'lucid.json'), 'utf8'));
    expect(config.paths.changelog).toBe(report.layout.changelog);
    expect(readFileSync(path.join(root, report.layout.changelog), 'utf8')).toMatch(/· init \[\[/);
  });
});
