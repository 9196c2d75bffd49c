/**
 * How many skills can a vault hold before the dream pass stops keeping them tidy? Generates skill
 * sets of 50, 200 and 1,000 (scripts/dream-skillgen.ts: a tenth of them planted paraphrased
 * duplicates, near misses by construction), writes each into a fresh git vault, runs the pass
 * (findDreamCandidates, as `lucid dream` does) and prints a markdown table: precision and recall
 * of the duplicate pairs, false pairs among near misses, and the pass's time, cold (first open:
 * the commit index is built) and warm, beside `git log` of the same vault as a baseline.
 * With --apply, also the time of `lucid dream --apply` (one commit per merge).
 *
 *   node --import tsx scripts/dream-measure.ts [--sizes 50,200,1000] [--seed 101] [--apply]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { applyDreamRun, composeNote, findDreamCandidates, initVault, openVault } from '../lib/vault';
import { pairFeatures } from '../lib/vault/dream/similarity';
import { generateSkillSet } from './dream-skillgen';

const { values } = parseArgs({ options: { sizes: { type: 'string' }, seed: { type: 'string' }, apply: { type: 'boolean' } } });
const sizes = (values.sizes ?? '50,200,1000').split(',').map(Number);
// Not the seeds the weights were tuned on (1 to 3).
const seed = Number(values.seed ?? 101);

const env: Record<string, string | undefined> = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('GIT_')));
env.GIT_CONFIG_NOSYSTEM = '1';

function git(dir: string, args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: env as NodeJS.ProcessEnv, encoding: 'utf8', maxBuffer: 1 << 28 });
}

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

interface Row {
  size: number;
  planted: number;
  found: number;
  truePairs: number;
  nearMissPairs: number;
  nearMissFalse: number;
  coldMs: number;
  warmMs: number;
  gitLogMs: number;
  applyMs: number | null;
  applyChanges: number | null;
  /** the lowest score of a planted pair and the highest of any other pair: the margin around the threshold */
  lowestPlanted: number;
  highestOther: number;
}

async function measure(size: number, runSeed: number): Promise<Row> {
  const set = generateSkillSet(size, runSeed);
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'lucid-dream-measure-')));
  try {
    git(root, ['init', '-q', '-b', 'main']);
    git(root, ['config', 'user.name', 'Measure']);
    git(root, ['config', 'user.email', 'measure@example.invalid']);
    git(root, ['config', 'commit.gpgsign', 'false']);
    await initVault({ dir: root, env });
    fs.mkdirSync(path.join(root, 'skills'), { recursive: true });
    for (const s of set.skills) {
      const text = composeNote({ type: 'skill', name: s.name, version: 1, trigger: s.trigger, last_updated: '2026-11-01', status: 'active' }, s.body);
      fs.writeFileSync(path.join(root, 'skills', `${s.name}.md`), text);
    }
    git(root, ['add', '-A']);
    git(root, ['commit', '-q', '-m', `${set.skills.length} generated skills`]);

    const system = new Map(set.skills.map((s) => [`skills/${s.name}.md`, s.system]));
    const truth = new Set(set.duplicates.map(([a, b]) => [`skills/${a}.md`, `skills/${b}.md`].sort().join('|')));

    let start = process.hrtime.bigint();
    const vault = await openVault({ root, env });
    const findings = await findDreamCandidates(vault);
    const coldMs = ms(start);
    start = process.hrtime.bigint();
    await findDreamCandidates(vault);
    const warmMs = ms(start);
    start = process.hrtime.bigint();
    git(root, ['log', '--format=%H %an %s', '--name-status']);
    const gitLogMs = ms(start);

    const found = findings.duplicates.map((d) => [d.a, d.b].sort().join('|'));
    const truePairs = found.filter((k) => truth.has(k)).length;
    const nearMissFalse = findings.duplicates.filter((d) => !truth.has([d.a, d.b].sort().join('|')) && system.get(d.a) === system.get(d.b)).length;
    const scored = pairFeatures(set.skills.map((s) => ({ path: `skills/${s.name}.md`, name: s.name, trigger: s.trigger, body: s.body })));
    const planted = scored.filter((p) => truth.has([p.a, p.b].sort().join('|'))).map((p) => p.score);
    const others = scored.filter((p) => !truth.has([p.a, p.b].sort().join('|'))).map((p) => p.score);
    let applyMs: number | null = null;
    let applyChanges: number | null = null;
    if (values.apply) {
      start = process.hrtime.bigint();
      const run = await applyDreamRun(vault, findings);
      applyMs = ms(start);
      applyChanges = run.changes.length;
    }
    vault.close();
    return {
      size,
      planted: truth.size,
      found: found.length,
      truePairs,
      nearMissPairs: set.nearMisses,
      nearMissFalse,
      coldMs,
      warmMs,
      gitLogMs,
      applyMs,
      applyChanges,
      lowestPlanted: planted.length === truth.size ? Math.min(...planted) : 0,
      highestOther: Math.max(0, ...others),
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
for (const size of sizes) {
  process.stderr.write(`measuring ${size} skills…\n`);
  rows.push(await measure(size, seed + size));
}

const pct = (n: number) => `${(100 * n).toFixed(1)} %`;
const secs = (n: number) => `${(n / 1000).toFixed(2)} s`;
const head = [
  'skills',
  'planted pairs',
  'reported',
  'precision',
  'recall',
  'false pairs among near misses',
  'lowest planted / highest other score',
  'pass (cold)',
  'pass (warm)',
  'git log',
  'warm / git log',
];
if (values.apply) head.push('--apply');
console.log(`| ${head.join(' | ')} |`);
console.log(`|${head.map(() => '---').join('|')}|`);
for (const r of rows) {
  const cells = [
    String(r.size),
    String(r.planted),
    String(r.found),
    pct(r.found === 0 ? 1 : r.truePairs / r.found),
    pct(r.truePairs / r.planted),
    `${r.nearMissFalse} of ${r.nearMissPairs}`,
    `${r.lowestPlanted.toFixed(2)} / ${r.highestOther.toFixed(2)}`,
    secs(r.coldMs),
    secs(r.warmMs),
    secs(r.gitLogMs),
    `${(r.warmMs / Math.max(1, r.gitLogMs)).toFixed(0)}×`,
  ];
  if (values.apply) cells.push(`${secs(r.applyMs ?? 0)} (${r.applyChanges} commits)`);
  console.log(`| ${cells.join(' | ')} |`);
}
console.log(`\nseed ${seed} + size; node ${process.version}; ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'})`);
