import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isVaultError, syncVault } from '../../lib/vault/index';
import { type SyncClone, syncVaultsEachTest } from '../support/sync-vaults';
import { sha256 } from '../support/temp-vault';
import { workerArgs } from '../support/worker-bundle';

/** The sync among other writers: the vault lock, a crash between the branch and the work tree, a remote that moves. */

const WORKER = fileURLToPath(new URL('../support/sync-edit-worker.ts', import.meta.url));

const sync = syncVaultsEachTest({ 'notes/welcome.md': '# Welcome\n', 'notes/shared.md': '# Shared\n' });
const setup = sync.setup;
const open = (clone: SyncClone) => sync.open(clone);

/** Clone A changes notes/shared.md and notes/new.md with an agent and syncs. */
async function remoteEdits(clone: SyncClone): Promise<void> {
  const a = await open(clone);
  await a.edit({
    actor: 'agent:alpha',
    op: 'update',
    path: 'notes/shared.md',
    reason: 'from a',
    changes: [
      { path: 'notes/shared.md', content: '# Shared (A)\n' },
      { path: 'notes/new.md', content: '# New from A\n' },
    ],
  });
  await syncVault(a);
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function waitForFile(file: string, timeoutMs = 30_000): void {
  const started = Date.now();
  while (!fs.existsSync(file)) {
    if (Date.now() - started > timeoutMs) throw new Error(`${file} never appeared`);
    sleepSync(10);
  }
}

describe('syncVault among other writers', () => {
  it("makes another process's write wait for the integration, then apply to the synced note, its expected hash deciding", async () => {
    const world = await setup();
    const { clones } = world;
    await remoteEdits(clones[0]);
    const b = await open(clones[1]);
    const staleHash = sha256(fs.readFileSync(path.join(clones[1].root, 'notes/shared.md')));
    const go = path.join(world.tempDir('barrier'), 'go');
    const child = spawn(process.execPath, [...workerArgs(WORKER), clones[1].root, 'notes/shared.md', staleHash, go], {
      env: world.env as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        if (fs.existsSync(`${go}.ready`)) {
          clearInterval(poll);
          resolve();
        }
      }, 10);
    });
    // An uncommitted note makes the sync report its first step inside the vault lock: the barrier opens there.
    clones[1].write('notes/draft.md', '# Draft\n');
    const report = await syncVault(b, {
      onProgress: (step) => {
        if (step !== 'commit-uncommitted') return;
        fs.writeFileSync(go, '');
        waitForFile(`${go}.trying`);
        sleepSync(700);
      },
    });
    expect(await exited, err).toBe(0);
    const result = JSON.parse(out) as { stale: string; commit: string };
    expect(result.stale).toBe('conflict');
    expect(report.outcome).toBe('merged');
    expect(clones[1].git(['rev-parse', `${result.commit}^`]).trim()).toBe(report.head);
    expect(clones[1].read('notes/shared.md')).toBe('# Shared (A)\nappended by the worker\n');
    expect(clones[1].git(['status', '--porcelain'])).toBe('');
  }, 60_000);

  it('finishes a sync that died between moving the branch and the work tree, before anything is committed as the person’s', async () => {
    const { clones } = await setup();
    await remoteEdits(clones[0]);
    const b = await open(clones[1]);
    const g = clones[1].git;
    g(['fetch', '-q', 'origin']);
    const old = clones[1].head();
    const next = g(['rev-parse', 'origin/main']).trim();
    // The state a crash right after update-ref leaves: the record, the branch moved, the work tree and index not.
    fs.writeFileSync(
      path.join(clones[1].root, '.lucid/sync-ahead.json'),
      JSON.stringify({ version: 1, ref: 'refs/heads/main', old, new: next, startedAt: new Date().toISOString() }),
    );
    g(['update-ref', 'refs/heads/main', next, old]);
    expect(g(['status', '--porcelain'])).not.toBe('');
    // An agent's write of another note: the write path finishes the sync first, so the changelog on
    // disk (still the old one) is not committed as the person's edit, which would revert the remote's lines.
    await b.edit({ actor: 'agent:beta', op: 'create', path: 'notes/other.md', reason: 'other', changes: [{ path: 'notes/other.md', content: '# Other\n' }] });
    expect(g(['rev-parse', 'HEAD^']).trim()).toBe(next);
    expect(g(['status', '--porcelain'])).toBe('');
    expect(clones[1].read('notes/shared.md')).toBe('# Shared (A)\n');
    expect(clones[1].read('notes/new.md')).toBe('# New from A\n');
    expect(fs.existsSync(path.join(clones[1].root, '.lucid/sync-ahead.json'))).toBe(false);
    expect(g(['log', '--format=%an', `${next}..HEAD`]).trim()).toBe('agent:beta');
  });

  it('finishes an interrupted sync when the vault is opened', async () => {
    const { clones } = await setup();
    await remoteEdits(clones[0]);
    const g = clones[1].git;
    g(['fetch', '-q', 'origin']);
    const old = clones[1].head();
    const next = g(['rev-parse', 'origin/main']).trim();
    fs.mkdirSync(path.join(clones[1].root, '.lucid'), { recursive: true });
    fs.writeFileSync(
      path.join(clones[1].root, '.lucid/sync-ahead.json'),
      JSON.stringify({ version: 1, ref: 'refs/heads/main', old, new: next, startedAt: '' }),
    );
    g(['update-ref', 'refs/heads/main', next, old]);
    await open(clones[1]);
    expect(g(['status', '--porcelain'])).toBe('');
    expect(clones[1].read('notes/new.md')).toBe('# New from A\n');
  });

  it('fetches and integrates again when the push is rejected because someone pushed meanwhile; gives up after three tries', async () => {
    const { clones } = await setup();
    const b = await open(clones[1]);
    await b.edit({ actor: 'agent:beta', op: 'create', path: 'notes/b.md', reason: 'b', changes: [{ path: 'notes/b.md', content: '# B\n' }] });
    let counter = 0;
    const pushFromA = () => {
      counter += 1;
      clones[0].git(['pull', '-q', '--no-rebase', 'origin', 'main']);
      clones[0].write(`notes/meanwhile-${counter}.md`, `# Meanwhile ${counter}\n`);
      clones[0].git(['add', '-A']);
      clones[0].git(['commit', '-q', '-m', `meanwhile ${counter}`]);
      clones[0].git(['push', '-q', 'origin', 'main']);
    };
    const steps: string[] = [];
    const report = await syncVault(b, {
      onProgress: (step) => {
        steps.push(step);
        if (step === 'push' && counter === 0) pushFromA();
      },
    });
    expect(steps.filter((s) => s === 'fetch')).toHaveLength(2);
    expect(steps.filter((s) => s === 'push')).toHaveLength(2);
    expect(report).toMatchObject({ pushed: true, outcome: 'merged', received: 1 });
    expect(sync.current()?.bareGit(['rev-parse', 'main']).trim()).toBe(clones[1].head());
    expect(clones[1].read('notes/meanwhile-1.md')).toBe('# Meanwhile 1\n');

    await b.edit({ actor: 'agent:beta', op: 'create', path: 'notes/b2.md', reason: 'b2', changes: [{ path: 'notes/b2.md', content: '# B2\n' }] });
    const error = await syncVault(b, { onProgress: (step) => step === 'push' && pushFromA() }).catch((e: unknown) => e);
    expect(isVaultError(error, 'conflict')).toBe(true);
    expect((error as Error).message).toMatch(/run lucid sync again/);
    expect(clones[1].git(['status', '--porcelain'])).toBe('');
  }, 60_000);
  it('two clones editing and syncing at the same time, round after round, end equal with every edit exactly once', async () => {
    const { clones } = await setup();
    const vaults = [await open(clones[0]), await open(clones[1])];
    const tokens: string[] = [];
    const ROUNDS = 4;
    for (let round = 0; round < ROUNDS; round += 1) {
      await Promise.all(
        vaults.map(async (vault, i) => {
          const own = `notes/own-${i}.md`;
          const token = `token-${i}-${round}`;
          tokens.push(token);
          await vault.edit({
            actor: i === 0 ? 'agent:alpha' : 'agent:beta',
            op: 'append',
            path: own,
            reason: token,
            changes: [{ path: own, content: (current) => `${current?.text ?? '# Own\n'}${token}\n` }],
          });
          const sharedToken = `shared-${i}-${round}`;
          tokens.push(sharedToken);
          await vault.edit({
            actor: i === 0 ? 'agent:alpha' : 'agent:beta',
            op: 'append',
            path: 'notes/shared.md',
            reason: sharedToken,
            changes: [{ path: 'notes/shared.md', content: (current) => `${current?.text ?? ''}${sharedToken}\n` }],
          });
        }),
      );
      await Promise.all(vaults.map((vault) => syncVault(vault)));
    }
    for (const vault of [...vaults, ...vaults]) await syncVault(vault);
    expect(clones[0].head()).toBe(clones[1].head());
    for (const clone of clones) expect(clone.git(['status', '--porcelain'])).toBe('');
    const g = clones[0].git;
    const changelog = g(['show', 'HEAD:changelog.md']);
    const ids = [...changelog.matchAll(/\^(e[a-z2-7]{12})\s*$/gm)].map((m) => m[1]);
    const trailers = g(['log', '--format=%(trailers:key=Lucid-Edit,valueonly)', 'HEAD'])
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    expect(ids).toHaveLength(new Set(ids).size);
    expect(new Set(ids)).toEqual(new Set(trailers));
    expect(trailers).toHaveLength(new Set(trailers).size);
    // Every token is in its note, or (for the shared note, changed on both sides) in an inbox item.
    const everything = g(['grep', '-h', '-o', '-E', '(shared|token)-[0-9]-[0-9]', 'HEAD', '--', 'notes', 'inbox'])
      .split('\n')
      .map((l) => l.replace(/^HEAD:/, ''));
    for (const token of tokens) expect(everything, token).toContain(token);
    for (const token of tokens.filter((t) => t.startsWith('token-'))) {
      expect(g(['show', `HEAD:notes/own-${token.split('-')[1]}.md`])).toContain(token);
    }
  }, 120_000);
});
