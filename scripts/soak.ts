/**
 * `npm run soak [-- --minutes N] [-- --port P] [-- --keep]`: catalog #45 d. On a throwaway demo
 * vault served by the real dashboard, a person in Chromium accepts, edits then accepts, rejects and
 * reverts for N minutes (5 by default) while two MCP agents keep writing (appends to a shared note
 * and their own, proposals so the inbox never runs dry). A ledger records every intended change;
 * at the end it is checked against the final vault and `git log`: zero lost updates, zero 500s,
 * zero orphaned temp or lock files, one commit per action. Prints the figures; exits 1 on any loss.
 * Not part of `npm test`.
 */
import { chromium } from '@playwright/test';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { SoakAgent } from '../tests/support/soak-agents';
import { checkLedger, Ledger, orphans, type PersonKind, percentile } from '../tests/support/soak-ledger';
import { SoakPerson } from '../tests/support/soak-person';

const repo = path.resolve(import.meta.dirname, '..');
const lucidBin = path.join(repo, 'bin', 'lucid');
const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '5' }, port: { type: 'string', default: '3471' }, keep: { type: 'boolean', default: false } },
});
const minutes = Number(values.minutes);
const port = Number(values.port);
if (!(minutes > 0) || !Number.isInteger(port)) {
  console.error('Usage: npm run soak -- [--minutes N] [--port P] [--keep]');
  process.exit(2);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'lucid-soak-'));
const vaultRoot = path.join(work, 'vault');
const ledger = new Ledger(path.join(work, 'ledger.jsonl'));
const token = randomBytes(24).toString('base64url');
const baseUrl = `http://127.0.0.1:${port}`;
const git = (args: string[]) => execFileSync('git', args, { cwd: vaultRoot, encoding: 'utf8' });

/** Starts `lucid serve` on the vault (building the dashboard first if its sources changed) and waits until it answers. */
async function startServer(): Promise<ChildProcess> {
  const log = createWriteStream(path.join(work, 'server.log'));
  const child = spawn(process.execPath, [lucidBin, 'serve', '--vault', vaultRoot, '--port', String(port)], {
    cwd: repo,
    env: { ...process.env, LUCID_TOKEN: token, NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const deadline = Date.now() + 10 * 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`lucid serve exited with ${child.exitCode}; see ${path.join(work, 'server.log')}`);
    const up = await fetch(`${baseUrl}/`).then(
      (r) => r.status > 0,
      () => false,
    );
    if (up) return child;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the dashboard did not start within 10 minutes');
}

function stopServer(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    // Its own process group (detached): `lucid serve` and the `next start` it runs.
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
    setTimeout(() => {
      if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGKILL');
    }, 10_000).unref();
  });
}

const random = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];

/** The person's loop: picks an action the ledger makes possible, weighted towards the inbox. */
async function personLoop(person: SoakPerson, until: number): Promise<void> {
  const weights: [PersonKind, number][] = [
    ['accept', 3],
    ['edit', 2],
    ['reject', 2],
    ['revert-accept', 2],
    ['revert-write', 1],
  ];
  const bag = weights.flatMap(([kind, n]) => Array<PersonKind>(n).fill(kind));
  while (Date.now() < until) {
    const states = [...ledger.itemStates().values()];
    const pending = states.filter((s) => s.state === 'pending');
    // The latest accepts still standing: they are on the first page of the changelog's accepts.
    const accepted = ledger.actions
      .filter((a) => (a.action === 'accept' || a.action === 'edit') && a.outcome === 'ok' && a.itemId)
      .reverse()
      .filter((a) => ledger.itemStates().get(a.itemId as string)?.acceptCommit === a.commit)
      .slice(0, 3);
    const kind = random(bag);
    try {
      if (kind === 'accept' || kind === 'edit' || kind === 'reject') {
        if (pending.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 300));
          continue;
        }
        await person.decide(kind, random(pending).proposal);
      } else if (kind === 'revert-accept') {
        if (accepted.length === 0) continue;
        const pick = random(accepted);
        await person.revert(kind, person.fullSha(pick.commit as string), { op: 'accept' }, { itemId: pick.itemId });
      } else {
        const reverted = new Set(ledger.actions.map((a) => a.revertedTag));
        const own = ledger.writes.filter((w) => w.status === 'written' && w.commit && w.path.startsWith('Notes/soak-agent-') && !reverted.has(w.tag));
        if (own.length === 0) continue;
        const w = own[own.length - 1];
        await person.revert(kind, w.commit as string, { actor: `agent:${w.agent}` }, { revertedTag: w.tag });
      }
    } catch (error) {
      ledger.add({ kind: 'action', action: kind, outcome: 'failed', ms: 0, message: `the page did not do it: ${(error as Error).message.split('\n')[0]}` });
    }
  }
}

async function main(): Promise<number> {
  console.log(`Soak: ${minutes} min on ${vaultRoot} (ledger ${ledger.file}).`);
  execFileSync(process.execPath, [lucidBin, 'demo', vaultRoot], { stdio: 'ignore' });
  const start = git(['rev-parse', 'HEAD']).trim();
  const server = await startServer();
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const agents = ['soak-agent-a', 'soak-agent-b'].map((name) => new SoakAgent(name, vaultRoot, 'Notes/soak-shared.md', ledger, lucidBin));
  const person = new SoakPerson(browser, baseUrl, token, vaultRoot, ledger);
  const began = Date.now();
  try {
    await agents[0].start(true);
    await agents[1].start(false);
    await person.start();
    const until = Date.now() + minutes * 60_000;
    const writing = agents.map((a) => a.run());
    await personLoop(person, until);
    for (const a of agents) await a.stop();
    await Promise.all(writing);
    await person.close();
  } finally {
    for (const a of agents) await a.close();
    await browser.close();
    await stopServer(server);
  }
  const seconds = (Date.now() - began) / 1000;
  const check = checkLedger(vaultRoot, start, ledger);
  const failures = [...check.failures];
  for (const e of person.serverErrors) failures.push(`server error: ${e}`);
  for (const a of ledger.actions.filter((x) => x.outcome === 'failed')) failures.push(`${a.action} failed: ${a.message ?? ''}`);
  for (const a of agents) if (a.errors > 0) failures.push(`${a.name}: ${a.errors} MCP calls failed`);

  const actions = ledger.actions;
  const latencies = actions.filter((a) => a.ms > 0 && a.outcome === 'ok').map((a) => a.ms);
  const kinds: PersonKind[] = ['accept', 'edit', 'reject', 'revert-accept', 'revert-write'];
  console.log(`\nSoak figures (${seconds.toFixed(0)} s, vault ${vaultRoot}):`);
  for (const kind of kinds) {
    const of = actions.filter((a) => a.action === kind);
    const n = (o: string) => of.filter((a) => a.outcome === o).length;
    console.log(`  ${kind.padEnd(14)} ${String(n('ok')).padStart(4)} done, ${n('refused')} refused as conflicts (nothing changed), ${n('failed')} failed`);
  }
  console.log(`  person actions ${actions.filter((a) => a.outcome === 'ok').length} done of ${actions.length} tried`);
  console.log(`  agent writes   ${ledger.writes.length} appends (${check.linesChecked} written and checked), ${ledger.proposals.length} proposals`);
  console.log(
    `  action latency p50 ${percentile(latencies, 50).toFixed(0)} ms, p95 ${percentile(latencies, 95).toFixed(0)} ms, max ${percentile(latencies, 100).toFixed(0)} ms (click to the page's answer)`,
  );
  console.log(`  commits        ${check.commits} since the demo (${check.itemsChecked} proposals followed to their end)`);
  console.log(`  server errors  ${person.serverErrors.length} responses >= 500`);
  console.log(`  orphans        ${orphans(vaultRoot).length} temp or lock files left`);
  console.log(`  failures       ${failures.length}`);
  for (const f of failures.slice(0, 50)) console.log(`    - ${f}`);
  if (failures.length > 50) console.log(`    … and ${failures.length - 50} more (see ${ledger.file})`);
  if (failures.length === 0 && !values.keep) rmSync(work, { recursive: true, force: true });
  else console.log(`  kept ${work} (vault, ledger.jsonl, server.log)`);
  return failures.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`soak: ${(error as Error).stack ?? error}`);
    console.error(`kept ${work}`);
    process.exit(1);
  },
);
