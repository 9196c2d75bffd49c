import { dismissDreamChanges, dreamChangePatch, type DreamRunView, landDreamChanges, listDreamRuns, showDreamRun, type Vault } from '../lib/vault';
import { progressLine } from './dream-commands';
import { openCliVault, printJson, UsageError, type Io } from './shared';

type Values = Record<string, string | boolean | undefined>;

/** A command as cli/main.ts registers it. */
interface CommandLike {
  summary: string;
  usage: string;
  options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }>;
  run: (io: Io, values: Values, positionals: string[]) => Promise<number>;
}

const VERBS = ['runs', 'show', 'land', 'dismiss'] as const;
type Verb = (typeof VERBS)[number];

const USAGE = `lucid dream runs|show RUN|land RUN [CHANGE...]|dismiss RUN [CHANGE...] [--vault DIR] [--json]
    [--all] (land, dismiss)   [--reason R] (dismiss)   [--diff] (show)

  runs     the dream runs (branches dream/<run id>), newest first: when, the commit each was built
           on, and how many changes are pending, landed, dismissed or no longer apply
  show     one run's changes, oldest first: id, status, op, files and reason (--diff: the patches);
           a change that no longer applies says why
  land     lands the named changes (ids as show prints them; --all: every pending one) on your
           current branch, each as one commit in your name with its changelog line. A change whose
           files changed since is merged onto them; one that no longer applies is skipped, never forced
  dismiss  records that you do not want the named changes (--all: every one not landed), on the
           dream branch; nothing in the vault changes
  A run whose changes are all landed or dismissed is settled: its branch is deleted.`;

const EMPTY = 'No dream runs. Make one with lucid dream --apply: it proposes its changes on a branch dream/<run id>, and nothing changes until you land them.';

const STATUS: Record<string, string> = { pending: 'pending', landed: 'landed', dismissed: 'dismissed', inapplicable: 'no longer applies' };

function summaryLine(run: DreamRunView): string {
  const c = run.counts;
  const parts = [`${c.pending} pending`, `${c.landed} landed`, `${c.dismissed} dismissed`, `${c.inapplicable} no longer apply`];
  const base = run.base ? `base ${run.base.slice(0, 7)}${run.baseMoved ? ' (your branch moved on since)' : ''}` : 'no base';
  return `${run.runId}  ${run.created.slice(0, 16).replace('T', ' ')} UTC  ${base}  ${c.changes} change${c.changes === 1 ? '' : 's'}: ${parts.join(', ')}${run.settled ? '  (settled)' : ''}`;
}

async function show(io: Io, vault: Vault, runId: string, values: Values): Promise<number> {
  const run = await showDreamRun(vault, runId);
  const patches = values.diff ? await Promise.all(run.changes.map((c) => dreamChangePatch(vault, c))) : null;
  if (values.json) {
    printJson(io, patches ? { ...run, changes: run.changes.map((c, i) => ({ ...c, patch: patches[i].patch })) } : run);
    return 0;
  }
  io.out(summaryLine(run));
  run.changes.forEach((c, i) => {
    io.out(`\n${c.id}  ${STATUS[c.status]}  ${c.op} ${c.path}`);
    for (const f of c.files) io.out(`    ${f.status} ${f.from ? `${f.from} -> ` : ''}${f.path}`);
    if (c.reason) io.out(`    ${c.reason}`);
    if (c.why) io.out(`    why: ${c.why}`);
    if (c.rebased) io.out('    its files changed since the run: landing merges it onto them');
    if (c.landed) io.out(`    landed in ${c.landed.commit.slice(0, 7)} by ${c.landed.actor}`);
    if (c.dismissed) io.out(`    dismissed by ${c.dismissed.actor}${c.dismissed.reason ? `: ${c.dismissed.reason}` : ''}`);
    if (patches) io.out(patches[i].patch);
  });
  return 0;
}

/** The changes named after the run, or all (--all); never both, never neither. */
function named(verb: Verb, values: Values, rest: string[]): string[] | undefined {
  if (values.all && rest.length > 0) throw new UsageError(`${verb} takes change ids or --all, not both`);
  if (!values.all && rest.length === 0) throw new UsageError(`${verb} needs the changes to ${verb} (ids as lucid dream show RUN prints them), or --all`);
  return values.all ? undefined : rest;
}

async function review(io: Io, verb: Verb, values: Values, args: string[]): Promise<number> {
  const foreign = Object.keys(values).filter((key) => values[key] !== undefined && !(key in OPTIONS) && key !== 'help');
  if (foreign.length > 0) throw new UsageError(`dream ${verb} does not take --${foreign[0]}`);
  if (verb !== 'runs' && args.length === 0) throw new UsageError(`dream ${verb} needs a run id (lucid dream runs lists them)`);
  if (verb === 'runs' && args.length > 0) throw new UsageError('dream runs takes no arguments');
  if (verb !== 'dismiss' && values.reason !== undefined) throw new UsageError('--reason goes with dream dismiss');
  const vault = await openCliVault(io, values.vault as string | undefined);
  try {
    if (verb === 'runs') {
      const runs = await listDreamRuns(vault);
      if (values.json) printJson(io, runs);
      else if (runs.length === 0) io.out(EMPTY);
      else for (const run of runs) io.out(summaryLine(run));
      return 0;
    }
    const [runId, ...rest] = args;
    if (verb === 'show') return await show(io, vault, runId, values);
    if (verb === 'land') {
      const progress = progressLine(io);
      const report = await landDreamChanges(vault, { runId, changes: named(verb, values, rest) }, { onProgress: progress.update });
      progress.done();
      if (values.json) printJson(io, report);
      else {
        for (const l of report.landed) io.out(`Landed ${l.id} as ${l.commit.slice(0, 7)} (edit ${l.editId})${l.rebased ? ', merged onto later edits' : ''}.`);
        for (const s of report.skipped) io.err(`Did not land ${s.id}: ${s.why}`);
        if (report.landed.length === 0 && report.skipped.length === 0) io.out('Nothing to land: no change of this run is pending.');
        if (report.settled) io.out(`Run ${runId} is settled: every change landed or dismissed; its branch is deleted.`);
      }
      return report.skipped.length > 0 ? 1 : 0;
    }
    const report = await dismissDreamChanges(vault, { runId, changes: named(verb, values, rest), reason: values.reason as string | undefined });
    if (values.json) printJson(io, report);
    else {
      if (report.dismissed.length > 0) io.out(`Dismissed ${report.dismissed.join(', ')} (recorded on ${`dream/${runId}`}; nothing in the vault changed).`);
      for (const s of report.skipped) io.err(`Did not dismiss ${s.id}: ${s.why}`);
      if (report.settled) io.out(`Run ${runId} is settled: every change landed or dismissed; its branch is deleted.`);
    }
    return report.skipped.length > 0 ? 1 : 0;
  } finally {
    vault.close();
  }
}

const OPTIONS = {
  vault: { type: 'string' as const, short: 'v' },
  json: { type: 'boolean' as const },
  all: { type: 'boolean' as const },
  reason: { type: 'string' as const, short: 'r' },
  diff: { type: 'boolean' as const },
};

/**
 * `lucid dream` with the review's verbs: a first word that is runs, show, land or dismiss is the
 * review's; anything else goes to the dream pass's own command (`pass`, when registered).
 */
export function withDreamReview(pass: CommandLike | undefined): CommandLike {
  return {
    summary: pass ? `${pass.summary}; review its runs (runs, show, land, dismiss)` : 'Review dream runs: list, show, land or dismiss their changes',
    usage: pass ? `${pass.usage}\n\n${USAGE}` : USAGE,
    options: { ...OPTIONS, ...(pass?.options ?? {}) },
    async run(io, values, positionals) {
      const [first, ...rest] = positionals;
      if ((VERBS as readonly string[]).includes(first)) return review(io, first as Verb, values, rest);
      if (pass) return pass.run(io, values, positionals);
      throw new UsageError(`dream needs one of ${VERBS.join(', ')}, e.g. lucid dream runs`);
    },
  };
}
