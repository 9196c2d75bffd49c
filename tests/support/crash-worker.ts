/**
 * A writer process that dies mid-write, for the crash tests. Usage:
 *   node --import tsx tests/support/crash-worker.ts <root> <op> [<kill-at> [<nth>]]
 * <op>: create | update | append | delete (one agent edit of notes/a.md or notes/new.md), or
 * loop (rewrites notes/big.md through the write path until killed, alternating two texts the
 * parent passes in CRASH_TEXT_A / CRASH_TEXT_B files).
 * <kill-at>: a write stage (recorded, files-written, commit-tree, update-ref, index-refreshed):
 * the worker SIGKILLs itself from the stage hook the <nth> time (default 1) that stage is
 * reached; `git:before-commit-tree` / `git:after-update-ref` kill it from the git runner
 * instead, which works on code that has no stage hook (to prove the findings on the old code).
 * Prints `ready` once the vault is open; exits 1 on any error, 0 when the edit finished.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { spawnGit, type GitRunner } from '../../lib/vault/git/runner';
import { seededIds } from '../../lib/vault/ids';
import { openVault } from '../../lib/vault/vault';

const [root, op, killAt = '', nthText = '1'] = process.argv.slice(2);
const nth = Number(nthText);

/** The agent text each edit writes: the marker lets a test find it wherever it ends up. */
const AGENT_MARKER = 'agent-crasher-text';

function die(): never {
  process.kill(process.pid, 'SIGKILL');
  throw new Error('unreachable');
}

let seen = 0;
const countAndMaybeDie = () => {
  seen += 1;
  if (seen === nth) die();
};

const git: GitRunner = async (invocation) => {
  if (killAt === `git:before-${invocation.args[0]}`) countAndMaybeDie();
  const out = await spawnGit(invocation);
  if (killAt === `git:after-${invocation.args[0]}`) countAndMaybeDie();
  return out;
};

async function main(): Promise<void> {
  const vault = await openVault({
    root,
    env: process.env,
    ids: seededIds(Number(process.env.CRASH_SEED ?? process.pid)),
    git,
    lock: process.env.CRASH_STALE_MS ? { staleMs: Number(process.env.CRASH_STALE_MS) } : undefined,
    onStage: (stage) => {
      // CRASH_TRACE: every stage, by pid, in one file (O_APPEND), to see which writers overlapped.
      if (process.env.CRASH_TRACE) appendFileSync(process.env.CRASH_TRACE, `${process.pid} ${stage}\n`);
      if (stage === killAt) countAndMaybeDie();
    },
  });
  process.stdout.write('ready\n');
  const actor = 'agent:crasher';
  if (op === 'loop') {
    const texts = [readFileSync(process.env.CRASH_TEXT_A ?? '', 'utf8'), readFileSync(process.env.CRASH_TEXT_B ?? '', 'utf8')];
    for (let i = 0; ; i += 1) {
      // Raw reads and no schema check: the test is about the write path, not about parsing 2 MB.
      const current = readFileSync(`${root}/notes/big.md`, 'utf8');
      const next = current === texts[0] ? texts[1] : texts[0];
      await vault.edit({
        actor,
        op: 'update',
        path: 'notes/big.md',
        reason: `rewrite ${i}`,
        skipValidation: true,
        changes: [{ path: 'notes/big.md', content: next }],
      });
    }
  }
  const changes = {
    create: { path: 'notes/new.md', content: `# New\n\n${AGENT_MARKER} created\n` },
    update: { path: 'notes/a.md', content: `# A\n\n${AGENT_MARKER} updated\n` },
    append: { path: 'notes/a.md', content: (note: { text: string | null } | null) => `${note?.text ?? ''}\n${AGENT_MARKER} appended\n` },
    delete: { path: 'notes/a.md', content: null },
  } as const;
  const change = changes[op as keyof typeof changes];
  if (!change) throw new Error(`unknown op ${op}`);
  await vault.edit({ actor, op: op as 'create', path: change.path, reason: `crash test ${op}`, changes: [change] });
  vault.close();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}\n`);
  process.exit(1);
});
