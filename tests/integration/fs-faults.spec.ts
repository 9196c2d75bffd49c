import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { VaultError } from '../../lib/vault/errors';
import { nodeFs, type VaultFs } from '../../lib/vault/fs';
import type { Vault } from '../../lib/vault/vault';
import type { EditRequest } from '../../lib/vault/write/edit-types';
import { findTempFiles, makeTempVault, sha256, snapshot, type TempVault } from '../support/temp-vault';

// Catalog #35 and #36. CI runs as root, where chmod cannot provoke EACCES or EROFS, so every fault
// is injected through the VaultFs adapter that openVault takes.

const AGENT = 'agent:test-agent';
const NOTE = 'notes/a.md';
const NOTE_TEXT = '---\ntitle: A\n---\n\nThe first version.\n';

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const vault of opened.splice(0)) vault.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

function tempVault(files: Record<string, string | Uint8Array>): TempVault {
  const tv = makeTempVault(files);
  vaults.push(tv);
  return tv;
}

async function openIn(tv: TempVault, vfs?: VaultFs): Promise<Vault> {
  const vault = await tv.open({ fs: vfs });
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

function errno(code: string, what: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected fault, ${what}`), { code });
}

/** Where a fault is injected: an adapter operation, or the file's fsync inside writeNewFile. */
type FaultPoint = 'writeNewFile' | 'fsyncFile' | 'rename' | 'mkdir' | 'unlink' | 'rmdir' | 'fsyncDir';

/**
 * The real adapter with persistent faults: every call of a listed operation fails with its code,
 * as a full disk or a read-only file system keeps failing. `fsyncFile` writes the temp file and
 * then fails its fsync, so the temp file exists when the error reaches the write path.
 */
function faultyFs(faults: Partial<Record<FaultPoint, string>>): VaultFs {
  const wrapped: VaultFs = { ...nodeFs };
  const fail = (point: FaultPoint, target: string) => {
    const code = faults[point];
    if (code) throw errno(code, `${point} '${target}'`);
  };
  wrapped.writeNewFile = async (target, data, mode = 0o644) => {
    fail('writeNewFile', target);
    if (!faults.fsyncFile) return nodeFs.writeNewFile(target, data, mode);
    const handle = await fsp.open(target, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW, mode);
    try {
      await handle.writeFile(data);
      fail('fsyncFile', target);
    } finally {
      await handle.close();
    }
  };
  wrapped.rename = async (from, to) => {
    fail('rename', to);
    return nodeFs.rename(from, to);
  };
  wrapped.mkdir = async (target) => {
    fail('mkdir', target);
    return nodeFs.mkdir(target);
  };
  wrapped.mkdirOne = async (target) => {
    fail('mkdir', target);
    return nodeFs.mkdirOne(target);
  };
  wrapped.unlink = async (target) => {
    fail('unlink', target);
    return nodeFs.unlink(target);
  };
  wrapped.rmdir = async (target) => {
    fail('rmdir', target);
    return nodeFs.rmdir(target);
  };
  wrapped.fsyncDir = async (target) => {
    fail('fsyncDir', target);
    return nodeFs.fsyncDir(target);
  };
  return wrapped;
}

/** A read-only file system refuses every change, whichever comes first. */
const READ_ONLY: Partial<Record<FaultPoint, string>> = { writeNewFile: 'EROFS', rename: 'EROFS', mkdir: 'EROFS', unlink: 'EROFS', rmdir: 'EROFS' };

const FAULTS: [label: string, faults: Partial<Record<FaultPoint, string>>, message: RegExp][] = [
  ['ENOSPC writing the temp file', { writeNewFile: 'ENOSPC' }, /disk is full/],
  ['EACCES creating the temp file', { writeNewFile: 'EACCES' }, /permission denied/],
  ['EROFS on rename (a read-only file system)', { rename: 'EROFS' }, /read-only/],
  ['EROFS on every change (a read-only file system)', READ_ONLY, /read-only/],
  ['EIO on the fsync of the file', { fsyncFile: 'EIO' }, /input\/output error/],
  ['EIO on the fsync of the folder', { fsyncDir: 'EIO' }, /input\/output error/],
];

/** Faults that let a delete's unlink through but fail the changelog write after it. */
function losesDeletedNote(faults: Partial<Record<FaultPoint, string>>): boolean {
  return !faults.unlink && Boolean(faults.writeNewFile || faults.fsyncFile || faults.rename);
}

type Op = 'create' | 'update' | 'delete';

function requestFor(op: Op): EditRequest {
  if (op === 'create')
    return { actor: AGENT, op, path: 'notes/new.md', reason: 'x', changes: [{ path: 'notes/new.md', content: '# New\n', expectedHash: null }] };
  if (op === 'update') return { actor: AGENT, op, path: NOTE, reason: 'x', changes: [{ path: NOTE, content: 'new text\n', expectedHash: sha256(NOTE_TEXT) }] };
  return { actor: AGENT, op, path: NOTE, reason: 'x', changes: [{ path: NOTE, content: null, expectedHash: sha256(NOTE_TEXT) }] };
}

/** Files under .lucid/ that a failed write could leave: temporary git indexes. */
function tempIndexes(tv: TempVault): string[] {
  const dir = path.join(tv.root, '.lucid');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.startsWith('index-')) : [];
}

/** The checks of catalog #35 after a refused write: clear error, old content, no temp file, no commit. */
function expectNothingChanged(tv: TempVault, error: VaultError, message: RegExp, before: ReturnType<typeof snapshot>, commits: number): void {
  expect(error.code).toBe('io_error');
  expect(error.message).toMatch(message);
  expect(error.message).not.toMatch(/^\s*at /m);
  expect(tv.read(NOTE)).toBe(NOTE_TEXT);
  expect(tv.exists('notes/new.md')).toBe(false);
  expect(findTempFiles(tv.root)).toEqual([]);
  expect(tempIndexes(tv)).toEqual([]);
  expect(tv.commitCount()).toBe(commits);
  expect(tv.git(['status', '--porcelain'])).toBe('');
  expect(snapshot(tv.root)).toEqual(before);
}

describe('#35 file-system faults: a clear error, the old content intact, no temp file, no commit', () => {
  for (const op of ['create', 'update', 'delete'] as const) {
    const cases = op === 'delete' ? FAULTS.filter(([, faults]) => !losesDeletedNote(faults)) : FAULTS;
    it.each(cases)(`${op}, %s`, async (_label, faults, message) => {
      const tv = tempVault({ [NOTE]: NOTE_TEXT, 'changelog.md': '# Changelog\n' });
      const vault = await openIn(tv, faultyFs(faults));
      const before = snapshot(tv.root);
      const commits = tv.commitCount();

      const error = await refusal(vault.edit(requestFor(op)));

      expectNothingChanged(tv, error, message, before, commits);
    });
  }

  // Found by this file: a delete used to unlink the note before writing the changelog, and putting
  // the note back hit the same fault, so the note was gone from the working tree. Deletions now come last.
  describe('delete whose changelog write fails: the note stays', () => {
    it.each(FAULTS.filter(([, faults]) => losesDeletedNote(faults)))('delete, %s', async (_label, faults, message) => {
      const tv = tempVault({ [NOTE]: NOTE_TEXT, 'changelog.md': '# Changelog\n' });
      const vault = await openIn(tv, faultyFs(faults));
      const before = snapshot(tv.root);
      const commits = tv.commitCount();

      const error = await refusal(vault.edit(requestFor('delete')));

      expectNothingChanged(tv, error, message, before, commits);
    });
  });

  it('a create in a new folder on a read-only file system (EROFS on mkdir): refused, no folder made', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    const vault = await openIn(tv, faultyFs({ mkdir: 'EROFS' }));
    const before = snapshot(tv.root);
    const commits = tv.commitCount();

    const error = await refusal(
      vault.edit({
        actor: AGENT,
        op: 'create',
        path: 'fresh/deeper/new.md',
        reason: 'x',
        changes: [{ path: 'fresh/deeper/new.md', content: 'x\n', expectedHash: null }],
      }),
    );

    expectNothingChanged(tv, error, /read-only/, before, commits);
    expect(tv.exists('fresh')).toBe(false);
  });

  it('the vault works again once the fault is gone: the next write is one ordinary commit', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT, 'changelog.md': '# Changelog\n' });
    let full = true;
    const flaky: VaultFs = {
      ...nodeFs,
      writeNewFile: async (target, data, mode) => {
        if (full) throw errno('ENOSPC', `writeNewFile '${target}'`);
        return nodeFs.writeNewFile(target, data, mode);
      },
    };
    const vault = await openIn(tv, flaky);
    const commits = tv.commitCount();
    await refusal(vault.edit(requestFor('update')));
    full = false;

    const result = await vault.edit(requestFor('update'));

    expect(result.commit).toBe(tv.head());
    expect(tv.commitCount()).toBe(commits + 1);
    expect(tv.read(NOTE)).toBe('new text\n');
    expect(tv.git(['show', '--name-only', '--format=', 'HEAD']).split('\n').filter(Boolean).sort()).toEqual(['changelog.md', NOTE]);
    expect(tv.git(['status', '--porcelain'])).toBe('');
  });
});

describe('#36 metadata and fsync order', () => {
  it('a rewrite keeps mode 0600, and a new note in the same folder gets the ordinary mode', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    fs.chmodSync(path.join(tv.root, NOTE), 0o600);
    const vault = await openIn(tv);

    await vault.edit(requestFor('update'));
    await vault.edit({
      actor: AGENT,
      op: 'update',
      path: NOTE,
      reason: 'x',
      changes: [{ path: NOTE, content: 'third\n', expectedHash: sha256('new text\n') }],
    });
    await vault.edit(requestFor('create'));

    expect(fs.statSync(path.join(tv.root, NOTE)).mode & 0o777).toBe(0o600);
    expect(tv.read(NOTE)).toBe('third\n');
    expect(fs.statSync(path.join(tv.root, 'notes/new.md')).mode & 0o777).not.toBe(0o600);
  });

  // Found by this file: the temp file is the writer's and is renamed over the note, so a note
  // another user owned became root's when root rewrote it (fixed by an fchown of the temp file).
  // Only root can give a file to another user, so this runs as root only.
  it('a rewrite by root keeps the file owner', async () => {
    if (process.getuid?.() !== 0) return;
    const tv = tempVault({ [NOTE]: NOTE_TEXT });
    fs.chownSync(path.join(tv.root, NOTE), 4321, 4321);
    const vault = await openIn(tv);

    await vault.edit(requestFor('update'));

    const stat = fs.statSync(path.join(tv.root, NOTE));
    expect([stat.uid, stat.gid]).toEqual([4321, 4321]);
  });

  it('an adapter spy shows each file written and fsynced as a temp file, then renamed, then its folder fsynced', async () => {
    const tv = tempVault({ [NOTE]: NOTE_TEXT, 'changelog.md': '# Changelog\n' });
    const calls: string[] = [];
    // The write path names files through the folder descriptors it holds (/proc/self/fd/N/name on Linux).
    const real = (abs: string) => abs.replace(/^\/proc\/self\/fd\/\d+/, (dir) => fs.readlinkSync(dir));
    const rel = (abs: string) => path.relative(tv.root, real(abs)).replace(/\.lucid-tmp-[a-z2-7]+$/, '<temp>') || '.';
    const spy: VaultFs = {
      ...nodeFs,
      writeNewFile: async (target, data, mode) => {
        calls.push(`write+fsync ${rel(target)}`);
        return nodeFs.writeNewFile(target, data, mode);
      },
      rename: async (from, to) => {
        calls.push(`rename ${rel(from)} -> ${rel(to)}`);
        return nodeFs.rename(from, to);
      },
      fsyncDir: async (target) => {
        calls.push(`fsync-dir ${rel(target)}`);
        return nodeFs.fsyncDir(target);
      },
    };
    const vault = await openIn(tv, spy);

    await vault.edit(requestFor('update'));

    expect(calls).toEqual([
      // the write-ahead record, flushed before any file of the vault changes
      'write+fsync .lucid/<temp>',
      'rename .lucid/<temp> -> .lucid/write-ahead.json',
      'fsync-dir .lucid',
      'write+fsync notes/<temp>',
      `rename notes/<temp> -> ${NOTE}`,
      'fsync-dir notes',
      'write+fsync <temp>',
      'rename <temp> -> changelog.md',
      'fsync-dir .',
      // the record's stage updates: renamed, not flushed (recovery decides from git and the files)
      ...Array(4).fill('rename .lucid/<temp> -> .lucid/write-ahead.json'),
    ]);
  });

  it('the real adapter fsyncs the file before closing it, and writeNewFile never replaces an existing file', async () => {
    const tv = tempVault({});
    const events: string[] = [];
    const realOpen = fsp.open.bind(fsp);
    vi.spyOn(fsp, 'open').mockImplementation(async (...args: Parameters<typeof fsp.open>) => {
      const handle = await realOpen(...args);
      for (const method of ['writeFile', 'sync', 'close'] as const) {
        const original = handle[method].bind(handle) as (...a: unknown[]) => Promise<void>;
        Object.defineProperty(handle, method, {
          configurable: true,
          value: (...a: unknown[]) => {
            events.push(method);
            return original(...a);
          },
        });
      }
      return handle;
    });
    const target = path.join(tv.root, 'note.md');

    await nodeFs.writeNewFile(target, Buffer.from('bytes\n'), 0o600);
    const again = await nodeFs.writeNewFile(target, Buffer.from('other\n')).then(
      () => null,
      (error: NodeJS.ErrnoException) => error.code,
    );

    expect(events.slice(0, 3)).toEqual(['writeFile', 'sync', 'close']);
    expect(fs.readFileSync(target, 'utf8')).toBe('bytes\n');
    expect(fs.statSync(target).mode & 0o777).toBe(0o600);
    expect(again).toBe('EEXIST');
  });
});
