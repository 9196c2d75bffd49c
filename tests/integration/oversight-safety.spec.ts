import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptInboxItem,
  commitUncommitted,
  isVaultError,
  proposeToInbox,
  rejectInboxItem,
  revertEdit,
  showInboxItem,
  startSession,
  type Vault,
  writeNote,
} from '../../lib/vault/index';
import { agentEdit, freeze, installedVault } from '../support/revert-vault';
import { findTempFiles, sha256, type TempVault } from '../support/temp-vault';

// The catalog's safety items for issue 14's actions (accept, edit then accept, reject, revert,
// commit uncommitted work), on fresh temp repositories checked with raw git and raw files:
// #41 (.git/index.lock present) and #37 (no lost update when an agent writes under the person).

const vaults: TempVault[] = [];
const opened: Vault[] = [];
afterEach(() => {
  for (const v of opened.splice(0)) v.close();
  for (const tv of vaults.splice(0)) tv.cleanup();
});

const NOTE = '# A\n\none\ntwo\nthree\n';

async function setUp() {
  const made = await installedVault({ 'notes/a.md': NOTE, 'notes/b.md': '# B\n', 'notes/c.md': '# C\n' });
  vaults.push(made.tv);
  opened.push(made.vault);
  const { session } = await startSession(made.vault, { agent: 'safety-agent', task: 'propose and write' });
  return { ...made, session };
}

async function rejection(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isVaultError(error)) throw new Error(`expected a VaultError, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

const itemId = (inboxPath: string) => path.basename(inboxPath, '.md');

describe('#41 .git/index.lock present: every action of the inbox and the changelog fails fast, names the lock, and changes nothing', () => {
  it.each(['accept', 'edit then accept', 'reject', 'revert', 'commit uncommitted'] as const)('%s', async (action) => {
    const { tv, vault, session } = await setUp();
    const proposed = await proposeToInbox(vault, { session, target: 'notes/a.md', action: 'update', content: '# A\n\none\nTWO\nthree\n', reason: 'unsure' });
    const shown = await showInboxItem(vault, itemId(proposed.inbox_path));
    const earlier = await agentEdit(vault, 'notes/c.md', '# C\n\nan agent line\n');
    await agentEdit(vault, 'notes/b.md', '# B\n\nan agent line\n');
    tv.write('notes/b.md', '# B\n\nan agent line\ntyped in Obsidian\n');
    const lock = path.join(tv.root, '.git', 'index.lock');
    fs.writeFileSync(lock, 'held by another git process');
    const before = freeze(tv);

    const run: Record<typeof action, () => Promise<unknown>> = {
      accept: () => acceptInboxItem(vault, { id: shown.id, expectedTargetHash: shown.currentHash }),
      'edit then accept': () => acceptInboxItem(vault, { id: shown.id, expectedTargetHash: shown.currentHash, text: '# A\n\none\nthe person’s two\nthree\n' }),
      reject: () => rejectInboxItem(vault, { id: shown.id, reason: 'no' }),
      revert: () => revertEdit(vault, { ref: earlier.editId }),
      'commit uncommitted': () => commitUncommitted(vault, { paths: ['notes/b.md'] }),
    };
    const error = await rejection(run[action]());

    // Never a hang: the action settled with `locked`. The wait for a person's own git to let go is
    // bounded by the clock (2 s), proven on a clock the test moves in tests/unit/index-lock-wait.spec.ts.
    expect(error.code).toBe('locked');
    expect(error.message).toContain('.git/index.lock');
    expect(freeze(tv)).toEqual(before);
    expect(fs.readFileSync(lock, 'utf8')).toBe('held by another git process');
    expect(findTempFiles(tv.root)).toEqual([]);
    expect(tv.read('notes/b.md')).toBe('# B\n\nan agent line\ntyped in Obsidian\n');

    // Once the lock's owner is done, the same action goes through.
    fs.rmSync(lock);
    await run[action]();
  });
});

describe('#37 an agent writes the target after the person opened the item: the decision is refused, the agent keeps its version, the person loses nothing', () => {
  it.each(['accept', 'edit then accept'] as const)('%s', async (action) => {
    const { tv, vault, session } = await setUp();
    const proposed = await proposeToInbox(vault, {
      session,
      target: 'notes/a.md',
      action: 'update',
      content: '# A\n\none\ntwo by the proposal\nthree\n',
      reason: 'unsure',
    });
    const seen = await showInboxItem(vault, itemId(proposed.inbox_path));
    expect(seen.currentHash).toBe(sha256(NOTE));
    // H1: an agent (through write_note, as over MCP) appends to the note the person is looking at.
    const written = await writeNote(vault, { session, path: 'notes/a.md', mode: 'append', content: 'four, by the agent\n', reason: 'more' });
    expect(written.status).toBe('written');
    const h1 = tv.read('notes/a.md');
    const before = freeze(tv);

    const personText = '# A\n\none\ntwo as the person wants it\nthree\n';
    const error = await rejection(
      acceptInboxItem(vault, { id: seen.id, expectedTargetHash: seen.currentHash, text: action === 'accept' ? undefined : personText }),
    );
    expect(error.code).toBe('conflict');
    expect(error.message).toMatch(/notes\/a\.md changed since you looked at it/);
    expect(freeze(tv)).toEqual(before);
    expect(sha256(tv.read('notes/a.md'))).toBe(sha256(h1));
    expect(tv.exists(proposed.inbox_path)).toBe(true);

    // Offered again: the item, read afresh, shows the agent's change and the merge with the proposal;
    // the person's text, accepted against the new hash, goes in and keeps the agent's line.
    const again = await showInboxItem(vault, seen.id);
    expect(again.currentHash).toBe(sha256(h1));
    expect(again.targetChanged).toBe(true);
    expect(again.merge?.text).toContain('four, by the agent');
    const kept = action === 'accept' ? (again.merge?.text ?? '') : `${personText}four, by the agent\n`;
    await acceptInboxItem(vault, { id: seen.id, expectedTargetHash: again.currentHash, text: kept });
    expect(tv.read('notes/a.md')).toBe(kept);
    expect(tv.read('notes/a.md')).toContain('four, by the agent');
    expect(tv.git(['log', '-1', '--format=%B'])).toMatch(/^Lucid-Op: accept$/m);
  });
});
