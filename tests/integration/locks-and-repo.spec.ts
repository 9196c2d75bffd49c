import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { VaultError } from '../../lib/vault/errors';
import { nodeFs, type VaultFs } from '../../lib/vault/fs';
import { type GitRunner, spawnGit } from '../../lib/vault/git/runner';
import { openVault, type Vault } from '../../lib/vault/vault';
import type { EditRequest } from '../../lib/vault/write/edit-types';
import { findTempFiles, makeTempVault, sha256, snapshot, type TempVault } from '../support/temp-vault';

// Catalog #39 (hash, not mtime), #40 (stale and compromised locks), #41 (index.lock, many
// committers at once) and #44 (argument injection and odd repository states).

const AGENT = 'agent:test-agent';
const NOTE = 'notes/a.md';
const NOTE_TEXT = '---\ntitle: A\n---\n\nThe first version.\n';
const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BIN = path.join(PROJECT_ROOT, 'bin', 'lucid');

const vaults: TempVault[] = [];
const opened: Vault[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const vault of opened.splice(0)) vault.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

function tempVault(files: Record<string, string | Uint8Array> = {}): TempVault {
  const tv = makeTempVault(files);
  vaults.push(tv);
  return tv;
}

async function openIn(tv: TempVault, options?: Parameters<TempVault['open']>[0]): Promise<Vault> {
  const vault = await tv.open(options);
  opened.push(vault);
  return vault;
}

async function refusal(promise: Promise<unknown>): Promise<VaultError> {
  let caught: unknown = null;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(VaultError);
  return caught as VaultError;
}

function update(vault: Vault, content: string, expectedHash: string | undefined, path = NOTE) {
  return vault.edit({ actor: AGENT, op: 'update', path, reason: 'x', changes: [{ path, content, expectedHash }] });
}

describe('#39 hash, not mtime', () => {
  it('a same-size change with its mtime reset (touch -r) is still a conflict for an edit based on the old hash', async () => {
    const tv = tempVault({ [NOTE]: 'aaaa\n' });
    const vault = await openIn(tv);
    const abs = path.join(tv.root, NOTE);
    const read = await vault.readNote(NOTE);
    const { atime, mtime } = fs.statSync(abs);
    fs.writeFileSync(abs, 'bbbb\n');
    fs.utimesSync(abs, atime, mtime);
    const before = snapshot(tv.root);

    const error = await refusal(update(vault, 'the agent text\n', read.hash));

    expect(error.code).toBe('conflict');
    expect(error.details).toMatchObject({ path: NOTE, currentHash: sha256('bbbb\n') });
    expect(tv.read(NOTE)).toBe('bbbb\n');
    expect(snapshot(tv.root)).toEqual(before);
  });

  it('two edits within one mtime tick: a change made right after a Lucid write, with the same size and mtime, is read and guarded', async () => {
    const tv = tempVault({ [NOTE]: 'v0\n' });
    const vault = await openIn(tv);
    const first = await update(vault, 'v1\n', sha256('v0\n'));
    const abs = path.join(tv.root, NOTE);
    const { atime, mtime } = fs.statSync(abs);
    fs.writeFileSync(abs, 'v2\n');
    fs.utimesSync(abs, atime, mtime);

    const read = await vault.readNote(NOTE);
    const error = await refusal(update(vault, 'v3\n', first.hashes[NOTE] ?? ''));

    expect(read.hash).toBe(sha256('v2\n'));
    expect(read.text).toBe('v2\n');
    expect(error.code).toBe('conflict');
    expect(tv.read(NOTE)).toBe('v2\n');
    await update(vault, 'v3\n', read.hash);
    expect(tv.read(NOTE)).toBe('v3\n');
  });
});

/** Starts a process that takes the vault lock and holds it until killed; resolves once it holds it. */
async function lockHolder(tv: TempVault, staleMs: number): Promise<ChildProcess> {
  const lockModule = path.join(PROJECT_ROOT, 'lib', 'vault', 'write', 'lock.ts');
  const script = `
    import { withVaultLock } from ${JSON.stringify(lockModule)};
    await withVaultLock(${JSON.stringify(path.join(tv.root, '.lucid', 'vault'))}, async () => {
      process.stdout.write('held\\n');
      await new Promise(() => setInterval(() => {}, 1000));
    }, { staleMs: ${staleMs} });
  `;
  fs.mkdirSync(path.join(tv.root, '.lucid'), { recursive: true });
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('held')) resolve();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on('exit', (code) => reject(new Error(`the lock holder exited (${code}) before holding the lock: ${err}`)));
  });
  return child;
}

describe('#40 stale and compromised locks', () => {
  it('a lock holder killed with SIGKILL: the next writer waits while the lock is fresh, then takes it over once stale', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const staleMs = 2_000;
    const holder = await lockHolder(tv, staleMs);
    const vault = await openIn(tv, { lock: { staleMs, waitMs: 300 } });
    const before = snapshot(tv.root);

    // While the holder lives (and refreshes the lock), a writer that will not wait long gives up.
    const busy = await refusal(update(vault, 'new\n', sha256(NOTE_TEXT)));
    expect(busy.code).toBe('locked');
    expect(busy.message).toContain('vault.lock');
    expect(snapshot(tv.root)).toEqual(before);

    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    // Within its wait (30 s on the clock) the writer takes the stale lock over; past it, it would
    // have been refused as `locked`, so landing is the proof, with no time measured here.
    const patient = await openIn(tv, { lock: { staleMs, waitMs: 30_000 } });
    const result = await update(patient, 'new\n', sha256(NOTE_TEXT));

    expect(result.commit).toBe(tv.head());
    expect(tv.read(NOTE)).toBe('new\n');
    expect(fs.existsSync(path.join(tv.root, '.lucid', 'vault.lock'))).toBe(false);
  }, 60_000);

  it('a lock deleted during a write (compromised): that write aborts with an error before its commit, files are put back, and the process goes on', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT, 'changelog.md': '# Changelog\n' });
    const lockDir = path.join(tv.root, '.lucid', 'vault.lock');
    let sabotage = true;
    const saboteur: VaultFs = {
      ...nodeFs,
      writeNewFile: async (target, data, mode) => {
        if (sabotage) {
          sabotage = false;
          // No wait for the holder's refresh timer: the write looks at the lock directory itself
          // before it commits (assertHeld in write/lock.ts), so the loss is seen at once.
          fs.rmSync(lockDir, { recursive: true, force: true });
        }
        return nodeFs.writeNewFile(target, data, mode);
      },
    };
    const vault = await openIn(tv, { fs: saboteur, lock: { staleMs: 3_000 } });
    const before = snapshot(tv.root);
    const commits = tv.commitCount();

    const error = await refusal(update(vault, 'new\n', sha256(NOTE_TEXT)));

    expect(error.code).toBe('locked');
    expect(error.message).toMatch(/lost/);
    expect(tv.commitCount()).toBe(commits);
    expect(tv.read(NOTE)).toBe(NOTE_TEXT);
    expect(findTempFiles(tv.root)).toEqual([]);
    expect(snapshot(tv.root)).toEqual(before);

    const next = await update(vault, 'new\n', sha256(NOTE_TEXT));
    expect(next.commit).toBe(tv.head());
    expect(tv.read(NOTE)).toBe('new\n');
  }, 30_000);
});

describe('#41 .git/index.lock', () => {
  it.each([
    ['create', { actor: AGENT, op: 'create', path: 'notes/new.md', reason: 'x', changes: [{ path: 'notes/new.md', content: '# New\n', expectedHash: null }] }],
    ['update', { actor: AGENT, op: 'update', path: NOTE, reason: 'x', changes: [{ path: NOTE, content: 'new\n', expectedHash: sha256(NOTE_TEXT) }] }],
    ['delete', { actor: AGENT, op: 'delete', path: NOTE, reason: 'x', changes: [{ path: NOTE, content: null, expectedHash: sha256(NOTE_TEXT) }] }],
    ['person', { actor: 'human:Test Person', op: 'update', path: NOTE, reason: 'x', changes: [{ path: NOTE, content: 'new\n' }] }],
  ] as [string, EditRequest][])(
    '%s: refused at once as locked, naming .git/index.lock; no file touched; the lock is left for its owner',
    async (_op, request) => {
      const tv = tempVault({ [NOTE]: NOTE_TEXT });
      const vault = await openIn(tv);
      const indexLock = path.join(tv.root, '.git', 'index.lock');
      fs.writeFileSync(indexLock, 'held by another git process');
      const before = snapshot(tv.root);

      const error = await refusal(vault.edit(request));

      expect(error.code).toBe('locked');
      expect(error.message).toContain('.git/index.lock');
      expect(snapshot(tv.root)).toEqual(before);
      expect(fs.readFileSync(indexLock, 'utf8')).toBe('held by another git process');
      expect(findTempFiles(tv.root)).toEqual([]);
    },
  );

  it('50 edits at once from two vault instances, with two CLI processes writing beside them: no index.lock error, one commit each', async () => {
    const notes = Array.from({ length: 10 }, (_, i) => `notes/n${i}.md`);
    const files: Record<string, string> = {};
    for (const note of notes) files[note] = `# ${note}\n`;
    const tv = tempVault(files);
    const before = tv.commitCount();
    const started = await runCli(tv, ['session', 'start', '--agent', 'cli-agent', '--task', 'concurrent writes', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const session = (JSON.parse(started.stdout) as { session: string }).session;
    const [a, b] = [await openIn(tv), await openIn(tv)];

    const cli = [0, 1].map((i) =>
      runCli(tv, ['write', `notes/cli-${i}.md`, '--session', session, '--mode', 'create', '--content', `# cli ${i}\n`, '--reason', `cli write ${i}`]),
    );
    const edits = Array.from({ length: 50 }, (_, i) =>
      (i % 2 ? a : b).edit({
        actor: AGENT,
        op: 'append',
        path: notes[i % notes.length],
        reason: `append ${i}`,
        changes: [{ path: notes[i % notes.length], content: (now) => `${now?.text ?? ''}line ${i}\n` }],
      }),
    );
    const outcomes = await Promise.allSettled(edits);
    const cliResults = await Promise.all(cli);

    const failures = outcomes.flatMap((o) => (o.status === 'rejected' ? [String((o.reason as Error).message)] : []));
    expect(failures).toEqual([]);
    expect(cliResults.map((r) => [r.code, r.stderr])).toEqual([
      [0, ''],
      [0, ''],
    ]);
    expect(tv.commitCount()).toBe(before + 52);
    for (let i = 0; i < 50; i += 1) expect(tv.read(notes[i % notes.length]).split('\n')).toContain(`line ${i}`);
    expect(tv.read('notes/cli-0.md')).toContain('# cli 0\n');
    expect(tv.read('notes/cli-1.md')).toContain('# cli 1\n');
    expect(tv.git(['status', '--porcelain'])).toBe('');
    expect(fs.existsSync(path.join(tv.root, '.git', 'index.lock'))).toBe(false);
  }, 120_000);
});

/**
 * A person committing by hand with raw git at named points of the agents' writes: `before(when)`
 * arms one commit for the next edit, made just before the edit's first git command `when` accepts
 * (given the command's arguments and its number from the edit's start). Returns the subjects of the
 * commits that went through, to check none is lost, and the git runner to open the vault with.
 */
function personCommitting(tv: TempVault) {
  const subjects: string[] = [];
  let n = 0;
  let made = 0;
  let when: ((args: readonly string[], n: number) => boolean) | null = null;
  const commitByHand = () => {
    const i = made++;
    tv.write('person.md', `typed by hand ${i}\n`);
    const result = spawnSync('git', ['commit', '-q', '-m', `by hand ${i}`, '--', 'person.md'], {
      cwd: tv.root,
      env: tv.env as NodeJS.ProcessEnv,
      stdio: 'ignore',
    });
    if (result.status === 0) subjects.push(`by hand ${i}`);
  };
  const git: GitRunner = async (invocation) => {
    if (when?.(invocation.args, n)) {
      when = null;
      commitByHand();
    }
    n += 1;
    return spawnGit(invocation);
  };
  return {
    git,
    subjects,
    before(next: (args: readonly string[], n: number) => boolean) {
      n = 0;
      when = next;
    },
    /** Whether the armed point was never reached (the edit ran fewer git commands). */
    missed: () => when !== null,
    /** How many git commands ran since the last `before`. */
    commands: () => n,
  };
}

describe('#41 a person committing with git while agents write', () => {
  it('agent edits and hand-made commits interleave: every edit is applied or cleanly refused, and no commit of either is lost', async () => {
    const tv = tempVault({ [NOTE]: '# Log\n', 'person.md': 'p\n' });
    const person = personCommitting(tv);
    const vault = await openVault({ root: tv.root, env: tv.env, git: person.git });
    opened.push(vault);
    const applied: number[] = [];
    const refused: VaultError[] = [];
    // How many git commands one edit runs: the person then commits before the agent's first, second,
    // … of successive edits, so every boundary of the write path meets a hand-made commit (no timing
    // decides where).
    person.before(() => false);
    await vault.edit({ actor: AGENT, op: 'append', path: NOTE, reason: 'probe', changes: [{ path: NOTE, content: (now) => `${now?.text ?? ''}probe\n` }] });
    const steps = person.commands();
    expect(steps).toBeGreaterThan(3);
    for (let i = 0; i < 2 * steps; i += 1) {
      person.before((_args, n) => n === i % steps);
      try {
        await vault.edit({
          actor: AGENT,
          op: 'append',
          path: NOTE,
          reason: `line ${i}`,
          changes: [{ path: NOTE, content: (now) => `${now?.text ?? ''}line ${i}\n` }],
        });
        applied.push(i);
      } catch (error) {
        expect(error).toBeInstanceOf(VaultError);
        refused.push(error as VaultError);
      }
      expect(person.missed()).toBe(false);
    }

    expect(person.subjects).toHaveLength(2 * steps);
    const lines = tv
      .read(NOTE)
      .split('\n')
      .filter((line) => line.startsWith('line '));
    expect(lines).toEqual(applied.map((i) => `line ${i}`));
    expect(tv.git(['show', `HEAD:${NOTE}`])).toBe(tv.read(NOTE));
    const subjects = tv.git(['log', '--format=%s']).split('\n');
    for (const subject of person.subjects) expect(subjects).toContain(subject);
    expect(
      tv
        .git(['log', '--format=%s', '--', NOTE])
        .split('\n')
        .filter((s) => s.startsWith('append')).length,
    ).toBe(applied.length + 1);
    expect(findTempFiles(tv.root)).toEqual([]);
  }, 60_000);

  // Found by this file: when the person's own git held .git/index.lock just after an agent's
  // update-ref, the refresh of the real index was skipped; the index kept the note as it was before
  // the edit, and the person's next plain `git commit` undid the agent's edit. The refresh now waits
  // the lock out (and a write-ahead record makes the next writer refresh it if it never goes).
  it("an index.lock held during the index refresh never lets the person's next git commit undo the edit", async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const indexLock = path.join(tv.root, '.git', 'index.lock');
    // The person's git holds index.lock during Lucid's first refresh of the real index, then lets go.
    let held = false;
    const git: GitRunner = async (invocation) => {
      const refresh = invocation.args[0] === 'update-index' && !('GIT_INDEX_FILE' in invocation.env);
      if (!refresh || held) return spawnGit(invocation);
      held = true;
      fs.writeFileSync(indexLock, '');
      try {
        return await spawnGit(invocation);
      } finally {
        fs.rmSync(indexLock, { force: true });
      }
    };
    const vault = await openVault({ root: tv.root, env: tv.env, git });
    opened.push(vault);

    await update(vault, 'the agent text\n', sha256(NOTE_TEXT));
    tv.git(['commit', '-q', '--allow-empty', '-m', 'the person commits what git shows as staged']);

    expect(tv.git(['show', `HEAD:${NOTE}`])).toBe('the agent text\n');
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });

  // Found by this file: the write path read HEAD once, and its update-ref failed with git's raw
  // "cannot lock ref 'HEAD'" when the person's own `git commit` moved HEAD meanwhile (12 of 20 edits
  // failed). The edit is now made again on the new HEAD, and a moment's index.lock is waited out.
  it("a person's git commit landing just before each agent edit's update-ref makes no agent edit fail", async () => {
    const tv = tempVault({ [NOTE]: '# Log\n', 'person.md': 'p\n' });
    const person = personCommitting(tv);
    const vault = await openVault({ root: tv.root, env: tv.env, git: person.git });
    opened.push(vault);
    const failures: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      person.before((args) => args[0] === 'update-ref');
      await vault
        .edit({ actor: AGENT, op: 'append', path: NOTE, reason: `line ${i}`, changes: [{ path: NOTE, content: (now) => `${now?.text ?? ''}line ${i}\n` }] })
        .catch((error: Error) => failures.push(error.message));
      expect(person.missed()).toBe(false);
    }

    expect(failures).toEqual([]);
    expect(person.subjects).toHaveLength(20);
    // Each edit met a moved HEAD and was made again on it: its commit sits on the person's.
    const log = tv.git(['log', '--format=%s']).trim().split('\n');
    expect(log.slice(0, 40)).toEqual(Array.from({ length: 20 }, (_, k) => [`append ${NOTE}`, `by hand ${19 - k}`]).flat());
    expect(
      tv
        .read(NOTE)
        .split('\n')
        .filter((l) => l.startsWith('line ')),
    ).toHaveLength(20);
  }, 60_000);
});

function runCli(tv: TempVault, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(BIN, [...args, '--vault', tv.root], {
    cwd: tv.tempDir('cwd'),
    env: { ...tv.env, LUCID_USER: 'Cli Person' } as unknown as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('#44 argument injection and odd repository states', () => {
  it('a commit is only ever named by a full SHA of a commit of this repository; option-shaped and shell-shaped refs are refused', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    const head = tv.head();
    const blob = tv.git(['rev-parse', `HEAD:${NOTE}`]).trim();
    const tree = tv.git(['rev-parse', 'HEAD^{tree}']).trim();
    const canary = path.join(tv.tempDir('canary'), 'x');

    for (const ref of [
      `--output=${canary}`,
      '-c core.pager=sh',
      '-ccore.pager=touch /tmp/x',
      'HEAD~1;rm -rf /',
      'HEAD',
      'main',
      head.slice(0, 12),
      head.toUpperCase(),
      `${head}\n`,
      ` ${head}`,
      'z'.repeat(40),
    ]) {
      const error = await refusal(vault.commitDiff(ref));
      expect(error.code, ref).toBe('invalid_input');
    }
    for (const ref of ['0'.repeat(40), blob, tree]) {
      const error = await refusal(vault.commitDiff(ref));
      expect(error.code, ref).toBe('not_found');
    }
    expect(fs.existsSync(canary)).toBe(false);
    expect((await vault.commitDiff(head)).sha).toBe(head);
  });

  it('notes named HEAD, -n.md and --help.md have their own history and diffs', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    for (const name of ['HEAD', '-n.md', '--help.md']) {
      // Agents may not create such names any more (catalog #19); a person's existing ones must still work.
      tv.write(name, `first ${name}\n`);
      tv.git(['add', '--', name]);
      tv.git(['commit', '-q', '-m', `add ${name}`]);
      const created = tv.head();
      const updated = await update(vault, `second ${name}\n`, sha256(`first ${name}\n`), name);

      const diff = await vault.commitDiff(updated.commit, { path: name });
      expect(diff.patch).toContain(`-first ${name}`);
      expect(diff.patch).toContain(`+second ${name}`);
      expect(diff.patch).not.toContain('changelog.md');
      expect((await vault.history(name)).map((c) => c.sha)).toEqual([updated.commit, created]);
    }
  });

  it('#13 diff and history refuse paths that leave the vault, and read nothing outside it', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT, 'a..b.md': 'fine\n' });
    const vault = await openIn(tv);
    const head = tv.head();
    for (const hostile of [
      '../../etc/passwd',
      '/etc/passwd',
      `${'..%2F'.repeat(20)}x.md`,
      '%252e%252e%252fx.md',
      '..\\..\\x.md',
      'notes/../../x.md',
      '.git/config',
    ]) {
      const diff = await refusal(vault.commitDiff(head, { path: hostile }));
      const history = await refusal(vault.history(hostile));
      for (const error of [diff, history]) expect(['invalid_path', 'forbidden'], hostile).toContain(error.code);
    }
    expect((await vault.history('a..b.md')).map((c) => c.sha)).toEqual([head]);
  });

  it('a bisect in progress: writes are refused as repo_state, naming it', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv);
    fs.writeFileSync(path.join(tv.root, '.git', 'BISECT_LOG'), '# bad: [x] y\n');
    const before = snapshot(tv.root);

    const error = await refusal(update(vault, 'new\n', sha256(NOTE_TEXT)));

    expect(error.code).toBe('repo_state');
    expect(error.message).toMatch(/bisect/);
    expect(snapshot(tv.root)).toEqual(before);
  });
});
