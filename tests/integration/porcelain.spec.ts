import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isVaultError } from '../../lib/vault/errors';
import { diffOutput, showOutput } from '../../lib/vault/git/porcelain';
import { makeTempVault, type TempVault } from '../support/temp-vault';

const vaults: TempVault[] = [];
afterEach(() => {
  for (const tv of vaults.splice(0)) tv.cleanup();
});

function vault(files: Record<string, string>): TempVault {
  const tv = makeTempVault(files);
  vaults.push(tv);
  return tv;
}

/** An executable script in `dir` that appends its name to `dir/ran` (so a test sees whether git ran it), then runs `then`. */
function script(dir: string, name: string, then = ''): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\necho ${name} >> '${path.join(dir, 'ran')}'\n${then}\n`, { mode: 0o755 });
  return file;
}

describe("simple-git's reads run like the runner's processes", () => {
  it("read the vault's repository, never the one the caller's environment names, and run no pager, external diff or config it sets", async () => {
    const tv = vault({ 'notes/café.md': 'one\n' });
    const other = vault({ 'elsewhere.md': 'other repository\n' });
    tv.write('notes/café.md', 'two\n');
    const env = {
      ...tv.env,
      GIT_DIR: path.join(other.root, '.git'),
      GIT_WORK_TREE: other.root,
      GIT_INDEX_FILE: path.join(other.root, '.git', 'index'),
      GIT_EXTERNAL_DIFF: script(other.root, 'external-diff'),
      GIT_PAGER: script(other.root, 'pager'),
      PAGER: script(other.root, 'pager'),
      GIT_CONFIG_PARAMETERS: `'diff.external=${script(other.root, 'config-diff')}'`,
    };

    const diff = await diffOutput({ root: tv.root, env }, ['HEAD', '--no-color', '--', ':(literal)notes/café.md']);
    const show = await showOutput({ root: tv.root, env }, ['--format=%s', '--patch', '--no-color', 'HEAD', '--']);

    // Paths as they are (core.quotePath=false), from this vault's work tree and HEAD.
    expect(diff).toContain('diff --git a/notes/café.md b/notes/café.md\n');
    expect(diff).toContain('-one\n+two\n');
    expect(show).toMatch(/^initial\n/);
    expect(show).toContain('+++ b/notes/café.md\n@@ -0,0 +1 @@\n+one\n');
    expect(fs.existsSync(path.join(other.root, 'ran'))).toBe(false);
  });

  it('fail with an io_error naming the command and what git said', async () => {
    const tv = vault({ 'a.md': 'a\n' });
    const error = await showOutput(tv, ['1'.repeat(40), '--']).catch((e: unknown) => e);
    expect(isVaultError(error, 'io_error')).toBe(true);
    expect((error as Error).message).toMatch(/^git show failed: fatal: bad object 1{40}/);
  });

  it('are stopped after their timeout with the runner’s io_error, and give their process slot back', async () => {
    const tv = vault({ 'a.md': 'a\n' });
    // An fsmonitor hook that hangs: `git diff HEAD` asks it which files changed before reading the work tree.
    tv.git(['config', 'core.fsmonitor', script(tv.root, 'fsmonitor', 'sleep 3')]);
    // One more read than there are slots: the seventh starts only once a stopped read gave its slot back.
    const reads = Array.from({ length: 7 }, () => diffOutput(tv, ['HEAD', '--'], { timeoutMs: 200 }).catch((e: unknown) => e));
    for (const error of await Promise.all(reads)) {
      expect(isVaultError(error, 'io_error')).toBe(true);
      expect((error as Error).message).toMatch(/^git diff was stopped after 0\.2 s without finishing/);
    }
    expect(fs.readFileSync(path.join(tv.root, 'ran'), 'utf8')).toContain('fsmonitor');
  });
});
