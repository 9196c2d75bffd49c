import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isVaultError, listInbox, showInboxItem, syncVault } from '../../lib/vault/index';
import { type SyncClone, syncVaultsEachTest } from '../support/sync-vaults';
import { snapshot, steppingClock } from '../support/temp-vault';

/** What a sync does where both clones changed the same files: notes, the changelog, inbox names, other files. */

const SHARED = '# Shared\n\none\ntwo\nthree\n';

const sync = syncVaultsEachTest({ 'notes/welcome.md': '# Welcome\n', 'notes/shared.md': SHARED });
const setup = sync.setup;
const open = (clone: SyncClone, clock?: Date) => sync.open(clone, clock ? { clock: steppingClock(clock) } : {});

/** Every file of the work tree (`.git` and `.lucid` left out) holding a line that starts a git conflict marker. */
function filesWithMarkers(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git' || entry.name === '.lucid') continue;
      const abs = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(abs);
      else if (entry.isFile() && /^(<{7}|>{7}|={7})( |$)/m.test(fs.readFileSync(abs, 'utf8'))) out.push(path.relative(root, abs));
    }
  };
  walk(root);
  return out;
}

const editIds = (text: string) => [...text.matchAll(/\^(e[a-z2-7]{12})\s*$/gm)].map((m) => m[1]);

describe('syncVault where both sides changed', () => {
  it("keeps the remote's version of a note both changed and files the local one in the inbox, with base_blob, never a conflict marker", async () => {
    const { clones } = await setup();
    const [a, b] = [await open(clones[0]), await open(clones[1])];
    const base = clones[1].git(['rev-parse', 'HEAD:notes/shared.md']).trim();
    const remoteText = SHARED.replace('one', 'one (from A)');
    const localText = SHARED.replace('one', 'one (from B)');
    await a.edit({ actor: 'agent:alpha', op: 'update', path: 'notes/shared.md', reason: 'a', changes: [{ path: 'notes/shared.md', content: remoteText }] });
    await syncVault(a);
    await b.edit({ actor: 'agent:beta', op: 'update', path: 'notes/shared.md', reason: 'b', changes: [{ path: 'notes/shared.md', content: localText }] });
    const report = await syncVault(b);
    expect(report.outcome).toBe('merged');
    expect(report.conflicts).toHaveLength(1);
    const [conflict] = report.conflicts;
    expect(conflict.path).toBe('notes/shared.md');
    expect(conflict.inbox).toMatch(/^inbox\/\d{4}-\d{2}-\d{2}-\d{6}-shared-[a-z2-7]{4}\.md$/);
    expect(clones[1].read('notes/shared.md')).toBe(remoteText);
    const item = clones[1].read(conflict.inbox);
    expect(item).toContain('flag: conflict');
    expect(item).toContain(`base_blob: ${base}`);
    expect(item).toContain('proposed_by: agent:beta');
    expect(item).toContain('target: notes/shared.md');
    expect(item).toContain('one (from B)');
    // The merge commit holds the inbox item; nothing is left uncommitted; no marker anywhere.
    expect(clones[1].git(['ls-tree', '--name-only', 'HEAD', '--', conflict.inbox]).trim()).toBe(conflict.inbox);
    expect(clones[1].git(['status', '--porcelain'])).toBe('');
    expect(filesWithMarkers(clones[1].root)).toEqual([]);
    // The inbox shows both versions over their base.
    const items = await listInbox(b);
    expect(items.map((i) => i.target)).toEqual(['notes/shared.md']);
    const detail = await showInboxItem(b, items[0].id);
    expect(JSON.stringify(detail)).toContain('one (from A)');
    expect(JSON.stringify(detail)).toContain('one (from B)');
    // The other clone gets the item too.
    await syncVault(a);
    expect(clones[0].read(conflict.inbox)).toBe(item);
    expect(filesWithMarkers(clones[0].root)).toEqual([]);
  });

  it("commits a person's uncommitted edit as theirs first; when the remote changed that note too, their version goes to the inbox", async () => {
    const { clones } = await setup();
    const [a, b] = [await open(clones[0]), await open(clones[1])];
    await a.edit({
      actor: 'agent:alpha',
      op: 'update',
      path: 'notes/welcome.md',
      reason: 'a',
      changes: [{ path: 'notes/welcome.md', content: '# Welcome (A)\n' }],
    });
    await syncVault(a);
    clones[1].write('notes/welcome.md', '# Welcome, typed by Person 2\n');
    clones[1].write('notes/new-idea.md', '# An idea nobody committed\n');
    const before = clones[1].head();
    const steps: string[] = [];
    const report = await syncVault(b, { onProgress: (step) => steps.push(step) });
    expect(steps).toContain('commit-uncommitted');
    expect(report.committedFirst.sort()).toEqual(['notes/new-idea.md', 'notes/welcome.md']);
    const saved = clones[1]
      .git(['log', '--format=%H%x00%an%x00%B%x01', `${before}..HEAD`, '--no-merges', '--author=Person 2'])
      .split('\x01')
      .filter((s) => s.trim());
    expect(saved).toHaveLength(1);
    expect(saved[0]).toContain('Lucid-Actor: human:Person 2');
    expect(saved[0]).toContain('Lucid-Op: update');
    const savedSha = saved[0].trim().split('\0')[0];
    expect(clones[1].git(['show', `${savedSha}:notes/welcome.md`])).toBe('# Welcome, typed by Person 2\n');
    expect(clones[1].read('notes/new-idea.md')).toBe('# An idea nobody committed\n');
    expect(clones[1].read('notes/welcome.md')).toBe('# Welcome (A)\n');
    expect(report.conflicts.map((c) => c.path)).toEqual(['notes/welcome.md']);
    const item = clones[1].read(report.conflicts[0].inbox);
    expect(item).toContain('proposed_by: human:Person 2');
    expect(item).toContain('# Welcome, typed by Person 2');
  });

  it('merges the changelog by union across a month rotation: every edit once, this month in changelog.md, the earlier month in its archive', async () => {
    const { clones } = await setup();
    const a = await open(clones[0], new Date(2026, 11, 1, 9, 0));
    await a.edit({
      actor: 'agent:alpha',
      op: 'create',
      path: 'notes/december.md',
      reason: 'dec',
      changes: [{ path: 'notes/december.md', content: '# Dec\n' }],
    });
    expect(clones[0].exists('changelog/2026-11.md')).toBe(true);
    await syncVault(a);
    const b = await open(clones[1], new Date(2026, 10, 20, 9, 0));
    await b.edit({ actor: 'agent:beta', op: 'create', path: 'notes/november.md', reason: 'nov', changes: [{ path: 'notes/november.md', content: '# Nov\n' }] });
    await b.close();
    const b2 = await open(clones[1], new Date(2026, 11, 2, 9, 0));
    const report = await syncVault(b2);
    expect(report.outcome).toBe('merged');
    expect(clones[1].git(['status', '--porcelain'])).toBe('');
    const current = clones[1].read('changelog.md');
    const archive = clones[1].read('changelog/2026-11.md');
    const all = [...editIds(current), ...editIds(archive)];
    expect(new Set(all).size).toBe(all.length);
    // Every commit's edit id of either clone is listed exactly once.
    const trailers = clones[1]
      .git(['log', '--format=%(trailers:key=Lucid-Edit,valueonly)', 'HEAD'])
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    expect(new Set(all)).toEqual(new Set(trailers));
    for (const line of current.split('\n').filter((l) => l.startsWith('- '))) expect(line.startsWith('- 2026-12-')).toBe(true);
    for (const line of archive.split('\n').filter((l) => l.startsWith('- '))) expect(line.startsWith('- 2026-11-')).toBe(true);
    expect(archive).toContain('create [[notes/november]]');
    expect(current).toContain('create [[notes/december]]');
    const stamps = current
      .split('\n')
      .filter((l) => l.startsWith('- '))
      .map((l) => l.slice(2, 18));
    expect([...stamps].sort().reverse()).toEqual(stamps);
    // Syncing back: the other clone holds the same files.
    await syncVault(a);
    expect(clones[0].read('changelog.md')).toBe(current);
    expect(clones[0].read('changelog/2026-11.md')).toBe(archive);
  });

  it('keeps both inbox items when both sides added one name with different content (the local one renamed)', async () => {
    const { clones } = await setup();
    const name = 'inbox/2026-11-15-100000-same.md';
    const item = (who: string) =>
      `---\ntype: inbox\nproposed_by: agent:${who}\naction: create\ntarget: notes/${who}.md\nreason: r\ncreated: 2026-11-15T10:00:00+01:00\n---\n\nWhy.\n\n\`\`\`\`markdown\n# ${who}\n\`\`\`\`\n`;
    for (const [i, who] of ['alpha', 'beta'].entries()) {
      clones[i].write(name, item(who));
      clones[i].git(['add', name]);
      clones[i].git(['commit', '-q', '-m', `proposal by ${who}`]);
    }
    clones[0].git(['push', '-q', 'origin', 'main']);
    const b = await open(clones[1]);
    const report = await syncVault(b);
    expect(report.conflicts).toEqual([]);
    expect(clones[1].read(name)).toBe(item('alpha'));
    const inbox = fs.readdirSync(path.join(clones[1].root, 'inbox')).filter((f) => f.endsWith('.md'));
    const renamed = inbox.filter((f) => /^2026-11-15-100000-same-[a-z2-7]{4}\.md$/.test(f));
    expect(renamed).toHaveLength(1);
    expect(clones[1].read(`inbox/${renamed[0]}`)).toBe(item('beta'));
  });

  it('stops with conflict and changes nothing when both changed a file that is not a note', async () => {
    const { clones } = await setup();
    for (const [i, who] of ['alpha', 'beta'].entries()) {
      clones[i].write('assets/data.json', `{"by": "${who}"}\n`);
      clones[i].git(['add', 'assets/data.json']);
      clones[i].git(['commit', '-q', '-m', `data by ${who}`]);
    }
    clones[0].git(['push', '-q', 'origin', 'main']);
    const b = await open(clones[1]);
    const before = snapshot(clones[1].root);
    const error = await syncVault(b).catch((e: unknown) => e);
    expect(isVaultError(error, 'conflict')).toBe(true);
    expect((error as Error).message).toContain('assets/data.json');
    expect((error as Error).message).toContain('git merge origin/main');
    const after = snapshot(clones[1].root);
    delete after.files['.lucid/sync.json'];
    for (const key of Object.keys(before.files)) if (key.startsWith('.lucid/')) delete before.files[key];
    for (const key of Object.keys(after.files)) if (key.startsWith('.lucid/')) delete after.files[key];
    expect(after).toEqual(before);
  });
  it('combines one side changing only the executable bit with the other changing the content: no conflict, nothing lost', async () => {
    const { clones } = await setup();
    const [a, b] = [await open(clones[0]), await open(clones[1])];
    const remoteText = `${SHARED}from A\n`;
    await a.edit({ actor: 'agent:alpha', op: 'update', path: 'notes/shared.md', reason: 'a', changes: [{ path: 'notes/shared.md', content: remoteText }] });
    clones[0].write('assets/run.sh', 'echo one\n');
    clones[0].git(['add', 'assets/run.sh']);
    clones[0].git(['commit', '-q', '-m', 'a script']);
    await syncVault(a);
    await syncVault(b);
    // A changes the script's content; B only makes the note and the script executable.
    clones[0].write('assets/run.sh', 'echo two\n');
    clones[0].git(['commit', '-q', '-am', 'script edited']);
    clones[0].git(['push', '-q', 'origin', 'main']);
    await a.edit({
      actor: 'agent:alpha',
      op: 'update',
      path: 'notes/shared.md',
      reason: 'a2',
      changes: [{ path: 'notes/shared.md', content: `${remoteText}again\n` }],
    });
    await syncVault(a);
    clones[1].git(['update-index', '--chmod=+x', 'notes/shared.md', 'assets/run.sh']);
    clones[1].git(['commit', '-q', '-m', 'executable']);
    clones[1].git(['checkout', '--', '.']);
    const report = await syncVault(b);
    expect(report.outcome).toBe('merged');
    expect(report.conflicts).toEqual([]);
    const tree = clones[1].git(['ls-tree', 'HEAD', '--', 'notes/shared.md', 'assets/run.sh']);
    expect(tree).toContain(`100755 blob ${clones[0].git(['rev-parse', 'HEAD:notes/shared.md']).trim()}\tnotes/shared.md`);
    expect(tree).toContain(`100755 blob ${clones[0].git(['rev-parse', 'HEAD:assets/run.sh']).trim()}\tassets/run.sh`);
    expect(clones[1].read('notes/shared.md')).toBe(`${remoteText}again\n`);
    expect(clones[1].git(['status', '--porcelain'])).toBe('');
  });
});
