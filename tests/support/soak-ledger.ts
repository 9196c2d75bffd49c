import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The soak's ledger of intended changes (every agent line, every proposal, every person's action)
// and the check of that ledger against the final vault and `git log` (catalog #45 d).

/** One agent write_note append: a uniquely tagged line meant to land once in `path`. */
export interface AgentWrite {
  kind: 'write';
  agent: string;
  path: string;
  tag: string;
  status: string;
  editId: string | null;
  commit: string | null;
  error?: string;
}

/** One propose_to_inbox: a create of `target` whose text holds `tag`. */
export interface Proposal {
  kind: 'propose';
  agent: string;
  id: string;
  inboxPath: string;
  target: string;
  tag: string;
  editId: string;
}

/** The person's actions in the dashboard. */
export type PersonKind = 'accept' | 'edit' | 'reject' | 'revert-accept' | 'revert-write';

/** One action the person took in Chromium, with what the page said and how long it took. */
export interface PersonAction {
  kind: 'action';
  action: PersonKind;
  /** ok: done; refused: the page said "nothing changed" as designed (a conflicting revert); failed: anything else. */
  outcome: 'ok' | 'refused' | 'failed';
  itemId?: string;
  /** For edit: the line the person typed into the editor. */
  humanTag?: string;
  /** For revert-write: the agent write whose commit was reverted. */
  revertedTag?: string;
  /** The commit the page named (short sha for accept/reject, full for a revert's target). */
  commit?: string;
  /** The commit a revert undid. */
  revertOf?: string;
  editId?: string;
  ms: number;
  message?: string;
}

type Entry = AgentWrite | Proposal | PersonAction;

/** The ledger: kept in memory and appended to a JSONL file as each change is intended and done. */
export class Ledger {
  readonly entries: Entry[] = [];
  constructor(readonly file: string) {}

  add(entry: Entry): void {
    this.entries.push(entry);
    appendFileSync(this.file, `${JSON.stringify({ at: new Date().toISOString(), ...entry })}\n`);
  }

  get writes(): AgentWrite[] {
    return this.entries.filter((e): e is AgentWrite => e.kind === 'write');
  }
  get proposals(): Proposal[] {
    return this.entries.filter((e): e is Proposal => e.kind === 'propose');
  }
  get actions(): PersonAction[] {
    return this.entries.filter((e): e is PersonAction => e.kind === 'action');
  }

  /** Where each proposal stands after the actions so far: waiting in the inbox, accepted (with the commit) or rejected. */
  itemStates(): Map<string, { proposal: Proposal; state: 'pending' | 'accepted' | 'rejected'; acceptCommit?: string; humanTag?: string }> {
    const states = new Map<string, { proposal: Proposal; state: 'pending' | 'accepted' | 'rejected'; acceptCommit?: string; humanTag?: string }>();
    for (const entry of this.entries) {
      if (entry.kind === 'propose') states.set(entry.id, { proposal: entry, state: 'pending' });
      if (entry.kind !== 'action' || entry.outcome !== 'ok' || !entry.itemId) continue;
      const item = states.get(entry.itemId);
      if (!item) continue;
      if (entry.action === 'accept' || entry.action === 'edit') {
        item.state = 'accepted';
        item.acceptCommit = entry.commit;
        item.humanTag = entry.action === 'edit' ? entry.humanTag : undefined;
      } else if (entry.action === 'reject') item.state = 'rejected';
      else if (entry.action === 'revert-accept') {
        item.state = 'pending';
        item.acceptCommit = undefined;
        item.humanTag = undefined;
      }
    }
    return states;
  }

  pendingOf(agent: string): number {
    let n = 0;
    for (const item of this.itemStates().values()) if (item.state === 'pending' && item.proposal.agent === agent) n += 1;
    return n;
  }
}

/** A commit of the soak: its sha and trailers. */
interface Commit {
  sha: string;
  trailers: Record<string, string>;
}

function commitsSince(root: string, start: string): Commit[] {
  const out = execFileSync('git', ['log', '--format=%H%x1f%B%x1e', `${start}..HEAD`], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  return out
    .split('\x1e')
    .map((chunk) => chunk.trim())
    .filter(Boolean)
    .map((chunk) => {
      const [sha, message = ''] = chunk.split('\x1f');
      const trailers: Record<string, string> = {};
      for (const line of message.trim().split('\n').reverse()) {
        const m = /^([A-Za-z-]+): (.*)$/.exec(line);
        if (!m) break;
        trailers[m[1]] = m[2];
      }
      return { sha, trailers };
    });
}

/** Lucid's temp files anywhere, lock files in .lucid/ and .git/: what a finished run must not leave. */
export function orphans(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const relPath = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.name.startsWith('.lucid-tmp-')) found.push(relPath);
      else if (relPath.startsWith('.lucid/') && /\.(lock|owner)(\.\d+)?$/.test(entry.name)) found.push(relPath);
      else if (relPath.startsWith('.git/') && entry.name.endsWith('.lock')) found.push(relPath);
      if (entry.isDirectory() && relPath !== '.git/objects') walk(path.join(dir, entry.name), relPath);
    }
  };
  walk(root, '');
  return found;
}

const occurrences = (text: string, tag: string) => text.split(tag).length - 1;

/** What the check found: failures (any is a loss) and the figures it counted. */
export interface SoakCheck {
  failures: string[];
  commits: number;
  linesChecked: number;
  itemsChecked: number;
}

/**
 * Checks the ledger against the vault at `root` and its git log since `start`: every written agent
 * line present exactly once (none if a revert the ledger records removed it), every proposal where
 * its last action put it, one commit per action (each edit id in exactly one commit, actor and op
 * as intended), no commit nobody intended, a clean `git status`, and no orphaned temp or lock file.
 */
export function checkLedger(root: string, start: string, ledger: Ledger): SoakCheck {
  const failures: string[] = [];
  const read = (rel: string) => (existsSync(path.join(root, rel)) ? readFileSync(path.join(root, rel), 'utf8') : null);
  const commits = commitsSince(root, start);
  const byEdit = new Map<string, Commit[]>();
  for (const c of commits) {
    const id = c.trailers['Lucid-Edit'];
    if (id) byEdit.set(id, [...(byEdit.get(id) ?? []), c]);
  }
  const oneCommit = (editId: string, what: string): Commit | null => {
    const found = byEdit.get(editId) ?? [];
    if (found.length !== 1) failures.push(`${what}: edit ${editId} is in ${found.length} commits, not 1`);
    return found[0] ?? null;
  };

  // Agent lines.
  const revertedTags = new Set(ledger.actions.filter((a) => a.action === 'revert-write' && a.outcome === 'ok' && a.revertedTag).map((a) => a.revertedTag));
  let linesChecked = 0;
  for (const w of ledger.writes) {
    if (w.status !== 'written' || !w.editId) {
      failures.push(`agent ${w.agent}: write of ${w.tag} to ${w.path} was not written (${w.status}${w.error ? `: ${w.error}` : ''})`);
      continue;
    }
    linesChecked += 1;
    oneCommit(w.editId, `agent line ${w.tag}`);
    const expected = revertedTags.has(w.tag) ? 0 : 1;
    const found = occurrences(read(w.path) ?? '', w.tag);
    if (found !== expected) failures.push(`lost update: ${w.tag} is in ${w.path} ${found} times, expected ${expected}`);
  }

  // Proposals, by their last action.
  const states = ledger.itemStates();
  for (const { proposal: p, state, humanTag } of states.values()) {
    const item = read(p.inboxPath);
    const target = read(p.target);
    oneCommit(p.editId, `proposal ${p.id}`);
    if (state === 'pending') {
      if (item === null) failures.push(`proposal ${p.id}: should wait in the inbox, but ${p.inboxPath} is gone`);
      if (target !== null) failures.push(`proposal ${p.id}: not accepted, but ${p.target} exists`);
    } else if (state === 'rejected') {
      if (item !== null) failures.push(`proposal ${p.id}: rejected, but ${p.inboxPath} is still there`);
      if (target !== null) failures.push(`proposal ${p.id}: rejected, but ${p.target} exists`);
    } else {
      if (item !== null) failures.push(`proposal ${p.id}: accepted, but ${p.inboxPath} is still there`);
      if (target === null) failures.push(`lost update: proposal ${p.id} was accepted, but ${p.target} is missing`);
      else {
        if (occurrences(target, p.tag) !== 1) failures.push(`lost update: ${p.tag} is in ${p.target} ${occurrences(target, p.tag)} times, expected 1`);
        if (humanTag && occurrences(target, humanTag) !== 1)
          failures.push(`lost update: the person's ${humanTag} is in ${p.target} ${occurrences(target, humanTag)} times, expected 1`);
      }
    }
  }

  // One commit per person action, as the person, with the intended op.
  const opOf: Record<PersonKind, string> = { accept: 'accept', edit: 'accept', reject: 'reject', 'revert-accept': 'revert', 'revert-write': 'revert' };
  let personActions = 0;
  for (const a of ledger.actions) {
    if (a.outcome !== 'ok') continue;
    personActions += 1;
    if (!a.editId) {
      failures.push(`${a.action} ${a.itemId ?? a.revertOf ?? ''}: no edit id recorded`);
      continue;
    }
    const c = oneCommit(a.editId, `${a.action} ${a.itemId ?? a.revertOf ?? ''}`);
    if (!c) continue;
    if (a.commit && a.action !== 'revert-accept' && a.action !== 'revert-write' && !c.sha.startsWith(a.commit))
      failures.push(`${a.action} ${a.editId}: the page named commit ${a.commit}, git has ${c.sha}`);
    if (c.trailers['Lucid-Op'] !== opOf[a.action]) failures.push(`${a.action} ${a.editId}: commit ${c.sha} has op ${c.trailers['Lucid-Op']}`);
    if (!c.trailers['Lucid-Actor']?.startsWith('human:')) failures.push(`${a.action} ${a.editId}: commit ${c.sha} is by ${c.trailers['Lucid-Actor']}`);
  }
  const human = commits.filter((c) => c.trailers['Lucid-Actor']?.startsWith('human:')).length;
  if (human !== personActions) failures.push(`${human} commits by the person, but ${personActions} actions succeeded`);
  const agentMade = commits.filter((c) => c.trailers['Lucid-Actor']?.startsWith('agent:')).length;
  const intended = ledger.writes.filter((w) => w.editId).length + ledger.proposals.length;
  if (agentMade < intended) failures.push(`${agentMade} commits by agents, fewer than the ${intended} writes and proposals they made`);

  const status = execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
  if (status.trim() !== '') failures.push(`git status is not clean:\n${status}`);
  for (const file of orphans(root)) failures.push(`orphaned temp or lock file: ${file}`);

  return { failures, commits: commits.length, linesChecked, itemsChecked: states.size };
}

/** The p-th percentile (0..100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
