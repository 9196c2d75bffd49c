import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { VaultError } from '../../lib/vault/errors';
import { nodeFs, type VaultFs } from '../../lib/vault/fs';
import { initVault, startSession } from '../../lib/vault/index';
import type { Vault } from '../../lib/vault/vault';
import { makeTempVault, sha256, snapshot, type TempVault } from '../support/temp-vault';

// Confinement of every write, delete, rollback and read (catalog #15, #17, and the `.lucid` link
// of issue 9), on Linux through /proc/self/fd and in the portable fallback. The swaps here happen
// at one exact call (a VaultFs hook), so each window the #16 race test hits by chance is hit on
// every run.

const AGENT = 'agent:tester';
const CANARY = 'outside canary\n';

let tv: TempVault | null = null;
let vault: Vault | null = null;
afterEach(() => {
  vault?.close();
  vault = null;
  tv?.cleanup();
  tv = null;
});

async function refusal(promise: Promise<unknown>): Promise<VaultError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(VaultError);
    return error as VaultError;
  }
  throw new Error('expected a VaultError, the call succeeded');
}

/** Every entry under `dir` (folders, files by sha256, links by target). */
function listing(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string, prefix: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      const abs = path.join(current, entry.name);
      if (entry.isSymbolicLink()) out[rel] = `link:${fs.readlinkSync(abs)}`;
      else if (entry.isDirectory()) {
        out[rel] = 'dir';
        walk(abs, rel);
      } else out[rel] = sha256(fs.readFileSync(abs));
    }
  };
  walk(dir, '');
  return out;
}

function outsideFolder(t: TempVault): string {
  const outside = t.tempDir('outside');
  fs.writeFileSync(path.join(outside, 'secret.md'), CANARY);
  fs.writeFileSync(path.join(outside, 'new.md'), CANARY);
  fs.writeFileSync(path.join(outside, 'note.md'), CANARY);
  return outside;
}

/** Replaces the folder `abs` by a link to `outside`, keeping the real folder beside it (inside the vault). */
function swapToLink(abs: string, outside: string): void {
  fs.renameSync(abs, `${abs}.away`);
  fs.symlinkSync(outside, abs);
}

function create(v: Vault, file: string, text = '# New\n') {
  return v.edit({ actor: AGENT, op: 'create', path: file, reason: 'x', changes: [{ path: file, content: text, expectedHash: null }] });
}

const MODES: [string, VaultFs][] = [
  ['through /proc/self/fd', nodeFs],
  ['in the portable fallback', { ...nodeFs, fdPaths: async () => false }],
];

describe.each(MODES)('#17 a new file with an odd parent, %s', (_mode, fsImpl) => {
  it('a missing parent (two levels) is created inside the vault, one folder at a time', async () => {
    tv = makeTempVault({ 'notes/a.md': '# A\n' });
    const outside = outsideFolder(tv);
    const before = listing(outside);
    vault = await tv.open({ fs: fsImpl });

    const result = await create(vault, 'fresh/deeper/new.md');

    expect(tv.read('fresh/deeper/new.md')).toBe('# New\n');
    expect(tv.git(['show', `${result.commit}:fresh/deeper/new.md`])).toBe('# New\n');
    expect(listing(outside)).toEqual(before);
  });

  it('a parent that is a link to outside: create, nested create, update, delete and read are refused; outside byte-identical', async () => {
    tv = makeTempVault({ 'notes/a.md': '# A\n' });
    const outside = outsideFolder(tv);
    fs.symlinkSync(outside, path.join(tv.root, 'linked'));
    const before = listing(outside);
    vault = await tv.open({ fs: fsImpl });
    const vaultBefore = snapshot(tv.root);

    const errors = [
      await refusal(create(vault, 'linked/brand-new.md')),
      await refusal(create(vault, 'linked/deeper/new.md')),
      await refusal(vault.edit({ actor: AGENT, op: 'update', path: 'linked/note.md', reason: 'x', changes: [{ path: 'linked/note.md', content: 'x\n' }] })),
      await refusal(vault.edit({ actor: AGENT, op: 'delete', path: 'linked/secret.md', reason: 'x', changes: [{ path: 'linked/secret.md', content: null }] })),
      await refusal(vault.readNote('linked/secret.md')),
      await refusal(vault.readFileBytes('linked/secret.md')),
    ];

    for (const error of errors) expect(error.code).toBe('forbidden');
    expect(listing(outside)).toEqual(before);
    expect(snapshot(tv.root)).toEqual(vaultBefore);
  });

  it('a parent component that is a file: refused as invalid_path, nothing created anywhere', async () => {
    tv = makeTempVault({ 'notes/plain.md': '# Plain\n' });
    const outside = outsideFolder(tv);
    const before = listing(outside);
    vault = await tv.open({ fs: fsImpl });
    const vaultBefore = snapshot(tv.root);

    const error = await refusal(create(vault, 'notes/plain.md/new.md'));

    expect(error.code).toBe('invalid_path');
    expect(listing(outside)).toEqual(before);
    expect(snapshot(tv.root)).toEqual(vaultBefore);
  });

  it('a link inside the vault that points inside may be read; writes never follow it', async () => {
    tv = makeTempVault({ 'notes/target.md': '# Target\n' });
    fs.symlinkSync('target.md', path.join(tv.root, 'notes', 'alias.md'));
    fs.symlinkSync('notes', path.join(tv.root, 'notes-link'));
    vault = await tv.open({ fs: fsImpl });

    expect((await vault.readNote('notes/alias.md')).text).toBe('# Target\n');
    expect((await vault.readNote('notes-link/target.md')).text).toBe('# Target\n');
    const error = await refusal(create(vault, 'notes-link/other.md'));
    expect(error.code).toBe('forbidden');
    expect(tv.exists('notes/other.md')).toBe(false);
  });
});

/** A VaultFs that runs `hook` once, right before the first call of `op` that `when` accepts. */
function hookedFs(base: VaultFs, op: 'writeNewFile' | 'openRead' | 'mkdirOne' | 'rename', when: (p: string) => boolean, hook: () => void): VaultFs {
  let fired = false;
  const fire = (p: string) => {
    if (!fired && when(p)) {
      fired = true;
      hook();
    }
  };
  return {
    ...base,
    writeNewFile: async (p, data, mode) => {
      if (op === 'writeNewFile') fire(p);
      return base.writeNewFile(p, data, mode);
    },
    openRead: async (p) => {
      if (op === 'openRead') fire(p);
      return base.openRead(p);
    },
    mkdirOne: async (p) => {
      if (op === 'mkdirOne') fire(p);
      return base.mkdirOne(p);
    },
    rename: async (from, to) => {
      if (op === 'rename') fire(to);
      return base.rename(from, to);
    },
  };
}

describe('a folder swapped for a link at one exact call (Linux, /proc/self/fd)', () => {
  it('after the folder was opened and before the temp file is created: refused, nothing outside, no temp file left', async () => {
    tv = makeTempVault({ 'notes/dir/note.md': '# Note\n' });
    const outside = outsideFolder(tv);
    const before = listing(outside);
    const dir = path.join(tv.root, 'notes/dir');
    vault = await tv.open({
      fs: hookedFs(
        nodeFs,
        'writeNewFile',
        // the note's temp file, not the write-ahead record that is written first
        (p) => !p.includes(`${path.sep}.lucid${path.sep}`),
        () => swapToLink(dir, outside),
      ),
    });

    const error = await refusal(create(vault, 'notes/dir/new.md'));

    expect(error.code).toBe('forbidden');
    expect(error.message).toMatch(/replaced by a link or moved/);
    expect(listing(outside)).toEqual(before);
    expect(fs.readdirSync(`${dir}.away`).sort()).toEqual(['note.md']);
  });

  it('a missing folder made after its parent was swapped: made inside the vault (in the real parent), never outside', async () => {
    tv = makeTempVault({ 'notes/dir/note.md': '# Note\n' });
    const outside = outsideFolder(tv);
    const before = listing(outside);
    const dir = path.join(tv.root, 'notes/dir');
    vault = await tv.open({
      fs: hookedFs(
        nodeFs,
        'mkdirOne',
        () => true,
        () => swapToLink(dir, outside),
      ),
    });

    const error = await refusal(create(vault, 'notes/dir/sub/new.md'));

    expect(error.code).toBe('forbidden');
    expect(listing(outside)).toEqual(before);
    // The folder this write made was removed again by the rollback, through the real parent.
    expect(fs.readdirSync(`${dir}.away`).sort()).toEqual(['note.md']);
  });

  it('a rollback after the folder was swapped: the outside file of the same name is not deleted', async () => {
    tv = makeTempVault({ 'notes/dir/note.md': '# Note\n', 'changelog.md': '# Changelog\n' });
    const outside = outsideFolder(tv);
    const before = listing(outside);
    const dir = path.join(tv.root, 'notes/dir');
    const root = tv.root;
    // The changelog (in the vault root) fails with ENOSPC; right before, notes/dir becomes a link
    // to a folder holding a new.md, so the rollback of notes/dir/new.md meets the link.
    let swapped = false;
    const failing: VaultFs = {
      ...nodeFs,
      writeNewFile: async (p, data, mode) => {
        if (fs.realpathSync(path.dirname(p)) !== root) return nodeFs.writeNewFile(p, data, mode);
        if (!swapped) {
          swapped = true;
          swapToLink(dir, outside);
        }
        throw Object.assign(new Error('ENOSPC: injected'), { code: 'ENOSPC' });
      },
    };
    vault = await tv.open({ fs: failing });

    const error = await refusal(create(vault, 'notes/dir/new.md'));

    expect(error.code).toBe('io_error');
    expect(listing(outside)).toEqual(before);
    expect(fs.readFileSync(path.join(outside, 'new.md'), 'utf8')).toBe(CANARY);
  });

  it('a read whose folder is swapped between the check and the open: refused, the outside bytes are never returned', async () => {
    tv = makeTempVault({ 'notes/dir/note.md': '# Inside\n' });
    const outside = outsideFolder(tv);
    const dir = path.join(tv.root, 'notes/dir');
    vault = await tv.open({
      fs: hookedFs(
        nodeFs,
        'openRead',
        () => true,
        () => swapToLink(dir, outside),
      ),
    });

    const error = await refusal(vault.readNote('notes/dir/note.md'));

    expect(error.code).toBe('forbidden');
    expect(error.message).toMatch(/replaced by a link/);
  });

  it('in the fallback, a read swapped the same way is caught by the dev/ino check', async () => {
    tv = makeTempVault({ 'notes/dir/note.md': '# Inside\n' });
    const outside = outsideFolder(tv);
    const dir = path.join(tv.root, 'notes/dir');
    const fallback: VaultFs = { ...nodeFs, fdPaths: async () => false };
    vault = await tv.open({
      fs: hookedFs(
        fallback,
        'openRead',
        () => true,
        () => swapToLink(dir, outside),
      ),
    });

    const error = await refusal(vault.readNote('notes/dir/note.md'));

    expect(error.code).toBe('forbidden');
  });
});

describe('`.lucid` must be a real folder inside the vault', () => {
  /** A fresh repository whose commit holds `.lucid -> <outside>`, and the outside folder with index-* files. */
  function vaultWithStateLink() {
    tv = makeTempVault({ 'notes/a.md': '# A\n' });
    const outside = tv.tempDir('state-elsewhere');
    fs.writeFileSync(path.join(outside, 'index-keepme'), 'not Lucid’s\n');
    fs.writeFileSync(path.join(outside, 'index-other'), 'also not\n');
    fs.mkdirSync(path.join(outside, 'sessions'));
    fs.writeFileSync(path.join(outside, 'sessions', 'x.jsonl'), '{}\n');
    fs.symlinkSync(outside, path.join(tv.root, '.lucid'));
    tv.git(['add', '.lucid']);
    tv.git(['commit', '-q', '-m', 'a shared vault with a .lucid link']);
    return { t: tv, outside };
  }

  it('lucid init refuses, naming the link; the outside folder is byte-identical and its index-* files survive', async () => {
    const { t, outside } = vaultWithStateLink();
    const before = listing(outside);
    const head = t.head();

    const error = await refusal(initVault({ dir: t.root, env: t.env, fallbackUser: 'Tester' }));

    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('`.lucid` in this vault');
    expect(error.message).toContain('symbolic link');
    expect(error.message).toContain(outside);
    expect(listing(outside)).toEqual(before);
    expect(t.head()).toBe(head);
  });

  it('writes, sessions and search refuse; nothing is put in or removed from the folder the link points to', async () => {
    const { t, outside } = vaultWithStateLink();
    const before = listing(outside);
    vault = await t.open();
    const vaultBefore = snapshot(t.root);

    const errors = [
      await refusal(create(vault, 'notes/new.md')),
      await refusal(startSession(vault, { agent: 'tester', task: 'x' })),
      await refusal(vault.search('anything')),
    ];
    expect(() => vault?.stateDir()).toThrow(/symbolic link/);

    for (const error of errors) expect(error.code).toBe('forbidden');
    expect(listing(outside)).toEqual(before);
    expect(snapshot(t.root)).toEqual(vaultBefore);
    // Reading does not need `.lucid`.
    expect((await vault.readNote('notes/a.md')).text).toBe('# A\n');
  });

  it('a file named .lucid is refused as invalid_path, and stays', async () => {
    tv = makeTempVault({ 'notes/a.md': '# A\n', '.lucid': 'a file\n' });
    vault = await tv.open();

    const error = await refusal(create(vault, 'notes/new.md'));

    expect(error.code).toBe('invalid_path');
    expect(error.message).toContain('`.lucid`');
    expect(tv.read('.lucid')).toBe('a file\n');
  });
});
