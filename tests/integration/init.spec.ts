import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initVault } from '../../lib/vault/index';
import { hashTree, testGitEnv } from '../support/fixtures';

const env = testGitEnv();
const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function folder(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-init-')));
  made.push(root);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

const git = (root: string, args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', env: env as NodeJS.ProcessEnv });

describe('lucid init on a folder someone already uses', () => {
  it("never adopts a person's own changelog.md, AGENTS.md or inbox/: it picks other names and records them", async () => {
    const root = folder({
      'changelog.md': '# Changelog\n\nRelease notes.\n\n- 2025-06-01 shipped v2\n',
      'AGENTS.md': '# Agents\n\nMy own notes about agents.\n',
      'inbox/todo.md': '# Todo\n\n- buy milk\n',
      'people/Ada.md': '# Ada\n',
    });
    const before = hashTree(root);
    const report = await initVault({ dir: root, env, fallbackUser: 'Tester' });
    const after = hashTree(root);
    for (const [file, hash] of before) expect(after.get(file), file).toBe(hash);
    expect(report.layout.changelog).toBe('lucid-changelog.md');
    expect(report.layout.agents).toBe('lucid-agents.md');
    expect(report.layout.inbox).toBe('lucid-inbox');
    expect(report.layout.people).toBe('people');
    const config = JSON.parse(fs.readFileSync(path.join(root, 'lucid.json'), 'utf8'));
    expect(config.paths).toMatchObject({ changelog: 'lucid-changelog.md', agents: 'lucid-agents.md', inbox: 'lucid-inbox' });
    expect(fs.existsSync(path.join(root, 'changelog'))).toBe(false);
    const head = git(root, ['rev-parse', 'HEAD']);
    const again = await initVault({ dir: root, env, fallbackUser: 'Tester' });
    expect(again.commit).toBeNull();
    expect(git(root, ['rev-parse', 'HEAD'])).toBe(head);
  });

  it('a second run on a vault it installed without lucid.json adopts its own changelog.md and AGENTS.md', async () => {
    const root = folder({ 'note.md': '# A note\n' });
    const first = await initVault({ dir: root, env, fallbackUser: 'Tester' });
    expect(first.layout.changelog).toBe('changelog.md');
    expect(fs.existsSync(path.join(root, 'lucid.json'))).toBe(false);
    const second = await initVault({ dir: root, env, fallbackUser: 'Tester' });
    expect(second.layout.changelog).toBe('changelog.md');
    expect(second.commit).toBeNull();
  });

  it('leaves dot-files, plugin data and files that look like secrets out of the first commit, and says so', async () => {
    const key = ['ghp', 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A'].join('_');
    const root = folder({
      'Notes/plain.md': '# Plain\n',
      'Notes/leaked.md': `# Setup\n\ntoken: ${key}\n`,
      '.env': 'OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n',
      '.ssh/id_ed25519': '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----\n',
      '.obsidian/app.json': '{}\n',
      '.obsidian/plugins/sync/data.json': '{"apiKey":"x"}\n',
    });
    const report = await initVault({ dir: root, env, fallbackUser: 'Tester' });
    const tracked = git(root, ['ls-files']).split('\n');
    expect(tracked).toContain('Notes/plain.md');
    expect(tracked).toContain('.obsidian/app.json');
    for (const secret of ['Notes/leaked.md', '.env', '.ssh/id_ed25519', '.obsidian/plugins/sync/data.json']) expect(tracked, secret).not.toContain(secret);
    expect(report.leftOut.map((l) => l.path)).toEqual(expect.arrayContaining(['Notes/leaked.md', '.env', '.ssh/']));
    expect(fs.readFileSync(path.join(root, 'Notes/leaked.md'), 'utf8')).toContain(key);
  });

  it('refuses to make the file-system root a vault', async () => {
    await expect(initVault({ dir: '/', env, fallbackUser: 'Tester' })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});
